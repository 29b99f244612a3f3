"""The SQL oracle against the plain-Python reference oracle (tests/reference_oracle.py):
on small random worlds of every level (hypothesis), and on a real generated build."""

from __future__ import annotations

import datetime as dt
import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import reference_oracle as ref
from evalkit import shared_build
from oracle_harness import (clear, fresh_warehouse, keys, load, sql_answers, sql_candidates,
                            sql_n_feasible, sql_necessity)
from mpcbench.dataset import rows
from mpcbench.warehouse import db

# A longer, non-deterministic hunt: MPCBENCH_ORACLE_EXAMPLES=2000 pytest tests/test_oracle_reference.py
HUNT_EXAMPLES = int(os.environ.get("MPCBENCH_ORACLE_EXAMPLES", "0"))
BASE = dt.datetime(2026, 3, 2)          # a Monday
PEOPLE = [
    {"person_id": f"p{i}", "name": name, "email": f"p{i}@example.com", "team": "T", "title": "X"}
    for i, name in enumerate(["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra",
                              "Barbara Liskov"], start=1)
]
PERSON_IDS = [p["person_id"] for p in PEOPLE]
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
FEATURES = ("video", "whiteboard", "phone")
BUILDINGS = ("North", "South")
PROJECTS = ("PRJ-1", "PRJ-2", "PRJ-3")
# Level-4 home zones whose offset from Berlin stays fixed over the test weeks (New York's changes on
# 2026-03-08); Kolkata's is not a multiple of 15 minutes.
ZONES = ("Europe/Berlin", "Europe/London", "Asia/Kolkata")


