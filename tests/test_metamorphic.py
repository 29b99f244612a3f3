"""Metamorphic checks of the oracle: transform the raw rows of a build (as exported) and
relabel them with the warehouse loader and the SQL views; the gold answers must not change,
up to the transformation. Renaming every id and person consistently (order kept, so that the
room tie-break by room_id is the same), shifting the whole world by a week, reordering the
messages of every thread (times kept), adding a cancelled event over every gold start, or
adding an unrelated project whose threads ban every gold start. Level 4 adds two: writing every
recurring series out as single events, and moving a person's home zone together with their hours
(an hour west, hours an hour earlier on their clock). A tiny build of all four levels."""

from __future__ import annotations

import copy
import datetime as dt
import json
import random
import re

import pytest

from mpcbench.dataset.export import oracle_lines
from mpcbench.dataset.rows import dump_instances, dump_world, load_dataset
from mpcbench.timestamps import timestamp_text
from mpcbench.warehouse import db
from mpcbench.world.tags import render_tag
from oracle_harness import fresh_warehouse

ID = re.compile(r"\b(?:PRJ-[0-9a-f]{6}(?:-[tm][0-9a-f]+)?|p-[0-9a-f]{6}|ev-[0-9a-f]{6}|ser-[0-9a-f]{6}|[A-Z]-\d{3})\b")
LEVELS = (1, 2, 3, 4)
# con: the session's tiny build of all four levels, 4 instances each (tests/conftest.py)


MOMENT = re.compile(r"\b(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2})?\b")


@pytest.fixture(scope="module")
def dataset(con):
    worlds = [dump_world(con, w) for (w,) in con.execute("select world_id from worlds order by level").fetchall()]
    instances = [i for level in LEVELS for i in dump_instances(con, level)]
    return worlds, instances


def relabel(worlds: list[dict], instances: list[dict]) -> dict[str, dict]:
    """The oracle's answer to the given rows, per instance: (n_feasible, [(start, end, room)])."""
    con = fresh_warehouse()   # what db.create_warehouse makes (oracle_harness.py)
    load_dataset(con, worlds, instances)
    db.refresh(con)
    lines = [line for level in LEVELS for line in oracle_lines(con, level)]
    con.close()
    return {line["instance_id"]: line for line in lines}


@pytest.fixture(scope="module")
def gold(dataset):
    return relabel(*dataset)


def through_text(dataset, transform):
    worlds, instances = dataset
    return json.loads(transform(json.dumps(worlds))), json.loads(transform(json.dumps(instances)))


def test_the_unchanged_rows_give_the_built_gold(con, gold):
    built = {line["instance_id"]: line for level in LEVELS for line in oracle_lines(con, level)}
    assert gold == built and all(line["candidates"] for line in gold.values())


def test_renaming_ids_and_people_changes_nothing_but_the_names(dataset, gold):
    names = sorted({p["name"] for w in dataset[0] for p in w["people"]}, key=len, reverse=True)
    by_name = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")

    def rename(text: str) -> str:
        text = ID.sub(lambda m: "Z" + m.group(0), text)          # "Z" + id keeps every id's order
        return by_name.sub(lambda m: m.group(0) + "-Moreno", text)

    renamed = relabel(*through_text(dataset, rename))
    assert renamed == json.loads(rename(json.dumps(gold)))
    assert renamed != gold   # the level-3 room ids did change


def test_shifting_the_world_by_a_week_shifts_the_answers(dataset, gold):
    def shift(text: str) -> str:
        def later(m):
            day = dt.date.fromisoformat(m.group(1)) + dt.timedelta(days=7)
            return day.isoformat() + (m.group(2) or "")
        return MOMENT.sub(later, text)

    shifted = relabel(*through_text(dataset, shift))
    assert shifted == json.loads(shift(json.dumps(gold))) and shifted != gold


