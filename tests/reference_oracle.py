"""A plain-Python oracle written from docs/semantics.md alone, to check the SQL oracle.

    answer = solve(world, instance)
    answer.top                     # [(start, room_id or None), ...], the first N
    answer.n_feasible
    necessity(world, instance)     # {"calendar": True, "policy": True, ...}

Deliberately naive: every 15-minute start of every day in the window is checked against every
constraint with `datetime` arithmetic and loops, nothing indexed or precomputed. It reads the
dataset dicts (docs/dataset.md) and uses the instance's resolved `requirements`; level-3
requirement tags are not re-resolved here (see `resolve_level3_requirements` for that).

Level 4 (the additions in docs/semantics.md): a series' occurrences are expanded here
from its first interval and exceptions; a participant's working hours are checked on their own
wall clock with `zoneinfo` (a conversion per candidate, not a stored offset); only the project
owner's requirement tags count.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass, field

GRID = dt.timedelta(minutes=15)
BLOCKING = ("confirmed", "tentative")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
LEVEL_SOURCES = {1: ("calendar", "policy"), 2: ("calendar", "policy", "threads"),
                 3: ("calendar", "policy", "threads", "rooms"), 4: ("calendar", "policy", "threads", "rooms")}
CONSTRAINT_TAGS = ("deadline", "ban", "ooo")


def when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def clock(day: dt.date, hhmm: str) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.fromisoformat(hhmm))


def overlaps(a_start, a_end, b_start, b_end) -> bool:
    """Half-open intervals: touching is not overlapping."""
    return a_start < b_end and b_start < a_end


@dataclass(frozen=True)
class Scenario:
    """Which sources are dropped (the necessity rule)."""
    calendar: bool = True
    policy: bool = True
    threads: bool = True
    rooms: bool = True

    @classmethod
    def without(cls, source: str | None) -> "Scenario":
        return cls(**({source: False} if source else {}))


@dataclass
class Answer:
    candidates: list[tuple[dt.datetime, str | None]]   # every feasible start, ranked
    n: int
    top: list[tuple[dt.datetime, str | None]] = field(init=False)

    def __post_init__(self):
        self.top = self.candidates[: self.n]

    @property
    def n_feasible(self) -> int:
        return len(self.candidates)


def window_starts(instance: dict):
    day = dt.date.fromisoformat(instance["window"]["start"])
    last = dt.date.fromisoformat(instance["window"]["end"])
    while day <= last:
        start = dt.datetime.combine(day, dt.time(0, 0))
        while start.date() == day:
            yield start
            start += GRID
        day += dt.timedelta(days=1)


def project_tags(world: dict, instance: dict) -> list[tuple[dict, dict]]:
    """(message, tag) for every tag in a thread of the instance's project."""
    project_id = instance.get("project_id")
    if project_id is None:
        return []
    return [(m, tag) for t in world.get("threads", []) if t["project_id"] == project_id
            for m in t["messages"] for tag in m["tags"]]


def ooo_person_ids(world: dict, params: dict) -> set[str]:
    if "person_id" in params:
        return {params["person_id"]}
    return {p["person_id"] for p in world["people"] if p["name"] == params.get("person_name")}


def policy_rules(world: dict, policy_id: str) -> list[dict]:
    for policy in world["policies"]:
        if policy["policy_id"] == policy_id:
            return policy["rules"]
    raise KeyError(policy_id)