def ts(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


# Mostly office hours (where the grid is), on or off the grid; sometimes any minute of the day.
minute_of_day = st.one_of(st.integers(28, 76).map(lambda q: 15 * q), st.integers(420, 1140),
                          st.integers(0, 1439))


@st.composite
def moments(draw, first_day=-1, last_day=6, aims=()):
    """A timestamp near the test weeks, on or off the grid; often near one of `aims` (where an
    instance's first starts lie) or in the mornings of the first days."""
    if aims and draw(st.booleans()):
        return draw(st.sampled_from(aims)) + dt.timedelta(minutes=draw(st.integers(-60, 180)))
    if first_day <= 0 and draw(st.booleans()):
        return BASE + dt.timedelta(days=draw(st.integers(0, min(last_day, 2))),
                                   minutes=draw(st.integers(360, 720)))
    day = draw(st.integers(first_day, last_day))
    return BASE + dt.timedelta(days=day, minutes=draw(minute_of_day))


@st.composite
def spans(draw, max_minutes=600, aims=()):
    start = draw(moments(aims=aims))
    length = draw(st.one_of(st.integers(1, 120), st.integers(1, max_minutes)))
    return start, start + dt.timedelta(minutes=length)


sometimes = st.integers(0, 2).map(lambda k: k == 0)     # a third of the time


@st.composite
def policies(draw, policy_id):
    if draw(st.integers(0, 9)) == 0:   # anything, up to the whole day
        wh_start = draw(st.integers(0, 12 * 60))
        wh_end = draw(st.integers(min(wh_start + 30, 1439), 1439))
    else:
        wh_start = draw(st.integers(6 * 60, 11 * 60))
        wh_end = draw(st.integers(14 * 60, 20 * 60))
    days = draw(st.lists(st.sampled_from(WEEKDAYS), min_size=1, max_size=7, unique=True)
                | st.sampled_from([list(WEEKDAYS[:5]), list(WEEKDAYS)]))   # any working week, or the usual ones
    rules = [("working_hours", {"start": hhmm(wh_start), "end": hhmm(wh_end), "days": days})]
    if draw(sometimes):
        b_start = draw(st.integers(0, 1400) | st.integers(540, 960))
        rules.append(("blackout", {"start": hhmm(b_start),
                                   "end": hhmm(draw(st.integers(b_start + 1, min(b_start + 180, 1439))))}))
    if draw(sometimes):
        rules.append(("buffer", {"minutes": draw(st.sampled_from([0, 5, 10, 15, 20, 30, 45]))}))
    if draw(sometimes):
        rules.append(("no_meeting_weekdays",
                      {"weekdays": draw(st.lists(st.sampled_from(WEEKDAYS), max_size=2, unique=True))}))
    if draw(sometimes):
        rules.append(("min_notice", {"hours": draw(st.integers(0, 30))}))
    if draw(sometimes):
        rules.append(("max_meetings_per_day", {"count": draw(st.integers(1, 6))}))
    if draw(sometimes):
        rules.append(("max_consecutive_minutes", {"minutes": draw(st.integers(15, 240))}))
    order = draw(st.permutations(range(len(rules))))
    return {"policy_id": policy_id, "name": policy_id,
            "rules": [{"rule_id": f"{policy_id}.{rules[i][0]}", "type": rules[i][0], "params": rules[i][1]}
                      for i in order]}


@st.composite
def constraint_tags(draw, level, aims):
    kind = draw(st.sampled_from(["deadline", "ban", "ooo", "ban", "ooo", "ban", "ooo"]))
    if kind == "deadline":
        end_by = draw(moments(3, 6) | st.sampled_from(aims).map(lambda aim: aim + dt.timedelta(hours=2)) |
                      moments(0, 6, aims).map(lambda m: m + dt.timedelta(days=1)))
        return {"type": "deadline", "params": {"end_by": ts(end_by)}}
    start, end = draw(spans(aims=aims))
    if kind == "ban":
        return {"type": "ban", "params": {"start": ts(start), "end": ts(end)}}
    person = draw(st.sampled_from(PEOPLE))
    who = {"person_name": person["name"]} if level >= 3 else {"person_id": person["person_id"]}
    return {"type": "ooo", "params": {**who, "start": ts(start), "end": ts(end)}}


@st.composite
def requirement_tags(draw):
    """Level-3 requirement tags: the oracle reads the resolved requirements, never these."""
    kind = draw(st.sampled_from(["participants", "duration", "count", "policy", "tie_break", "room"]))
    params = {
        "participants": lambda: {"people": draw(st.lists(st.sampled_from([p["name"] for p in PEOPLE]), min_size=1, max_size=3, unique=True))},
        "duration": lambda: {"minutes": draw(st.sampled_from([30, 45, 60]))},
        "count": lambda: {"n": draw(st.integers(1, 5))},
        "policy": lambda: {"policy_id": draw(st.sampled_from(["POL-A", "POL-B"]))},
        "tie_break": lambda: {"rule": draw(st.sampled_from(["room_id", "capacity"]))},
        "room": lambda: {"min_capacity": draw(st.integers(1, 6))},
    }[kind]()
    return {"type": kind, "params": params}


@st.composite
def threads(draw, level, aims):
    out = []
    counter = 0
    for t in range(draw(st.integers(1, 3) | st.integers(0, 5))):
        project_id = draw(st.just(PROJECTS[0]) | st.sampled_from(PROJECTS))
        messages = []
        for _ in range(draw(st.integers(1, 4))):
            counter += 1
            tags = draw(st.lists(constraint_tags(level, aims), max_size=2))
            if level >= 3:
                tags += draw(st.lists(requirement_tags(), max_size=1))
            messages.append({"message_id": f"m{counter:03d}", "author_id": draw(st.sampled_from(PERSON_IDS)),
                             "ts": ts(draw(moments(-20, 0))), "text": "(text)", "tags": tags})
        out.append({"thread_id": f"t{t}", "project_id": project_id, "channel": "#c", "title": "T",
                    "messages": messages})
    return out


@st.composite
def rooms_and_bookings(draw, aims):
    rooms = []
    for i in range(draw(st.integers(0, 5) | st.integers(2, 5))):
        rooms.append({"room_id": f"R-{draw(st.integers(10, 99))}{i}", "name": f"Room {i}",
                      "building": draw(st.sampled_from(BUILDINGS)), "floor": 1,
                      "capacity": draw(st.integers(1, 8)),
                      "features": sorted(draw(st.lists(st.sampled_from(FEATURES), min_size=1, max_size=3, unique=True)))})
    bookings = []
    if rooms:
        for _ in range(draw(st.integers(0, 10) | st.integers(0, 30))):
            start, end = draw(spans(max_minutes=240, aims=aims))
            bookings.append({"room_id": draw(st.sampled_from(rooms))["room_id"],
                             "start": ts(start), "end": ts(end)})
    return rooms, bookings


@st.composite
def instances(draw, level, world_id, number):
    first = BASE.date() + dt.timedelta(days=draw(st.integers(0, 2) | st.integers(0, 4)))   # Mon-Fri
    last = first + dt.timedelta(days=draw(st.integers(0, 2)))
    now = dt.datetime.combine(first, dt.time()) + dt.timedelta(minutes=draw(st.integers(-3 * 1440, 1440)))
    room = None
    if level >= 3 and draw(st.booleans()):
        room = {"min_capacity": draw(st.none() | st.integers(1, 5)),
                "features": sorted(draw(st.lists(st.sampled_from(FEATURES), max_size=1, unique=True))),
                "building": draw(st.none() | st.sampled_from(BUILDINGS))}
    requirements = {
        "participants": draw(st.lists(st.sampled_from(PERSON_IDS), min_size=1, max_size=3, unique=True)),
        "duration_min": draw(st.sampled_from([15, 20, 30, 45, 50, 60, 90, 120])),
        "n": draw(st.integers(1, 6)),
        "policy_id": draw(st.sampled_from(["POL-A", "POL-B"])),
        "tie_break": draw(st.sampled_from(["room_id", "capacity"])) if level >= 3 else None,
        "room": room,
    }
    given = {} if level >= 3 else {k: requirements[k] for k in ("participants", "duration_min", "n", "policy_id")}
    return {"instance_id": f"{world_id}-i{number}", "level": level, "world_id": world_id,
            "prompt": "(random)", "now": ts(now), "window": {"start": first.isoformat(), "end": last.isoformat()},
            "given": given, "project_id": None if level == 1 else draw(st.just(PROJECTS[0]) | st.sampled_from(PROJECTS)),
            "requirements": requirements}


@st.composite
def worlds(draw, level, world_id=None):
    world_id = world_id or f"rand-l{level}"
    pols = [draw(policies("POL-A")), draw(policies("POL-B"))]
    insts = [draw(instances(level, world_id, k)) for k in range(draw(st.integers(1, 3)))]
    aims = tuple(first_start(inst, pols) for inst in insts)
    events = []
    for i in range(draw(st.integers(0, 12) | st.integers(0, 40))):
        start, end = draw(spans(max_minutes=300, aims=aims))
        person_id = draw(st.sampled_from(PERSON_IDS))
        if events and draw(sometimes):   # back to back with the last event: runs of touching events
            person_id, start = events[-1]["person_id"], dt.datetime.fromisoformat(events[-1]["end"])
            end = start + dt.timedelta(minutes=draw(st.sampled_from([15, 30, 45, 60, 90])))
        events.append({"event_id": f"e{i:03d}", "person_id": person_id,
                       "start": ts(start), "end": ts(end),
                       "status": draw(st.sampled_from(["confirmed", "tentative", "cancelled"])),
                       "title": "Busy"})
    world = {"world_id": world_id, "level": level, "seed": 0, "timezone": "Europe/Berlin",
             "people": PEOPLE, "events": events,
             "policies": pols}
    if level >= 2:
        world["policy_docs"] = [{"doc_id": "doc-1", "title": "Handbook", "text": "(rules)"}]
        world["projects"] = [{"project_id": p, "name": p} for p in PROJECTS]
        world["threads"] = draw(threads(level, aims))
    if level >= 3:
        world["rooms"], world["room_bookings"] = draw(rooms_and_bookings(aims))
    if level == 4:
        world["people"], world["series"] = draw(level4_parts(aims))
    return world, insts


@st.composite
def level4_parts(draw, aims):
    """Level 4: each person's home zone and working hours, and recurring series with cancelled
    and moved occurrences (aimed, like events, near the instances' first starts)."""
    people = []
    for person in PEOPLE:
        start = draw(st.integers(0, 64).map(lambda q: 15 * q) | st.integers(0, 16 * 60))
        length = draw(st.integers(60, 24 * 60 - 1 - start))   # the schema's clock ends at 23:59
        people.append({**person, "timezone": draw(st.sampled_from(ZONES)),
                       "working_hours": {"start": hhmm(start), "end": hhmm(start + length)}})
    series = []
    for i in range(draw(st.integers(0, 6))):
        start, end = draw(spans(max_minutes=180, aims=aims))
        first = start - dt.timedelta(days=draw(st.integers(0, 3)) * 1)
        every = draw(st.sampled_from([1, 2, 7]))
        count = draw(st.integers(1, 3))   # the last occurrence stays before 2026-03-29 (DST in Berlin)
        shift = start - first
        exceptions = []
        for k in sorted(draw(st.lists(st.integers(0, count - 1), max_size=2, unique=True))):
            original = ts(first + dt.timedelta(days=every * k))
            if draw(st.booleans()):
                exceptions.append({"original_start": original, "action": "cancelled", "start": None, "end": None})
            else:
                moved, moved_end = draw(spans(max_minutes=120, aims=aims))
                exceptions.append({"original_start": original, "action": "moved",
                                   "start": ts(moved), "end": ts(moved_end)})
        series.append({"series_id": f"s{i:02d}", "person_id": draw(st.sampled_from(PERSON_IDS)),
                       "start": ts(first), "end": ts(end - shift), "every_days": every, "occurrences": count,
                       "status": draw(st.sampled_from(["confirmed", "tentative", "cancelled"])),
                       "title": "Weekly", "exceptions": exceptions})
    return people, series


def first_start(instance: dict, pols: list[dict]) -> dt.datetime:
    """Where an instance's first starts lie: the opening of working hours on its first day."""
    rules = next(p["rules"] for p in pols if p["policy_id"] == instance["requirements"]["policy_id"])
    opening = next(r["params"]["start"] for r in rules if r["type"] == "working_hours")
    return dt.datetime.combine(dt.date.fromisoformat(instance["window"]["start"]),
                               dt.time.fromisoformat(opening))


@pytest.fixture(scope="module")
def warehouse():
    con = fresh_warehouse()
    yield con
    con.close()


def assert_oracles_agree(con, world_instances: list[tuple[dict, list[dict]]]) -> None:
    answers, candidates = sql_answers(con), sql_candidates(con)
    n_feasible, needed = sql_n_feasible(con), sql_necessity(con)
    for world, insts in world_instances:
        for instance in insts:
            instance_id = instance["instance_id"]
            expected = ref.solve(world, instance)
            assert candidates.get(instance_id, []) == keys(expected.candidates), instance_id
            assert answers.get(instance_id, []) == keys(expected.top), instance_id
            assert n_feasible[instance_id] == expected.n_feasible, instance_id
            reference_needed = ref.necessity(world, instance)
            assert needed[instance_id] == reference_needed, instance_id
            if expected.n_feasible < instance["requirements"]["n"]:   # --hypothesis-show-statistics
                event(f"L{instance['level']} fewer than N feasible")
            for source, is_needed in reference_needed.items():
                event(f"L{instance['level']} {source} {'needed' if is_needed else 'not needed'}")


# 15 derandomized examples of two worlds a level (30 random worlds a level) in every run: a warehouse's
# refresh costs the same for one world or two, and makes most of an example's time.
# bench/oracle_reference.py sweeps hundreds more from the same strategies (its --smoke case runs in
# tests/test_bench_smoke.py).
RANDOM_WORLDS = settings(max_examples=HUNT_EXAMPLES or 15, deadline=None, derandomize=not HUNT_EXAMPLES,
                         suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                                HealthCheck.data_too_large])