def test_reordering_thread_messages_changes_nothing(dataset, gold):
    worlds, instances = copy.deepcopy(dataset)
    rng = random.Random(7)
    for world in worlds:
        for thread in world.get("threads", []):
            rng.shuffle(thread["messages"])
            thread["messages"].sort(key=lambda m: m["ts"])          # same times keep the shuffled order
            thread["messages"].reverse()
        rng.shuffle(world.get("threads", []))
    assert relabel(worlds, instances) == gold


def test_a_cancelled_event_over_every_gold_start_changes_nothing(dataset, gold):
    worlds, instances = copy.deepcopy(dataset)
    by_world = {w["world_id"]: w for w in worlds}
    for number, instance in enumerate(instances):
        world = by_world[instance["world_id"]]
        for k, candidate in enumerate(gold[instance["instance_id"]]["candidates"]):
            for person in instance["requirements"]["participants"]:
                world["events"].append({"event_id": f"cancelled-{number}-{k}-{person}", "person_id": person,
                                        "start": candidate["start"], "end": candidate["end"],
                                        "status": "cancelled", "title": "Dropped sync"})
    assert relabel(worlds, instances) == gold


def test_an_unrelated_project_changes_nothing(dataset, gold):
    worlds, instances = copy.deepcopy(dataset)
    for world in worlds:
        if world["level"] < 2:
            continue
        starts = [c for i in instances if i["world_id"] == world["world_id"]
                  for c in gold[i["instance_id"]]["candidates"]]
        messages = []
        for k, c in enumerate(starts):
            ban = {"start": c["start"], "end": c["end"]}
            messages.append({"message_id": f"unrelated-m{k}", "author_id": world["people"][0]["person_id"],
                             "ts": timestamp_text(dt.datetime(2026, 2, 2, 9, 0) + dt.timedelta(minutes=k)),
                             "text": f"Keep this free. {render_tag('ban', ban)}", "tags": [{"type": "ban", "params": ban}]})
        world["projects"].append({"project_id": "PRJ-unrelated", "name": "Quartz offsite"})
        world["threads"].append({"thread_id": "PRJ-unrelated-t1", "project_id": "PRJ-unrelated",
                                 "channel": "#quartz-ops", "title": "Quartz offsite: logistics", "messages": messages})
    assert relabel(worlds, instances) == gold


def test_writing_series_out_as_single_events_changes_nothing(dataset, gold):
    worlds, instances = copy.deepcopy(dataset)
    world = next(w for w in worlds if w["level"] == 4)
    for s in world.pop("series"):
        changed = {x["original_start"]: x for x in s["exceptions"]}
        for k in range(s["occurrences"]):
            step = dt.timedelta(days=s["every_days"] * k)
            start = dt.datetime.fromisoformat(s["start"]) + step
            event = {"event_id": f"{s['series_id']}-{k}", "person_id": s["person_id"], "start": timestamp_text(start),
                     "end": timestamp_text(dt.datetime.fromisoformat(s["end"]) + step), "status": s["status"],
                     "title": s["title"]}
            exception = changed.get(event["start"])
            if exception and exception["action"] == "cancelled":
                event["status"] = "cancelled"
            elif exception:
                event["start"], event["end"] = exception["start"], exception["end"]
            world["events"].append(event)
    world["series"] = []
    assert relabel(worlds, instances) == gold


def test_moving_a_home_zone_with_the_hours_changes_nothing(dataset, gold):
    """Berlin to London is an hour west all along the horizon: the same hours, an hour earlier on
    the person's own clock, are the same moments on the organiser's."""
    worlds, instances = copy.deepcopy(dataset)
    world = next(w for w in worlds if w["level"] == 4)
    moved = 0
    for person in world["people"]:
        if person["timezone"] == "Europe/Berlin":
            person["timezone"] = "Europe/London"
            person["working_hours"] = {key: (dt.datetime.strptime(value, "%H:%M") - dt.timedelta(hours=1)).strftime("%H:%M")
                                       for key, value in person["working_hours"].items()}
            moved += 1
    assert moved > 10
    assert relabel(worlds, instances) == gold