def is_feasible_start(world, instance, scenario, start, end, events, rules, tags) -> bool:
    req = instance["requirements"]
    participants = set(req["participants"])
    day = start.date()
    nearby_days = (day - dt.timedelta(days=1), day, day + dt.timedelta(days=1))
    if start < when(instance["now"]):   # the frame: nothing starts before the request was sent
        return False
    for rule in rules:
        kind, p = rule["type"], rule["params"]
        if kind == "working_hours":
            if WEEKDAYS[day.weekday()] not in p["days"]:
                return False
            if not (clock(day, p["start"]) <= start and end <= clock(day, p["end"])):
                return False
        elif not scenario.policy:
            continue
        elif kind == "blackout":
            if any(overlaps(start, end, clock(d, p["start"]), clock(d, p["end"])) for d in nearby_days):
                return False
        elif kind == "buffer":
            margin = dt.timedelta(minutes=p["minutes"])
            if any(overlaps(start - margin, end + margin, e_start, e_end) for e_start, e_end in events.values_flat()):
                return False
        elif kind == "no_meeting_weekdays":
            if WEEKDAYS[day.weekday()] in p["weekdays"]:
                return False
        elif kind == "min_notice":
            if start < when(instance["now"]) + dt.timedelta(hours=p["hours"]):
                return False
        elif kind == "max_meetings_per_day":
            for person in participants:
                if sum(1 for e_start, _ in events.of(person) if e_start.date() == day) >= p["count"]:
                    return False
        elif kind == "max_consecutive_minutes":
            if not scenario.calendar:   # computed from events: it goes with the calendar
                continue
            for person in participants:
                if run_length(start, end, events.of(person)) > dt.timedelta(minutes=p["minutes"]):
                    return False
        else:
            raise ValueError(f"unknown rule type {kind}")
    if any(overlaps(start, end, e_start, e_end) for e_start, e_end in events.values_flat()):
        return False
    if scenario.calendar and instance["level"] == 4:
        people = {p["person_id"]: p for p in world["people"]}
        for person in participants:
            if not in_own_hours(world["timezone"], people[person], start, end):
                return False
    if scenario.threads:
        for _, tag in tags:
            kind, p = tag["type"], tag["params"]
            if kind == "deadline" and end > when(p["end_by"]):
                return False
            if kind == "ban" and overlaps(start, end, when(p["start"]), when(p["end"])):
                return False
            if (kind == "ooo" and ooo_person_ids(world, p) & participants
                    and overlaps(start, end, when(p["start"]), when(p["end"]))):
                return False
    return True


def in_own_hours(zone: str, person: dict, start: dt.datetime, end: dt.datetime) -> bool:
    """Level 4: the meeting, read on the person's own wall clock, lies in their working hours."""
    here, there = zoneinfo.ZoneInfo(zone), zoneinfo.ZoneInfo(person["timezone"])
    local_start = start.replace(tzinfo=here).astimezone(there).replace(tzinfo=None)
    local_end = end.replace(tzinfo=here).astimezone(there).replace(tzinfo=None)
    hours = person["working_hours"]
    return clock(local_start.date(), hours["start"]) <= local_start and local_end <= clock(local_start.date(), hours["end"])


def series_events(world: dict) -> list[dict]:
    """Level 4: every occurrence of every series as an event: occurrence k is k * every_days days
    after the first; an exception cancels it or gives it another interval."""
    found = []
    for s in world.get("series", []):
        for k in range(s["occurrences"]):
            shift = dt.timedelta(days=k * s["every_days"])
            start, end, status = when(s["start"]) + shift, when(s["end"]) + shift, s["status"]
            for x in s["exceptions"]:
                if when(x["original_start"]) == start:
                    if x["action"] == "cancelled":
                        status = "cancelled"
                    else:
                        start, end = when(x["start"]), when(x["end"])
            found.append({"person_id": s["person_id"], "start": start.isoformat(), "end": end.isoformat(),
                          "status": status})
    return found


def run_length(start: dt.datetime, end: dt.datetime, spans: list) -> dt.timedelta:
    """How long the run of back-to-back intervals through [start, end) lasts: grow it by every
    interval that overlaps or touches it until nothing more joins."""
    low, high = start, end
    grown = True
    while grown:
        grown = False
        for s_start, s_end in spans:
            if s_start <= high and low <= s_end and (s_start < low or s_end > high):
                low, high = min(low, s_start), max(high, s_end)
                grown = True
    return high - low


class Events:
    """Participants' blocking events (none at all when the calendar is dropped)."""

    def __init__(self, world: dict, participants: list[str], keep: bool):
        self.by_person = {person: [] for person in participants}
        if keep:
            for e in world["events"] + series_events(world):
                if e["person_id"] in self.by_person and e["status"] in BLOCKING:
                    self.by_person[e["person_id"]].append((when(e["start"]), when(e["end"])))

    def of(self, person):
        return self.by_person[person]

    def values_flat(self):
        return [span for spans in self.by_person.values() for span in spans]


