"""The generator of a level's fixed world: a world config and a seed in, the world dict of
docs/dataset.md describes (people, calendars, policies, the handbook, noise projects, rooms).

    world = generate_world(load_world_config(world_config_path(3)))

`candidates` makes the instances on top of it. Every random choice comes from a generator
seeded by (seed, level, purpose), so a world depends only on its config.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import level4, prose
from ..levels import level_spec
from ..timestamps import timestamp_text
from .config import WorldConfig
from .ids import id_key, opaque_id
from .handbook import rule_paragraph
from .policies import draw_policies, working_week
from .tags import render_tag
from .wording import PUBLIC, Wording, wording_for
from .worktime import at_work_index, spread_before, work_index


# Noise projects take indices from here up, candidate projects below (their candidate index), so
# both draw ids from one permutation and cannot be told apart by id.
NOISE_PROJECT_BASE = 1 << 23


def seeded_rng(config: WorldConfig, *parts: object) -> random.Random:
    return random.Random("/".join(str(p) for p in (config.seed, config.level, *parts)))


def between(rng: random.Random, bounds) -> int:
    low, high = bounds
    return rng.randint(low, high)


def clock_at(day: dt.date, hhmm: str) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.fromisoformat(hhmm))


def horizon(config: WorldConfig) -> list[dt.date]:
    return [config.start_date + dt.timedelta(days=i) for i in range(config.days)]


def _people(config: WorldConfig, rng: random.Random) -> list[dict]:
    words = wording_for(config)
    first_pool = "shared_first_names" if level_spec(config.level).people_by_name else "first_names"
    keys: list[str] = []     # the public names at the same draws: a name is drawn again as there
    names: list[str] = []
    while len(names) < config.people:
        (first_key, first), (last_key, last) = words.keyed(rng, first_pool), words.keyed(rng, "last_names")
        if f"{first_key} {last_key}" not in keys:
            keys.append(f"{first_key} {last_key}")
            names.append(f"{first} {last}")
    return [
        {
            "person_id": f"p-{opaque_id(id_key(config, 'person'), i)}",
            "name": name,
            "email": name.lower().replace(" ", ".") + "@example.com",
            "team": words.pick(rng, "teams"),
            "title": words.pick(rng, "titles"),
        }
        for i, name in enumerate(names)
    ]


def _event_start(rng: random.Random, day: dt.date, cal: dict, minutes: int) -> dt.datetime:
    earliest = clock_at(day, cal["day_start"])
    span = int((clock_at(day, cal["day_end"]) - earliest).total_seconds() // 60) - minutes
    if rng.random() < cal["on_grid_share"]:
        offset = 15 * rng.randint(0, max(span, 0) // 15)
    else:
        offset = rng.randint(0, max(span, 0))
    return earliest + dt.timedelta(minutes=offset)


def _events(config: WorldConfig, rng: random.Random, people: list[dict], week: set[int]) -> list[dict]:
    words = wording_for(config)
    cal = config.calendar
    statuses = list(cal["status_weights"])
    weights = [cal["status_weights"][s] for s in statuses]
    events: list[dict] = []
    key = id_key(config, "event")
    for person in people:
        for day in horizon(config):
            if day.weekday() in week:
                count = between(rng, cal["events_per_weekday"])
            else:
                count = int(rng.random() < cal["weekend_event_chance"])
            day_events = []
            for _ in range(count):
                minutes = prose.pick(rng, cal["durations"])
                start = _event_start(rng, day, cal, minutes)
                # ordered by the public title as in a public build, so ids do not depend on the wording
                day_events.append((start, minutes, rng.choices(statuses, weights)[0],
                                   *words.keyed(rng, "event_titles")))
            for start, minutes, status, _, title in sorted(day_events):
                events.append({
                    "event_id": f"ev-{opaque_id(key, len(events))}",
                    "person_id": person["person_id"],
                    "start": timestamp_text(start),
                    "end": timestamp_text(start + dt.timedelta(minutes=minutes)),
                    "status": status,
                    "title": title,
                })
    return events


def _policy_docs(config: WorldConfig, rng: random.Random, policies: list[dict]) -> list[dict]:
    """A handbook and an addendum; each covers several policies, so most of a doc is noise."""
    halves = (policies[: (len(policies) + 1) // 2], policies[(len(policies) + 1) // 2:])
    words = wording_for(config)
    titles = (words.fixed("handbook_titles", 0), words.fixed("handbook_titles", 1))
    filler_range = config.noise.get("handbook_filler_paragraphs", [1, 2])
    docs = []
    for number, (title, covered) in enumerate(zip(titles, halves), start=1):
        parts = [f"# {title}", words.pick(rng, "handbook_filler")]
        for pol in covered:
            parts.append(f"## Policy {pol['policy_id']}: {pol['name']}")
            parts.append(words.fixed("handbook_section").format(policy_id=pol["policy_id"]))
            paragraphs = [rule_paragraph(rng, pol["policy_id"], rule, words, level_spec(config.level).tagged) for rule in pol["rules"]]
            paragraphs += words.sample(rng, "handbook_filler", between(rng, filler_range))
            rng.shuffle(paragraphs)
            parts.extend(paragraphs)
        parts.append(words.fixed("handbook_closing"))
        parts.extend(words.sample(rng, "handbook_filler", between(rng, filler_range)))
        docs.append({"doc_id": f"doc-{number}", "title": title, "text": "\n\n".join(parts)})
    return docs


def _rooms(config: WorldConfig, rng: random.Random) -> tuple[list[dict], list[dict]]:
    spec = config.rooms
    rooms: list[dict] = []
    used = set()
    while len(rooms) < spec["count"]:
        building = prose.pick(rng, spec["buildings"])
        floor = between(rng, spec["floors"])
        room_id = f"{building[0]}-{floor}{rng.randint(1, 40):02d}"
        if room_id in used:
            continue
        used.add(room_id)
        rooms.append({
            "room_id": room_id,
            "name": f"{building} {floor}.{room_id[-2:]} ({wording_for(config).pick(rng, 'project_words')})",
            "building": building,
            "floor": floor,
            "capacity": between(rng, spec["capacity"]),
            "features": sorted(rng.sample(spec["features"], between(rng, spec["features_per_room"]))),
        })
    rooms.sort(key=lambda r: r["room_id"])
    bookings = []
    for room in rooms:
        for day in horizon(config):
            if day.weekday() >= 5:
                continue
            starts = []
            for _ in range(between(rng, spec["bookings_per_weekday"])):
                minutes = prose.pick(rng, spec["booking_durations"])
                starts.append((_event_start(rng, day, config.calendar, minutes), minutes))
            for start, minutes in sorted(starts):
                bookings.append({"room_id": room["room_id"], "start": timestamp_text(start),
                                 "end": timestamp_text(start + dt.timedelta(minutes=minutes))})
    return rooms, bookings


@dataclass
class ThreadWriter:
    """Writes the threads of one project: ids, authors and increasing timestamps. Chatter draws
    from its own generator, so what else is said does not depend on it."""
    project_id: str
    project_name: str
    rng: random.Random
    authors: list[dict]
    clock: dt.datetime
    threads: list[dict]
    chatter_rng: random.Random
    id_key: str   # id_key(config, "thread", project_id): thread and message ids are opaque
    words: Wording = PUBLIC
    next_message: int = 0
    next_thread: int = 0
    said: set[str] = field(default_factory=set)

    def new_thread(self) -> dict:
        slug = self.project_name.split()[0].lower()
        thread = {
            "thread_id": f"{self.project_id}-t{opaque_id(self.id_key + '/thread', self.next_thread, 8)}",
            "project_id": self.project_id,
            "channel": f"#{slug}-{self.words.pick(self.rng, 'channel_suffixes')}",
            "title": f"{self.project_name}: {self.words.pick(self.rng, 'topics')}",
            "messages": [],
        }
        self.threads.append(thread)
        self.next_thread += 1
        return thread

    def say(self, thread: dict, text: str, tags: Sequence[tuple[str, dict]] = (),
            rng: random.Random | None = None, author: dict | None = None) -> None:
        """Add a message some working minutes after the last one, by `author` or by one of the
        authors the message is not about (nobody announces their own absence)."""
        rng = rng or self.rng
        if author is None:
            about = {v for _, params in tags for k, v in params.items() if k in ("person_id", "person_name")}
            author = prose.pick(rng, [a for a in self.authors if not about & {a["person_id"], a["name"]}])
        self.clock = at_work_index(work_index(self.clock) + rng.randint(3, 400))
        thread["messages"].append({
            "message_id": f"{self.project_id}-m{opaque_id(self.id_key + '/message', self.next_message, 12)}",
            "author_id": author["person_id"],
            "ts": timestamp_text(self.clock),
            "text": text,
            "tags": [{"type": kind, "params": params} for kind, params in tags],
        })
        self.said.add(text)
        self.next_message += 1

    def fit_before(self, limit: dt.datetime) -> None:
        """Squeeze the messages' times into the working minutes before `limit`, keeping their
        order, so that nothing is said after the instance's "now" and no two messages share a
        minute (the order said stays the order read)."""
        messages = sorted((m for t in self.threads for m in t["messages"]), key=lambda m: m["ts"])
        if not messages:
            return
        indices = spread_before([work_index(dt.datetime.fromisoformat(m["ts"])) for m in messages], work_index(limit))
        for m, index in zip(messages, indices):
            m["ts"] = timestamp_text(at_work_index(index))

    def chatter(self, thread: dict, bounds: tuple[int, int]) -> None:
        """Between bounds[0] and bounds[1] ordinary messages: none addresses its own author (by
        first name) or repeats a message of the project."""
        rng = self.chatter_rng
        for _ in range(between(rng, bounds)):
            author = prose.pick(rng, self.authors)
            first_name = author["name"].split()[0]
            names = [a["name"].split()[0] for a in self.authors if a["name"].split()[0] != first_name] or ["all"]
            for _ in range(50):
                key, text = self.words.chatter(rng, names)   # the public twin decides, as in a public build
                if key not in self.said:
                    break
            else:
                continue
            self.say(thread, text, rng=rng, author=author)
            self.said.add(key)


def constraint_tag_message(rng: random.Random, kind: str, params: dict, words: Wording, name: str = "",
                           tagged: bool = True) -> str:
    """The message saying a deadline, ban or ooo tag: its prose with the tag (levels 2-3), or the
    prose alone (level 4, `tagged` false)."""
    text = _fill(rng, kind, params, name, render_tag(kind, params) if tagged else "", words)
    return text if tagged else prose.untagged(text)


def _fill(rng: random.Random, kind: str, params: dict, name: str, tag: str, words: Wording) -> str:
    family = kind if tag else f"{kind}/l4"
    if kind == "ban":
        start, end = dt.datetime.fromisoformat(params["start"]), dt.datetime.fromisoformat(params["end"])
        return words.pick(rng, family).format(
            reason=words.pick(rng, "ban_reasons"), day=prose.human_day(start.date()),
            start=prose.human_time(start), end=prose.human_time(end), tag=tag)
    if kind == "ooo":
        start = dt.datetime.fromisoformat(params["start"])
        end = dt.datetime.fromisoformat(params["end"])
        when = (prose.human_day(start.date()) if end - start >= dt.timedelta(hours=20) else
                f"{prose.human_day(start.date())} {prose.human_time(start)}–{prose.human_time(end)}")
        return words.pick(rng, family).format(
            name=name, when=when, reason=words.pick(rng, "ooo_reasons"), tag=tag)
    end_by = dt.datetime.fromisoformat(params["end_by"])
    return words.pick(rng, family).format(
        end_by=f"{prose.human_day(end_by.date())} {prose.human_time(end_by)}", tag=tag)


def random_range(rng: random.Random, day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    start = clock_at(day, "08:00") + dt.timedelta(minutes=rng.choice((0, 5, 10, 15, 20, 30, 45)) + 15 * rng.randint(0, 24))
    return start, start + dt.timedelta(minutes=rng.choice((45, 60, 90, 120, 150, 180, 240)))


def _noise_projects(config: WorldConfig, rng: random.Random, people: list[dict]) -> tuple[list[dict], list[dict]]:
    """Projects no instance asks about; their threads carry tags that must not be applied."""
    words = wording_for(config)
    projects: list[dict] = []
    threads: list[dict] = []
    days = horizon(config)
    for i in range(config.noise.get("noise_projects", 0)):
        project_id = f"PRJ-{opaque_id(id_key(config, 'project'), NOISE_PROJECT_BASE + i)}"
        name = words.project_name(rng)
        projects.append({"project_id": project_id, "name": name})
        writer = ThreadWriter(project_id, name, rng, rng.sample(people, 4),
                              clock_at(days[0], "09:00"), threads, chatter_rng=rng,
                              id_key=id_key(config, "thread", project_id), words=words)
        for _ in range(between(rng, config.noise.get("threads_per_project", [1, 1]))):
            thread = writer.new_thread()
            writer.chatter(thread, config.noise["chatter_per_thread"])
            start, end = random_range(rng, prose.pick(rng, days))
            ban = {"start": timestamp_text(start), "end": timestamp_text(end)}
            writer.say(thread, constraint_tag_message(rng, "ban", ban, words, tagged=level_spec(config.level).tagged), [("ban", ban)])
            writer.chatter(thread, (2, 2))
    return projects, threads


def generate_world(config: WorldConfig) -> dict:
    rng = seeded_rng(config, "world")
    people = _people(config, rng)
    policies = draw_policies(config)
    world: dict[str, Any] = {
        "world_id": config.world_id,
        "level": config.level,
        "seed": config.seed,
        "timezone": config.timezone,
        "people": people,
        "events": _events(config, rng, people, working_week(policies)),
        "policies": policies,
    }
    spec = level_spec(config.level)
    if spec.policy_docs:
        world["policy_docs"] = _policy_docs(config, rng, world["policies"])
    if spec.threads:
        world["projects"], world["threads"] = _noise_projects(config, rng, people)
    if spec.rooms:
        world["rooms"], world["room_bookings"] = _rooms(config, rng)
    if spec.zones_and_series:
        hours = level4.person_hours(config, people)
        for person in people:
            person.update(hours[person["person_id"]])
        world["series"] = level4.event_series(config, people, horizon(config))
        level4.to_world_clock(config, people, world["events"], world["series"])
    return world
