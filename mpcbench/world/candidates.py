"""Candidate instances on a generated world: `draft_candidate(config, world, k)` makes candidate
number k (window, participants, requirements), `plan_threads` decides the project and threads
it needs, aimed at the answer the threads would otherwise give, and `write_threads` writes them
(the build writes only the candidates it keeps). A candidate depends only on
(seed, level, k), so resampling adds candidates without changing earlier ones. Which candidates
are kept is decided in SQL by the build (too few feasible starts, sources that do not matter).

Long because drafting, aiming and finishing a candidate share one set of small helpers
(windows, thread constraints, requirement messages, room needs).
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import itertools
import random
from dataclasses import dataclass
from typing import Callable

from . import prose
from ..levels import level_spec
from ..timestamps import timestamp_text
from .config import WorldConfig
from .generate import NOISE_PROJECT_BASE, ThreadWriter, between, clock_at, constraint_tag_message, horizon, random_range, seeded_rng
from .ids import id_key, opaque_id
from .tags import render_tag
from .wording import Wording, wording_for


@dataclass
class Candidate:
    """One candidate instance with its own project and threads. A draft has no threads yet."""
    k: int
    instance: dict
    project: dict | None
    threads: list[dict]
    targets: list[dt.datetime] | None = None   # what the threads were aimed at (levels 2-3)
    plan: ThreadPlan | None = None             # a judged candidate's threads, not yet written

    def planned(self) -> ThreadPlan:
        """The threads planned for this judged candidate (levels 2 and up), to write."""
        if self.plan is None:
            raise ValueError(f"candidate {self.k} has no planned threads")
        return self.plan


def _window(config: WorldConfig, rng: random.Random) -> tuple[list[dt.date], dt.datetime]:
    length = between(rng, config.instance["window_days"])
    days = horizon(config)
    starts = [d for d in days[2: len(days) - length + 1] if d.weekday() < 5]
    first = prose.pick(rng, starts)
    window = [first + dt.timedelta(days=i) for i in range(length)]
    if rng.random() < config.instance["now_inside_window_share"]:
        now = clock_at(first, "07:00") + dt.timedelta(minutes=rng.randint(0, 240))
    else:
        now = clock_at(first - dt.timedelta(days=rng.randint(1, 3)), "08:00") + dt.timedelta(
            minutes=rng.randint(0, 660))
    return window, now


def _participant_list(people: list[dict], by_name: bool) -> str:
    if by_name:
        return ", ".join(p["name"] for p in people)
    return ", ".join(f"{p['name']} ({p['person_id']})" for p in people)


def _range_around(rng: random.Random, target: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """A range, often off the grid, that covers the start of a candidate at target."""
    start = target - dt.timedelta(minutes=rng.choice((0, 5, 10, 15, 20, 30, 45, 60, 90)))
    end = target + dt.timedelta(minutes=rng.choice((5, 15, 20, 30, 45, 60, 90, 120)))
    return start, end


def _range_clear_of(rng: random.Random, target: dt.datetime, other: dt.datetime,
                    span: dt.timedelta) -> tuple[dt.datetime, dt.datetime]:
    """_range_around(target), cut so that it leaves a candidate at `other` alone where it can
    (so that the tags aimed at the two starts each bind on their own)."""
    start, end = _range_around(rng, target)
    if other > target:
        end = min(end, other)
    elif other + span <= target:
        start = max(start, other + span)
    return start, end


def _killed_by_tags(start: dt.datetime, end: dt.datetime, constraints: list[tuple[str, dict, str]],
                    participants: list[dict]) -> bool:
    names = {p["name"] for p in participants}
    for kind, params, name in constraints:
        if kind == "deadline" and end > dt.datetime.fromisoformat(params["end_by"]):
            return True
        if kind == "ban" or (kind == "ooo" and name in names):
            if dt.datetime.fromisoformat(params["start"]) < end and start < dt.datetime.fromisoformat(params["end"]):
                return True
    return False


# How often a participant's absence is said (aimed so that it changes the answer), and a
# deadline (aimed so that it rejects starts that break nothing else).
PARTICIPANT_OOO_SHARE = 0.8
DEADLINE_SHARE = 0.5


def _thread_constraints(rng: random.Random, by_name: bool, window: list[dt.date],
                        participants: list[dict], bystanders: list[dict],
                        targets: list[dt.datetime], n: int, duration: int) -> list[tuple[str, dict, str]]:
    """Deadline, ban and ooo tags, aimed at the target starts (the first feasible starts
    without threads) so that they bind: the ban at one of the first n, a participant's absence
    at another of the first n + 1 (once the ban has moved the answer on by one, that start is
    in it), a deadline soon after the last target, so that it rejects later starts that break
    nothing else. A deadline cannot change an earliest-N answer that has N starts: it only
    removes starts later than those it keeps. The second ban and the bystander's absence are
    random."""
    weekdays = [d for d in window if d.weekday() < 5] or window
    found = []
    span = dt.timedelta(minutes=duration)
    first = rng.choice(targets[:n])
    others = [t for t in targets[:n + 1] if abs(t - first) >= span] or [t for t in targets[:n + 1] if t != first]
    aims = [first, rng.choice(others) if others else first]
    start, end = _range_clear_of(rng, aims[0], aims[-1], span)
    found.append(("ban", {"start": timestamp_text(start), "end": timestamp_text(end)}, ""))
    if rng.random() < 0.4:
        start, end = random_range(rng, prose.pick(rng, weekdays))
        found.append(("ban", {"start": timestamp_text(start), "end": timestamp_text(end)}, ""))
    absent = []
    if rng.random() < PARTICIPANT_OOO_SHARE:
        person = prose.pick(rng, participants)
        if rng.random() < 0.3 and aims[-1].date() != first.date():
            day = aims[-1].date()
            absent.append((person, clock_at(day, "00:00"), clock_at(day + dt.timedelta(days=1), "00:00")))
        else:
            absent.append((person, *_range_clear_of(rng, aims[-1], aims[0], span)))
    if rng.random() < 0.5:
        absent.append((prose.pick(rng, bystanders), *random_range(rng, prose.pick(rng, weekdays[:3]))))
    for person, start, end in absent:
        who = {"person_name": person["name"]} if by_name else {"person_id": person["person_id"]}
        found.append(("ooo", {**who, "start": timestamp_text(start), "end": timestamp_text(end)}, person["name"]))
    if rng.random() < DEADLINE_SHARE:
        end_by = max(targets) + dt.timedelta(minutes=duration + 15 * rng.randint(0, 8))
        if end_by.date() > window[-1]:
            end_by = clock_at(window[-1], prose.pick(rng, ("12:00", "15:30", "17:00", "18:00")))
        found.append(("deadline", {"end_by": timestamp_text(end_by)}, ""))
    rng.shuffle(found)
    return found


def _room_words(params: dict, words: Wording) -> str:
    def said(key: str) -> str:
        return words.fixed(f"room_words:{key}")

    parts = []
    if "min_capacity" in params:
        parts.append(said("capacity").format(n=params["min_capacity"]))
    if params.get("features"):
        parts.append(said("features").format(features=said("feature_joiner").join(params["features"])))
    if "building" in params:
        parts.append(said("building").format(building=params["building"]))
    return said("joiner").join(parts) or said("any")


def _requirement_message(rng: random.Random, kind: str, params: dict, revised: bool, words: Wording,
                         tagged: bool = True) -> str:
    """A requirement said (or revised) in a thread: prose and tag (level 3), prose alone (level 4)."""
    value = {
        "participants": lambda: ", ".join(params["people"]),
        "duration": lambda: params["minutes"],
        "count": lambda: params["n"],
        "policy": lambda: params["policy_id"],
        "tie_break": lambda: words.fixed(f"tie_break:{params['rule']}"),
        "room": lambda: _room_words(params, words),
        "owner": lambda: params["person_name"],
    }[kind]()
    if kind == "owner":
        return words.pick(rng, "owner").format(name=value)
    family = kind if tagged else f"{kind}/l4"
    text = words.pick(rng, family).format(value=value, tag=render_tag(kind, params) if tagged else "")
    text = text if tagged else prose.untagged(text)
    return (words.pick(rng, "revision") + text[0].lower() + text[1:]) if revised else text


RoomNeeds = Callable[[dt.datetime, dt.datetime, int], tuple[dict, ...]]


def room_need_finder(world: dict) -> RoomNeeds:
    """widest_needs(start, end, size): the room needs (min_capacity, features, building) that
    some room meets but no room free in [start, end) does, keeping those that the most rooms
    meet (the fewer other starts they remove). Cached: many candidates aim at the same slot."""
    is_booked = booking_index(world)

    @functools.cache
    def widest_needs(start: dt.datetime, end: dt.datetime, size: int) -> tuple[dict, ...]:
        rooms = [(r["capacity"], frozenset(r["features"]), r["building"],
                  is_booked(r["room_id"], start, end), r) for r in world["rooms"] if r["capacity"] >= size]
        options: dict[tuple, tuple[int, dict]] = {}
        judged: set[tuple] = set()   # a key's verdict does not depend on the room that proposed it
        for capacity, _features, building, booked, room in rooms:
            if not booked:
                continue
            feature_sets = [()] + [(f,) for f in room["features"]] + [
                tuple(pair) for pair in itertools.combinations(room["features"], 2)]
            for need_building in (None, building):
                for need_features in feature_sets:
                    for need_capacity in (None, capacity):
                        key = (need_capacity, need_features, need_building)
                        if key in judged:
                            continue
                        judged.add(key)
                        meeting = [is_booked_now for cap, feats, bld, is_booked_now, _ in rooms
                                   if cap >= (need_capacity or 0) and feats.issuperset(need_features)
                                   and need_building in (None, bld)]
                        if all(meeting):
                            params = {}
                            if need_capacity is not None:
                                params["min_capacity"] = need_capacity
                            if need_features:
                                params["features"] = list(need_features)
                            if need_building is not None:
                                params["building"] = need_building
                            options[key] = (len(meeting), params)
        widest = max((count for count, _ in options.values()), default=0)
        return tuple(params for count, params in options.values() if count == widest and count > 0)

    return widest_needs


def _room_requirement(config: WorldConfig, rng: random.Random, size: int, widest_needs: RoomNeeds,
                      targets: list[tuple[dt.datetime, dt.datetime]]) -> dict | None:
    """Room needs aimed at one of the target candidates (see room_need_finder); None when the
    threads state no room needs."""
    if rng.random() < 0.1:
        return None
    for start, end in rng.sample(targets, min(3, len(targets))):
        options = widest_needs(start, end, size)
        if options:
            return copy.deepcopy(prose.pick(rng, options))
    return {"features": [prose.pick(rng, config.rooms["features"])]} if rng.random() < 0.5 else {}


def _level3_requirement_tags(config: WorldConfig, rng: random.Random, world: dict,
                             participants: list[dict], duration: int, n: int, policy_id: str,
                             tie_break: str, room: dict | None) -> list[tuple[str, dict, bool]]:
    """The requirement tags in the order they are said; a revised kind is said twice."""
    final: list[tuple[str, dict]] = [
        ("participants", {"people": [p["name"] for p in participants]}),
        ("duration", {"minutes": duration}),
        ("count", {"n": n}),
        ("policy", {"policy_id": policy_id}),
    ]
    if tie_break == "capacity" or rng.random() < 0.3:
        final.append(("tie_break", {"rule": tie_break}))
    if room is not None:
        final.append(("room", room))
    said = [(kind, params, False) for kind, params in final]
    if rng.random() < config.requirements.get("revision_share", 0):
        kind = prose.pick(rng, ("participants", "duration", "count", "policy"))
        stale = {
            "participants": lambda: {"people": [p["name"] for p in participants[:-1]]
                                     + [prose.pick(rng, [p for p in world["people"] if p not in participants]
                                                   if level_spec(config.level).owner_decides else world["people"])["name"]]},
            "duration": lambda: {"minutes": prose.pick(rng, [d for d in config.instance["durations"] if d != duration])},
            "count": lambda: {"n": n + rng.choice((-1, 1, 2))},
            "policy": lambda: {"policy_id": prose.pick(rng, [p["policy_id"] for p in world["policies"] if p["policy_id"] != policy_id])},
        }[kind]()
        position = next(i for i, item in enumerate(said) if item[0] == kind)
        said[position] = (kind, stale, False)
        said.append((kind, dict(final[position][1]), True))
    return said


def _decoy_revisions(config: WorldConfig, rng: random.Random, world: dict, others: list[dict],
                     requirements: dict) -> list[tuple[str, str, dict, dict]]:
    """Level 4: with `decoy_revision_share`, one revision of a requirement by a participant who is
    not the owner, said last; it has no authority, so the requirements stay as they are."""
    if rng.random() >= config.requirements.get("decoy_revision_share", 0) or not others:
        return []
    kind = prose.pick(rng, ("duration", "count", "policy"))
    params = {
        "duration": lambda: {"minutes": prose.pick(rng, [d for d in config.instance["durations"]
                                                           if d != requirements["duration_min"]])},
        "count": lambda: {"n": requirements["n"] + rng.choice((-1, 1, 2))},
        "policy": lambda: {"policy_id": prose.pick(rng, [p["policy_id"] for p in world["policies"]
                                                         if p["policy_id"] != requirements["policy_id"]])},
    }[kind]()
    return [(_requirement_message(rng, kind, params, True, wording_for(config), False), kind, params,
             prose.pick(rng, others))]


def draft_candidate(config: WorldConfig, world: dict, k: int) -> Candidate:
    """Who, how long, how many, which policy and window: everything but the threads."""
    rng = seeded_rng(config, "candidate", k)
    level, spec = config.level, level_spec(config.level)
    window, now = _window(config, rng)
    participants = rng.sample(world["people"], between(rng, config.instance["participants"]))
    duration = prose.pick(rng, config.instance["durations"])
    n = between(rng, config.instance["n"])
    policy_id = prose.pick(rng, world["policies"])["policy_id"]
    requirements = {
        "participants": [p["person_id"] for p in participants],
        "duration_min": duration, "n": n, "policy_id": policy_id,
        "tie_break": None, "room": None,
    }
    if spec.rooms:
        share = config.requirements.get("capacity_tie_break_share", 0)
        requirements["tie_break"] = "capacity" if rng.random() < share else "room_id"
    instance = {
        "instance_id": f"L{level}-c{k:06d}",
        "level": level,
        "world_id": world["world_id"],
        "prompt": "",
        "now": timestamp_text(now),
        "window": {"start": window[0].isoformat(), "end": window[-1].isoformat()},
        "given": {},
        "project_id": None,
        "requirements": requirements,
    }
    if not spec.request_in_threads:
        instance["given"] = {key: requirements[key] for key in ("participants", "duration_min", "n", "policy_id")}
    first, last = prose.human_day(window[0]), prose.human_day(window[-1])
    sent = f"[Sent {prose.human_day(now.date())} {prose.human_time(now)}] "
    words = wording_for(config)
    if not spec.threads:
        instance["prompt"] = sent + words.pick(rng, "prompt_l1").format(
            n=n, duration=duration, people=_participant_list(participants, spec.people_by_name), first=first,
            last=last, policy_id=policy_id)
        return Candidate(k, instance, None, [])
    if k >= NOISE_PROJECT_BASE:
        raise ValueError(f"candidate index {k} is past the project id range")
    project_id = f"PRJ-{opaque_id(id_key(config, 'project'), k)}"
    project_name = words.project_name(rng)
    instance["project_id"] = project_id
    instance["prompt"] = sent + words.pick(rng, f"prompt_l{level}").format(
        n=n, duration=duration, people=_participant_list(participants, spec.people_by_name), first=first,
        last=last, policy_id=policy_id, project=f"{project_name} ({project_id})", zone=config.timezone)
    return Candidate(k, instance, {"project_id": project_id, "name": project_name}, [])


@dataclass
class ThreadPlan:
    """What a candidate's threads will say, decided (`plan_threads`) but not written
    (`write_threads`): the messages in the order said and the generator's state to write them
    with. Its tags are all the oracle reads of threads, so the build judges a candidate on
    `tag_threads()` and writes the threads in full, with chatter, only for the candidates it keeps."""
    k: int
    instance: dict
    project: dict
    targets: list[dt.datetime]
    messages: list[tuple[str, str, dict, dict | None]]   # text, tag kind, tag params, author (None: any)
    authors: list[dict]
    clock: dt.datetime
    rng_state: tuple

    def tag_threads(self) -> list[dict]:
        """One thread holding one message per tag, with no text, author or time."""
        messages = [{"message_id": f"{self.project['project_id']}-tag{i}", "author_id": None, "ts": None, "text": "",
                     "tags": [{"type": kind, "params": params}]}
                    for i, (_, kind, params, _) in enumerate(self.messages)]
        return [{"thread_id": f"{self.project['project_id']}-tags", "project_id": self.project["project_id"],
                 "channel": "", "title": "", "messages": messages}]


def plan_threads(config: WorldConfig, world: dict, draft: Candidate, targets: list[dt.datetime],
                 room_needs: RoomNeeds | None) -> ThreadPlan:
    """Decide the draft's threads: constraint tags aimed at the first N of `targets` (the first
    feasible starts without threads and rooms), and at level 3 the requirements, some said twice
    with a revision, with room needs that no room free at one of the answer's starts meets."""
    if draft.project is None:
        raise ValueError(f"candidate {draft.k} has no project: a level-1 candidate has no threads")
    project = draft.project
    rng = seeded_rng(config, "threads", draft.k)
    level, spec = config.level, level_spec(config.level)
    instance = {**draft.instance, "requirements": dict(draft.instance["requirements"])}
    requirements = instance["requirements"]
    by_id = {p["person_id"]: p for p in world["people"]}
    participants = [by_id[i] for i in requirements["participants"]]
    duration, n = requirements["duration_min"], requirements["n"]
    now = dt.datetime.fromisoformat(instance["now"])
    window_start = dt.date.fromisoformat(instance["window"]["start"])
    window = [window_start + dt.timedelta(days=i) for i in range(
        (dt.date.fromisoformat(instance["window"]["end"]) - window_start).days + 1)]
    others = [p for p in world["people"] if p not in participants]
    authors = participants + rng.sample(others, 2)
    clock = now - dt.timedelta(days=rng.randint(4, 9), minutes=rng.randint(0, 600))
    constraints = _thread_constraints(rng, spec.people_by_name, window, participants, others, targets, n, duration)
    tagged = spec.tagged
    words = wording_for(config)
    messages: list[tuple[str, str, dict, dict | None]] = [
        (constraint_tag_message(rng, kind, params, words, name, tagged), kind, params, None)
        for kind, params, name in constraints]
    if spec.rooms:
        if room_needs is None:
            raise ValueError(f"a level-{level} candidate needs room_needs (room_need_finder)")
        # the rooms aim at a start the threads leave alone, so that both matter
        survivors = [t for t in targets
                     if not _killed_by_tags(t, t + dt.timedelta(minutes=duration), constraints, participants)]
        room = _room_requirement(config, rng, len(participants), room_needs,
                                 [(t, t + dt.timedelta(minutes=duration)) for t in survivors[:n] or targets])
        requirements["room"] = None if room is None else {
            "min_capacity": room.get("min_capacity"), "features": room.get("features", []),
            "building": room.get("building")}
        said = _level3_requirement_tags(config, rng, world, participants, duration, n,
                                        requirements["policy_id"], requirements["tie_break"], room)
        owner = prose.pick(rng, participants) if spec.owner_decides else None
        said_first: list[tuple[str, str, dict, dict | None]] = [
            (_requirement_message(rng, kind, params, False, words, tagged), kind, params, owner)
            for kind, params, revised in said if not revised]
        revisions: list[tuple[str, str, dict, dict | None]] = [
            (_requirement_message(rng, kind, params, True, words, tagged), kind, params, owner)
            for kind, params, revised in said if revised]
        if owner is not None:
            said_first.insert(0, (_requirement_message(rng, "owner", {"person_name": owner["name"]}, False, words),
                                  "owner", {"person_name": owner["name"]}, None))
            revisions += _decoy_revisions(config, rng, world, [p for p in participants if p is not owner],
                                          requirements)
        # the first requirements open the discussion; constraints mix in; revisions come last
        mixed = said_first[3:] + messages
        rng.shuffle(mixed)
        messages = said_first[:3] + mixed + revisions
    return ThreadPlan(draft.k, instance, project, targets, messages, authors, clock, rng.getstate())