def bookings_by_room(world: dict) -> dict[str, list[tuple[dt.datetime, dt.datetime]]]:
    by_room: dict[str, list] = {}
    for b in world.get("room_bookings", []):
        by_room.setdefault(b["room_id"], []).append((when(b["start"]), when(b["end"])))
    return by_room


def choose_room(world: dict, instance: dict, start: dt.datetime, end: dt.datetime,
                bookings: dict | None = None) -> str | None:
    """The fitting room for [start, end), or None when no room fits."""
    bookings = bookings_by_room(world) if bookings is None else bookings
    req = instance["requirements"]
    need = req.get("room") or {}
    least_capacity = max(len(req["participants"]), need.get("min_capacity") or 0)
    fitting = []
    for room in world.get("rooms", []):
        if room["capacity"] < least_capacity:
            continue
        if not set(need.get("features") or []) <= set(room["features"]):
            continue
        if need.get("building") is not None and room["building"] != need["building"]:
            continue
        if any(overlaps(start, end, b_start, b_end) for b_start, b_end in bookings.get(room["room_id"], [])):
            continue
        fitting.append(room)
    if not fitting:
        return None
    if (req.get("tie_break") or "room_id") == "capacity":
        return min(fitting, key=lambda r: (r["capacity"], r["room_id"]))["room_id"]
    return min(fitting, key=lambda r: r["room_id"])["room_id"]


def solve(world: dict, instance: dict, scenario: Scenario = Scenario()) -> Answer:
    req = instance["requirements"]
    duration = dt.timedelta(minutes=req["duration_min"])
    rules = policy_rules(world, req["policy_id"])
    events = Events(world, req["participants"], scenario.calendar)
    tags = project_tags(world, instance)
    uses_rooms = instance["level"] >= 3 and scenario.rooms
    bookings = bookings_by_room(world)
    candidates = []
    for start in window_starts(instance):
        end = start + duration
        if not is_feasible_start(world, instance, scenario, start, end, events, rules, tags):
            continue
        room_id = None
        if uses_rooms:
            room_id = choose_room(world, instance, start, end, bookings)
            if room_id is None:
                continue
        candidates.append((start, room_id))
    return Answer(candidates, req["n"])


def necessity(world: dict, instance: dict) -> dict[str, bool]:
    """For each source the instance's level requires: does dropping it change the answer?"""
    full = solve(world, instance).top
    needed = {}
    for source in LEVEL_SOURCES[instance["level"]]:
        reduced = solve(world, instance, Scenario.without(source)).top
        if source == "rooms":
            needed[source] = [s for s, _ in reduced] != [s for s, _ in full]
        else:
            needed[source] = reduced != full
    return needed


def resolve_level3_requirements(world: dict, instance: dict) -> dict:
    """Level-3 requirements from the project's thread tags: the latest message wins per kind
    (ties: greater message_id); names through the directory; tie_break defaults to room_id. At
    level 4 only the messages of the owner (named by the latest owner tag) count."""
    said = project_tags(world, instance)
    owners = sorted(((when(m["ts"]), m["message_id"]), tag["params"]["person_name"])
                    for m, tag in said if tag["type"] == "owner")
    owner_id = {p["name"]: p["person_id"] for p in world["people"]}.get(owners[-1][1]) if owners else None
    latest: dict[str, tuple[tuple[dt.datetime, str], dict]] = {}
    for message, tag in said:
        if tag["type"] in CONSTRAINT_TAGS or tag["type"] == "owner":
            continue
        if instance["level"] == 4 and message["author_id"] != owner_id:
            continue
        key = (when(message["ts"]), message["message_id"])
        if tag["type"] not in latest or key > latest[tag["type"]][0]:
            latest[tag["type"]] = (key, tag["params"])
    value = {kind: params for kind, (_, params) in latest.items()}
    by_name = {p["name"]: p["person_id"] for p in world["people"]}
    room = value.get("room")
    return {
        "participants": [by_name[name] for name in value["participants"]["people"]],
        "duration_min": value["duration"]["minutes"],
        "n": value["count"]["n"],
        "policy_id": value["policy"]["policy_id"],
        "tie_break": value.get("tie_break", {}).get("rule", "room_id"),
        "room": None if room is None else {"min_capacity": room.get("min_capacity"),
                                           "features": room.get("features", []),
                                           "building": room.get("building")},
    }
