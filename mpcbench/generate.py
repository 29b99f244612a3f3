"""The generator: a world config and a seed in, dataset dicts (DESIGN.md section 5) out.

`generate_world` makes the fixed part of a level's world (people, calendars, policies, the
handbook, noise projects, rooms). `generate_candidate(config, world, k)` makes candidate
instance number k with the project and threads it needs; it depends only on (seed, level, k),
so resampling adds candidates without changing earlier ones. Which candidates are kept is
decided in SQL by the build (too few feasible starts, sources that do not matter).
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
from .config import WorldConfig
from .tags import render_tag

TIME_FORMAT = "%Y-%m-%dT%H:%M"


def ts(moment: dt.datetime) -> str:
    return moment.strftime(TIME_FORMAT)


def _rng(config: WorldConfig, *parts: object) -> random.Random:
    return random.Random("/".join(str(p) for p in (config.seed, config.level, *parts)))


def _between(rng: random.Random, bounds) -> int:
    low, high = bounds
    return rng.randint(low, high)


def _clock(day: dt.date, hhmm: str) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.fromisoformat(hhmm))


def horizon(config: WorldConfig) -> list[dt.date]:
    return [config.start_date + dt.timedelta(days=i) for i in range(config.days)]


# --- the fixed world -------------------------------------------------------------------------

def _people(config: WorldConfig, rng: random.Random) -> list[dict]:
    first_pool = prose.SHARED_FIRST_NAMES if config.level == 3 else prose.FIRST_NAMES
    names: list[str] = []
    while len(names) < config.people:
        name = f"{prose.pick(rng, first_pool)} {prose.pick(rng, prose.LAST_NAMES)}"
        if name not in names:
            names.append(name)
    return [
        {
            "person_id": f"p-{i:03d}",
            "name": name,
            "email": name.lower().replace(" ", ".") + "@example.com",
            "team": prose.pick(rng, prose.TEAMS),
            "title": prose.pick(rng, prose.TITLES),
        }
        for i, name in enumerate(names, start=1)
    ]


def _event_start(rng: random.Random, day: dt.date, cal: dict, minutes: int) -> dt.datetime:
    earliest = _clock(day, cal["day_start"])
    span = int((_clock(day, cal["day_end"]) - earliest).total_seconds() // 60) - minutes
    if rng.random() < cal["on_grid_share"]:
        offset = 15 * rng.randint(0, max(span, 0) // 15)
    else:
        offset = rng.randint(0, max(span, 0))
    return earliest + dt.timedelta(minutes=offset)


def _events(config: WorldConfig, rng: random.Random, people: list[dict]) -> list[dict]:
    cal = config.calendar
    statuses = list(cal["status_weights"])
    weights = [cal["status_weights"][s] for s in statuses]
    events = []
    for person in people:
        for day in horizon(config):
            if day.weekday() < 5:
                count = _between(rng, cal["events_per_weekday"])
            else:
                count = int(rng.random() < cal["weekend_event_chance"])
            day_events = []
            for _ in range(count):
                minutes = prose.pick(rng, cal["durations"])
                start = _event_start(rng, day, cal, minutes)
                day_events.append((start, minutes, rng.choices(statuses, weights)[0],
                                   prose.pick(rng, prose.EVENT_TITLES)))
            for start, minutes, status, title in sorted(day_events):
                events.append({
                    "event_id": f"ev-{len(events) + 1:06d}",
                    "person_id": person["person_id"],
                    "start": ts(start),
                    "end": ts(start + dt.timedelta(minutes=minutes)),
                    "status": status,
                    "title": title,
                })
    return events


def _policies(config: WorldConfig) -> list[dict]:
    return [
        {
            "policy_id": pol.policy_id,
            "name": pol.name,
            "rules": [
                {
                    "rule_id": f"{pol.policy_id}.{rule['type']}",
                    "type": rule["type"],
                    "params": {k: v for k, v in rule.items() if k != "type"},
                }
                for rule in pol.rules
            ],
        }
        for pol in config.policies
    ]


def _rule_paragraph(rng: random.Random, policy_id: str, rule: dict) -> str:
    params = rule["params"]
    words = dict(params)
    if "weekdays" in params:
        words["weekdays_text"] = ", ".join(params["weekdays"][:-1]) + (
            " and " if len(params["weekdays"]) > 1 else "") + params["weekdays"][-1]
    sentence = prose.pick(rng, prose.RULE_PROSE[rule["type"]]).format(**words)
    tag = render_tag(rule["type"], {"policy": policy_id, "rule": rule["rule_id"], **params})
    return f"{sentence} {tag}"


def _policy_docs(config: WorldConfig, rng: random.Random, policies: list[dict]) -> list[dict]:
    """A handbook and an addendum; each covers several policies, so most of a doc is noise."""
    halves = (policies[: (len(policies) + 1) // 2], policies[(len(policies) + 1) // 2:])
    titles = ("Meeting and Calendar Handbook (2026 edition)", "Regional Teams Addendum")
    filler_range = config.noise.get("handbook_filler_paragraphs", [1, 2])
    docs = []
    for number, (title, covered) in enumerate(zip(titles, halves), start=1):
        parts = [f"# {title}", prose.pick(rng, prose.HANDBOOK_FILLER)]
        for pol in covered:
            parts.append(f"## Policy {pol['policy_id']}: {pol['name']}")
            parts.append(f"This section applies only to meetings run under policy {pol['policy_id']}.")
            paragraphs = [_rule_paragraph(rng, pol["policy_id"], rule) for rule in pol["rules"]]
            paragraphs += rng.sample(prose.HANDBOOK_FILLER, _between(rng, filler_range))
            rng.shuffle(paragraphs)
            parts.extend(paragraphs)
        parts.append("## General notes")
        parts.extend(rng.sample(prose.HANDBOOK_FILLER, _between(rng, filler_range)))
        docs.append({"doc_id": f"doc-{number}", "title": title, "text": "\n\n".join(parts)})
    return docs


def _rooms(config: WorldConfig, rng: random.Random) -> tuple[list[dict], list[dict]]:
    spec = config.rooms
    rooms = []
    used = set()
    while len(rooms) < spec["count"]:
        building = prose.pick(rng, spec["buildings"])
        floor = _between(rng, spec["floors"])
        room_id = f"{building[0]}-{floor}{rng.randint(1, 40):02d}"
        if room_id in used:
            continue
        used.add(room_id)
        rooms.append({
            "room_id": room_id,
            "name": f"{building} {floor}.{room_id[-2:]} ({prose.pick(rng, prose.PROJECT_WORDS)})",
            "building": building,
            "floor": floor,
            "capacity": _between(rng, spec["capacity"]),
            "features": sorted(rng.sample(spec["features"], _between(rng, spec["features_per_room"]))),
        })
    rooms.sort(key=lambda r: r["room_id"])
    bookings = []
    for room in rooms:
        for day in horizon(config):
            if day.weekday() >= 5:
                continue
            starts = []
            for _ in range(_between(rng, spec["bookings_per_weekday"])):
                minutes = prose.pick(rng, spec["booking_durations"])
                starts.append((_event_start(rng, day, config.calendar, minutes), minutes))
            for start, minutes in sorted(starts):
                bookings.append({"room_id": room["room_id"], "start": ts(start),
                                 "end": ts(start + dt.timedelta(minutes=minutes))})
    return rooms, bookings


@dataclass
class ThreadWriter:
    """Writes the threads of one project: ids, authors and increasing timestamps. Chatter draws
    from its own generator (None: no chatter), so the tagged messages are the same with or
    without it: the build judges candidates without chatter and adds it to the kept ones."""
    project_id: str
    project_name: str
    rng: random.Random
    authors: list[dict]
    clock: dt.datetime
    threads: list[dict]
    chatter_rng: random.Random | None
    next_message: int = 1

    def new_thread(self) -> dict:
        slug = self.project_name.split()[0].lower()
        thread = {
            "thread_id": f"{self.project_id}-t{len(self.threads) + 1}",
            "project_id": self.project_id,
            "channel": f"#{slug}-{prose.pick(self.rng, prose.CHANNEL_SUFFIXES)}",
            "title": f"{self.project_name}: {prose.pick(self.rng, prose.TOPICS)}",
            "messages": [],
        }
        self.threads.append(thread)
        return thread

    def say(self, thread: dict, text: str, tags: list[tuple[str, dict]] = (),
            rng: random.Random | None = None) -> None:
        rng = rng or self.rng
        self.clock += dt.timedelta(minutes=rng.randint(3, 400))
        thread["messages"].append({
            "message_id": f"{self.project_id}-m{self.next_message:03d}",
            "author_id": prose.pick(rng, self.authors)["person_id"],
            "ts": ts(self.clock),
            "text": text,
            "tags": [{"type": kind, "params": params} for kind, params in tags],
        })
        self.next_message += 1

    def fit_before(self, limit: dt.datetime) -> None:
        """Squeeze the messages' times into [first, limit) keeping their order, so that nothing
        is said after the instance's "now" (equal times keep message_id order)."""
        messages = [m for t in self.threads for m in t["messages"]]
        if not messages or max(m["ts"] for m in messages) < ts(limit):
            return
        first = dt.datetime.fromisoformat(min(m["ts"] for m in messages))
        last = dt.datetime.fromisoformat(max(m["ts"] for m in messages))
        scale = (limit - dt.timedelta(minutes=1) - first) / max(last - first, dt.timedelta(minutes=1))
        for m in messages:
            moment = first + (dt.datetime.fromisoformat(m["ts"]) - first) * scale
            m["ts"] = ts(moment.replace(second=0, microsecond=0))

    def chatter(self, thread: dict, bounds: tuple[int, int]) -> None:
        """Between bounds[0] and bounds[1] ordinary messages."""
        if self.chatter_rng is None:
            return
        names = [a["name"].split()[0] for a in self.authors]
        for _ in range(_between(self.chatter_rng, bounds)):
            self.say(thread, prose.chatter(self.chatter_rng, names), rng=self.chatter_rng)