def write_threads(config: WorldConfig, plan: ThreadPlan) -> Candidate:
    """The planned messages written into threads, with chatter around them: ids, authors, times."""
    rng = random.Random()
    rng.setstate(plan.rng_state)
    threads: list[dict] = []
    project = plan.project
    writer = ThreadWriter(project["project_id"], project["name"], rng, plan.authors, plan.clock, threads,
                          chatter_rng=seeded_rng(config, "chatter", plan.k),
                          id_key=id_key(config, "thread", project["project_id"]), words=wording_for(config))
    thread_count = between(rng, config.noise.get("threads_per_project", [1, 1]))
    for _ in range(thread_count):
        writer.new_thread()
    chatter_range = config.noise["chatter_per_thread"]
    first_said: dict[str, dict] = {}   # a requirement said again (a revision) follows it in its thread
    for index, (text, kind, params, author) in enumerate(plan.messages):
        if level_spec(config.level).request_in_threads:
            thread = first_said.get(kind) or threads[index % thread_count]
            if kind in prose.REQUIREMENT_TEXT:
                first_said.setdefault(kind, thread)
        else:
            thread = prose.pick(rng, threads)
        writer.chatter(thread, (0, max(1, chatter_range[1] // 3)))
        writer.say(thread, text, [(kind, params)], author=author)
    for thread in threads:
        writer.chatter(thread, (chatter_range[0] // 2, chatter_range[1] // 2))
    writer.fit_before(dt.datetime.fromisoformat(plan.instance["now"]))
    return Candidate(plan.k, plan.instance, project, [t for t in threads if t["messages"]], plan.targets)


def booking_index(world: dict) -> Callable[[str, dt.datetime, dt.datetime], bool]:
    """is_booked(room_id, start, end): does any booking of the room overlap [start, end)?"""
    by_room_day: dict[tuple[str, dt.date], list[tuple[dt.datetime, dt.datetime]]] = {}
    for b in world.get("room_bookings", []):
        start, end = dt.datetime.fromisoformat(b["start"]), dt.datetime.fromisoformat(b["end"])
        by_room_day.setdefault((b["room_id"], start.date()), []).append((start, end))

    def is_booked(room_id: str, start: dt.datetime, end: dt.datetime) -> bool:
        days = (start.date() - dt.timedelta(days=1), start.date())
        return any(b_start < end and start < b_end
                   for day in days for b_start, b_end in by_room_day.get((room_id, day), ()))
    return is_booked