def check_random_worlds(warehouse, *drawn):
    """One example = random worlds (one per level, or more), each with 1-3 instances, in one warehouse."""
    clear(warehouse)
    load(warehouse, [w for w, _ in drawn], [i for _, insts in drawn for i in insts])
    assert_oracles_agree(warehouse, list(drawn))


@RANDOM_WORLDS
@given(l1=worlds(1), l2=worlds(2), l3=worlds(3), l4=worlds(4),
       l1b=worlds(1, "rand-l1b"), l2b=worlds(2, "rand-l2b"), l3b=worlds(3, "rand-l3b"), l4b=worlds(4, "rand-l4b"))
def test_random_worlds_match_reference(warehouse, l1, l2, l3, l4, l1b, l2b, l3b, l4b):
    check_random_worlds(warehouse, l1, l2, l3, l4, l1b, l2b, l3b, l4b)


@pytest.fixture(scope="module")
def real_build(tmp_path_factory):
    # 12 instances a level: test_scale.py's DuckDB build, made once per session for both
    con = db.connect(shared_build(tmp_path_factory, (1, 2, 3, 4), 12), read_only=True)
    yield con
    con.close()


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_real_build_matches_reference(real_build, level):
    con = real_build
    insts = rows.dump_instances(con, level)
    assert len(insts) == 12
    world = rows.dump_world(con, insts[0]["world_id"])
    gold, candidates = sql_answers(con), sql_candidates(con)
    n_feasible, needed = sql_n_feasible(con), sql_necessity(con)
    for instance in insts:
        expected = ref.solve(world, instance)
        assert candidates[instance["instance_id"]] == keys(expected.candidates), instance["instance_id"]
        assert gold[instance["instance_id"]] == keys(expected.top), instance["instance_id"]
        assert n_feasible[instance["instance_id"]] == expected.n_feasible, instance["instance_id"]
        reference_needed = ref.necessity(world, instance)
        assert needed[instance["instance_id"]] == reference_needed, instance["instance_id"]
        assert all(reference_needed.values()), instance["instance_id"]
        if level >= 3:
            assert ref.resolve_level3_requirements(world, instance) == instance["requirements"]