def _constraint_tag_message(rng: random.Random, kind: str, params: dict, name: str = "") -> str:
    tag = render_tag(kind, params)
    if kind == "ban":
        start, end = dt.datetime.fromisoformat(params["start"]), dt.datetime.fromisoformat(params["end"])
        return prose.pick(rng, prose.BAN_TEXT).format(
            reason=prose.pick(rng, prose.BAN_REASONS), day=prose.human_day(start.date()),
            start=prose.human_time(start), end=prose.human_time(end), tag=tag)
    if kind == "ooo":
        start = dt.datetime.fromisoformat(params["start"])
        end = dt.datetime.fromisoformat(params["end"])
        when = (prose.human_day(start.date()) if end - start >= dt.timedelta(hours=20) else
                f"{prose.human_day(start.date())} {prose.human_time(start)}–{prose.human_time(end)}")
        return prose.pick(rng, prose.OOO_TEXT).format(
            name=name, when=when, reason=prose.pick(rng, prose.OOO_REASONS), tag=tag)
    end_by = dt.datetime.fromisoformat(params["end_by"])
    return prose.pick(rng, prose.DEADLINE_TEXT).format(
        end_by=f"{prose.human_day(end_by.date())} {prose.human_time(end_by)}", tag=tag)


def _random_range(rng: random.Random, day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    start = _clock(day, "08:00") + dt.timedelta(minutes=rng.choice((0, 5, 10, 15, 20, 30, 45)) + 15 * rng.randint(0, 24))
    return start, start + dt.timedelta(minutes=rng.choice((45, 60, 90, 120, 150, 180, 240)))


def _noise_projects(config: WorldConfig, rng: random.Random, people: list[dict]) -> tuple[list[dict], list[dict]]:
    """Projects no instance asks about; their threads carry tags that must not be applied."""
    projects, threads = [], []
    days = horizon(config)
    for i in range(config.noise.get("noise_projects", 0)):
        project_id = f"PRJ-N{i + 1:02d}"
        name = f"{prose.PROJECT_WORDS[(i * 7) % len(prose.PROJECT_WORDS)]} {prose.pick(rng, prose.PROJECT_KINDS)} (archive)"
        projects.append({"project_id": project_id, "name": name})
        writer = ThreadWriter(project_id, name, rng, rng.sample(people, 4),
                              _clock(days[0], "09:00"), threads, chatter_rng=rng)
        for _ in range(_between(rng, config.noise.get("threads_per_project", [1, 1]))):
            thread = writer.new_thread()
            writer.chatter(thread, config.noise["chatter_per_thread"])
            start, end = _random_range(rng, prose.pick(rng, days))
            ban = {"start": ts(start), "end": ts(end)}
            writer.say(thread, _constraint_tag_message(rng, "ban", ban), [("ban", ban)])
            writer.chatter(thread, (2, 2))
    return projects, threads


def generate_world(config: WorldConfig) -> dict:
    rng = _rng(config, "world")
    people = _people(config, rng)
    world = {
        "world_id": config.world_id,
        "level": config.level,
        "seed": config.seed,
        "timezone": config.timezone,
        "people": people,
        "events": _events(config, rng, people),
        "policies": _policies(config),
    }
    if config.level >= 2:
        world["policy_docs"] = _policy_docs(config, rng, world["policies"])
        world["projects"], world["threads"] = _noise_projects(config, rng, people)
    if config.level == 3:
        world["rooms"], world["room_bookings"] = _rooms(config, rng)
    return world


# --- candidate instances ---------------------------------------------------------------------

@dataclass
class Candidate:
    """One candidate instance with its own project and threads. A draft has no threads yet."""
    k: int
    instance: dict
    project: dict | None
    threads: list[dict]
    targets: list[dt.datetime] | None = None   # what the threads were aimed at (levels 2-3)


def _window(config: WorldConfig, rng: random.Random) -> tuple[list[dt.date], dt.datetime]:
    length = _between(rng, config.instance["window_days"])
    days = horizon(config)
    starts = [d for d in days[2: len(days) - length + 1] if d.weekday() < 5]
    first = prose.pick(rng, starts)
    window = [first + dt.timedelta(days=i) for i in range(length)]
    if rng.random() < config.instance["now_inside_window_share"]:
        now = _clock(first, "07:00") + dt.timedelta(minutes=rng.randint(0, 240))
    else:
        now = _clock(first - dt.timedelta(days=rng.randint(1, 3)), "08:00") + dt.timedelta(
            minutes=rng.randint(0, 660))
    return window, now


def _participant_list(people: list[dict], level: int) -> str:
    if level == 3:
        return ", ".join(p["name"] for p in people)
    return ", ".join(f"{p['name']} ({p['person_id']})" for p in people)


def _range_around(rng: random.Random, target: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """A range, often off the grid, that covers the start of a candidate at target."""
    start = target - dt.timedelta(minutes=rng.choice((0, 5, 10, 15, 20, 30, 45, 60, 90)))
    end = target + dt.timedelta(minutes=rng.choice((5, 15, 20, 30, 45, 60, 90, 120)))
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


def _thread_constraints(rng: random.Random, level: int, window: list[dt.date],
                        participants: list[dict], bystanders: list[dict],
                        targets: list[dt.datetime]) -> list[tuple[str, dict, str]]:
    """Deadline, ban and ooo tags. Bans and absences are aimed at the given target starts (the
    answer without threads) so that the threads matter; the rest is random."""
    weekdays = [d for d in window if d.weekday() < 5] or window
    found = []
    aims = rng.sample(targets, min(len(targets), 2))
    start, end = _range_around(rng, aims[0])
    found.append(("ban", {"start": ts(start), "end": ts(end)}, ""))
    if rng.random() < 0.4:
        start, end = _random_range(rng, prose.pick(rng, weekdays))
        found.append(("ban", {"start": ts(start), "end": ts(end)}, ""))
    absent = []
    if rng.random() < 0.7:
        person = prose.pick(rng, participants)
        if rng.random() < 0.3:
            day = aims[-1].date()
            absent.append((person, _clock(day, "00:00"), _clock(day + dt.timedelta(days=1), "00:00")))
        else:
            absent.append((person, *_range_around(rng, aims[-1])))
    if rng.random() < 0.5:
        absent.append((prose.pick(rng, bystanders), *_random_range(rng, prose.pick(rng, weekdays[:3]))))
    for person, start, end in absent:
        who = {"person_name": person["name"]} if level == 3 else {"person_id": person["person_id"]}
        found.append(("ooo", {**who, "start": ts(start), "end": ts(end)}, person["name"]))
    if rng.random() < 0.5:
        day = prose.pick(rng, window[len(window) // 2:])
        found.append(("deadline", {"end_by": ts(_clock(day, prose.pick(rng, ("12:00", "15:30", "17:00", "18:00"))))}, ""))
    rng.shuffle(found)
    return found


REQUIREMENT_TEXT = {
    "participants": ("Attendees for this one: {value}. {tag}", "We need {value} in the room. {tag}"),
    "duration": ("Let's plan for {value} minutes. {tag}", "It should take about {value} minutes. {tag}"),
    "count": ("Please propose {value} options so people can pick. {tag}",
              "Give us {value} candidate slots. {tag}"),
    "policy": ("This is run under policy {value}, so its rules apply. {tag}",
               "Scheduling rules: {value}. {tag}"),
    "tie_break": ("When several rooms work, take {value}. {tag}",
                  "Room choice rule: {value}. {tag}"),
    "room": ("Room needs: {value}. {tag}", "For the room: {value}. {tag}"),
}
REVISION_TEXT = ("Update: scratch that, ", "Correction — ", "Small change after talking to the leads: ",
                 "Revising the earlier message: ")


def _room_words(params: dict) -> str:
    parts = []
    if "min_capacity" in params:
        parts.append(f"at least {params['min_capacity']} seats")
    if params.get("features"):
        parts.append("with " + " and ".join(params["features"]))
    if "building" in params:
        parts.append(f"in {params['building']}")
    return ", ".join(parts) or "anything that fits everyone"


def _requirement_message(rng: random.Random, kind: str, params: dict, revised: bool) -> str:
    value = {
        "participants": lambda: ", ".join(params["people"]),
        "duration": lambda: params["minutes"],
        "count": lambda: params["n"],
        "policy": lambda: params["policy_id"],
        "tie_break": lambda: ("the smallest room that fits" if params["rule"] == "capacity"
                              else "the room with the lowest room id"),
        "room": lambda: _room_words(params),
    }[kind]()
    text = prose.pick(rng, REQUIREMENT_TEXT[kind]).format(value=value, tag=render_tag(kind, params))
    return (prose.pick(rng, REVISION_TEXT) + text[0].lower() + text[1:]) if revised else text


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
        for capacity, features, building, booked, room in rooms:
            if not booked:
                continue
            feature_sets = [()] + [(f,) for f in room["features"]] + [
                tuple(pair) for pair in itertools.combinations(room["features"], 2)]
            for need_building in (None, building):
                for need_features in feature_sets:
                    for need_capacity in (None, capacity):
                        key = (need_capacity, need_features, need_building)
                        if key in options:
                            continue
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
                             tie_break: str, room: dict | None) -> list[list[tuple[str, dict, bool]]]:
    """The requirement tags in the order they are said; a revised kind is said twice."""
    final = [
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
                                     + [prose.pick(rng, world["people"])["name"]]},
            "duration": lambda: {"minutes": prose.pick(rng, [d for d in config.instance["durations"] if d != duration])},
            "count": lambda: {"n": n + rng.choice((-1, 1, 2))},
            "policy": lambda: {"policy_id": prose.pick(rng, [p["policy_id"] for p in world["policies"] if p["policy_id"] != policy_id])},
        }[kind]()
        position = next(i for i, item in enumerate(said) if item[0] == kind)
        said[position] = (kind, stale, False)
        said.append((kind, dict(final[position][1]), True))
    return said


def draft_candidate(config: WorldConfig, world: dict, k: int) -> Candidate:
    """Who, how long, how many, which policy and window: everything but the threads."""
    rng = _rng(config, "candidate", k)
    level = config.level
    window, now = _window(config, rng)
    participants = rng.sample(world["people"], _between(rng, config.instance["participants"]))
    duration = prose.pick(rng, config.instance["durations"])
    n = _between(rng, config.instance["n"])
    policy_id = prose.pick(rng, world["policies"])["policy_id"]
    requirements = {
        "participants": [p["person_id"] for p in participants],
        "duration_min": duration, "n": n, "policy_id": policy_id,
        "tie_break": None, "room": None,
    }
    if level == 3:
        share = config.requirements.get("capacity_tie_break_share", 0)
        requirements["tie_break"] = "capacity" if rng.random() < share else "room_id"
    instance = {
        "instance_id": f"L{level}-c{k:06d}",
        "level": level,
        "world_id": world["world_id"],
        "prompt": "",
        "now": ts(now),
        "window": {"start": window[0].isoformat(), "end": window[-1].isoformat()},
        "given": {},
        "project_id": None,
        "requirements": requirements,
    }
    if level < 3:
        instance["given"] = {key: requirements[key] for key in ("participants", "duration_min", "n", "policy_id")}
    first, last = prose.human_day(window[0]), prose.human_day(window[-1])
    sent = f"[Sent {prose.human_day(now.date())} {prose.human_time(now)}] "
    if level == 1:
        instance["prompt"] = sent + prose.pick(rng, prose.PROMPT_L1).format(
            n=n, duration=duration, people=_participant_list(participants, 1), first=first,
            last=last, policy_id=policy_id)
        return Candidate(k, instance, None, [])
    project_id = f"PRJ-{k:05d}"
    project_name = f"{prose.pick(rng, prose.PROJECT_WORDS)} {prose.pick(rng, prose.PROJECT_KINDS)}"
    instance["project_id"] = project_id
    template = prose.PROMPT_L2 if level == 2 else prose.PROMPT_L3
    instance["prompt"] = sent + prose.pick(rng, template).format(
        n=n, duration=duration, people=_participant_list(participants, level), first=first,
        last=last, policy_id=policy_id, project=f"{project_name} ({project_id})")
    return Candidate(k, instance, {"project_id": project_id, "name": project_name}, [])


def finish_candidate(config: WorldConfig, world: dict, draft: Candidate, targets: list[dt.datetime],
                     room_needs: RoomNeeds | None, with_chatter: bool = True) -> Candidate:
    """Write the draft's threads: constraint tags aimed at the first N of `targets` (the first
    feasible starts without threads and rooms), and at level 3 the requirements, some said twice
    with a revision, with room needs that no room free at one of the answer's starts meets."""
    rng = _rng(config, "threads", draft.k)
    level = config.level
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
    project = draft.project
    threads: list[dict] = []
    writer = ThreadWriter(project["project_id"], project["name"], rng, participants + rng.sample(others, 2),
                          now - dt.timedelta(days=rng.randint(4, 9), minutes=rng.randint(0, 600)), threads,
                          chatter_rng=_rng(config, "chatter", draft.k) if with_chatter else None)
    constraints = _thread_constraints(rng, level, window, participants, others, targets[:n])
    messages = [(_constraint_tag_message(rng, kind, params, name), kind, params)
                for kind, params, name in constraints]
    if level == 3:
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
        said_first = [(_requirement_message(rng, kind, params, False), kind, params)
                      for kind, params, revised in said if not revised]
        revisions = [(_requirement_message(rng, kind, params, True), kind, params)
                     for kind, params, revised in said if revised]
        # the first requirements open the discussion; constraints mix in; revisions come last
        mixed = said_first[3:] + messages
        rng.shuffle(mixed)
        messages = said_first[:3] + mixed + revisions

    thread_count = _between(rng, config.noise.get("threads_per_project", [1, 1]))
    for _ in range(thread_count):
        writer.new_thread()
    chatter_range = config.noise["chatter_per_thread"]
    for index, (text, kind, params) in enumerate(messages):
        thread = threads[index % thread_count] if level == 3 else prose.pick(rng, threads)
        writer.chatter(thread, (0, max(1, chatter_range[1] // 3)))
        writer.say(thread, text, [(kind, params)])
    for thread in threads:
        writer.chatter(thread, (chatter_range[0] // 2, chatter_range[1] // 2))
    writer.fit_before(now)
    threads = [t for t in threads if t["messages"]]
    return Candidate(draft.k, instance, project, threads, targets)


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
