"""The rules docs/dataset.md ("Import") and docs/semantics.md settle, each enforced by
`mpcbench import` with one line per problem (file, line, JSON path): exceptions name one
occurrence, at most once (no raw DuckDB key error); working hours end after they start; a
message states each tag type at most once; a tag's params are an object (a `room` tag's `{}`
states no needs); ties between messages go to the greater message_id as a string; anyone may
name a level-4 project's owner, and a level-4 project must name one."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalkit import tiny_db
from mpcbench.cli import app
from mpcbench.dataset.checks import World, latest_requirement_tags
from mpcbench.dataset.validate import DatasetError
from mpcbench.warehouse.importer import import_dataset
from test_export_import import Dataset, export_to, tags_of

WORLD4 = "worlds/world_level4.json"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return export_to(tiny_db(tmp_path_factory), tmp_path_factory.mktemp("exported4") / "dataset")


def refused(dataset: Dataset, tmp_path: Path) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        import_dataset(dataset.root, tmp_path / "out.duckdb")
    assert not (tmp_path / "out.duckdb").exists()
    return caught.value.errors


def one_line(errors: list[str], *parts: str) -> None:
    assert any(all(part in line for part in parts) for line in errors), errors
    assert not any("Constraint Error" in line or "DuckDB" in line for line in errors), errors


def _series_with_exception(world: dict) -> tuple[int, dict]:
    return next((i, s) for i, s in enumerate(world["series"]) if s["exceptions"])


def test_two_exceptions_for_one_occurrence_are_one_line_not_a_key_error(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "d", levels=(4,))
    world = dataset.world(4)
    i, series = _series_with_exception(world)
    series["exceptions"].append(dict(series["exceptions"][0]))
    n = len(series["exceptions"]) - 1
    dataset.put_world(4, world)
    one_line(refused(dataset, tmp_path), f"{WORLD4}: series[{i}].exceptions[{n}].original_start:",
             "a second exception for the same occurrence (the first is exceptions[0])")
    result = CliRunner().invoke(app, ["import", str(dataset.root), "--db", str(tmp_path / "cli.duckdb")])
    assert result.exit_code != 0 and "Constraint Error" not in result.output and "Traceback" not in result.output
    assert f"series[{i}].exceptions[{n}].original_start" in result.output


def test_an_exception_must_name_an_occurrence(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "d", levels=(4,))
    world = dataset.world(4)
    i, series = _series_with_exception(world)
    start = dt.datetime.fromisoformat(series["exceptions"][0]["original_start"]) + dt.timedelta(minutes=15)
    series["exceptions"][0]["original_start"] = start.strftime("%Y-%m-%dT%H:%M")
    dataset.put_world(4, world)
    one_line(refused(dataset, tmp_path), f"{WORLD4}: series[{i}].exceptions[0].original_start:",
             "is not the start of an occurrence of series")


def test_working_hours_must_end_after_they_start(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "d", levels=(4,))
    dataset.edit_world(4, lambda w: w["people"][2].update(working_hours={"start": "17:00", "end": "09:00"}))
    one_line(refused(dataset, tmp_path), f"{WORLD4}: people[2].working_hours.end: 09:00 is not after start 17:00")


def test_a_message_states_each_tag_type_at_most_once(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "d", levels=(3,))
    world = dataset.world(3)
    path, tag = tags_of(world, "ban")[0]
    message_path = path.rsplit(".tags[", 1)[0]
    t, m = (int(part.split("]")[0]) for part in message_path.replace("threads[", "").split(".messages["))
    tags = world["threads"][t]["messages"][m]["tags"]
    tags.append({"type": "ban", "params": dict(tag["params"])})
    dataset.put_world(3, world)
    one_line(refused(dataset, tmp_path), f"worlds/world_level3.json: {message_path}.tags[{len(tags) - 1}].type:",
             'a second "ban" tag in message', "a message states each tag type at most once")


def test_a_tag_without_params_is_refused(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "d", levels=(4,))
    world = dataset.world(4)
    path, tag = tags_of(world, "duration")[0]
    tag["params"] = None
    dataset.put_world(4, world)
    one_line(refused(dataset, tmp_path), f"{WORLD4}: {path}")


def _owner_ids(world: dict) -> dict[str, str]:
    """project_id -> the person_id its (latest) owner tag names."""
    by_name = {p["name"]: p["person_id"] for p in world["people"]}
    owners: dict[str, tuple] = {}
    for thread in world["threads"]:
        for m in thread["messages"]:
            for tag in m["tags"]:
                if tag["type"] == "owner":
                    key = (m["ts"], m["message_id"])
                    if thread["project_id"] not in owners or key > owners[thread["project_id"]][0]:
                        owners[thread["project_id"]] = (key, by_name[tag["params"]["person_name"]])
    return {project: person for project, (_, person) in owners.items()}


def test_an_empty_room_tag_states_no_needs(exported, tmp_path):
    """`{}` is a room tag without needs: the instance's room is {null, [], null}, not null."""
    dataset = Dataset(exported, tmp_path / "d", levels=(4,))
    world, lines = dataset.world(4), dataset.lines(4)
    owners = _owner_ids(world)
    emptied = set()
    for thread in world["threads"]:
        for m in thread["messages"]:
            for tag in m["tags"]:
                if tag["type"] == "room" and m["author_id"] == owners.get(thread["project_id"]):
                    tag["params"] = {}
                    emptied.add(thread["project_id"])
    assert emptied
    for line in lines:
        if line["project_id"] in emptied:
            line["requirements"]["room"] = {"min_capacity": None, "features": [], "building": None}
    dataset.put_world(4, world)
    dataset.put_lines(4, lines)
    import_dataset(dataset.root, tmp_path / "ok.duckdb")
    for line in lines:
        if line["project_id"] in emptied:
            line["requirements"]["room"] = None
    dataset.put_lines(4, lines)
    one_line(refused(dataset, tmp_path), "instances/instances_level4.jsonl:", "requirements.room: null, but the latest "
             "room tag")


def test_anyone_may_name_the_owner_but_a_level4_project_must_name_one(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "d", levels=(4,))
    world = dataset.world(4)
    owners = _owner_ids(world)
    others = [p["person_id"] for p in world["people"] if p["person_id"] not in owners.values()]
    for thread in world["threads"]:                 # the owner named by someone who is not the owner
        for m in thread["messages"]:
            if any(tag["type"] == "owner" for tag in m["tags"]):
                m["author_id"] = others[0]
    dataset.put_world(4, world)
    import_dataset(dataset.root, tmp_path / "ok.duckdb")
    for thread in world["threads"]:
        for m in thread["messages"]:
            m["tags"] = [tag for tag in m["tags"] if tag["type"] != "owner"]
    dataset.put_world(4, world)
    one_line(refused(dataset, tmp_path), "instances/instances_level4.jsonl:1: project_id: no owner tag in the "
             "threads of project")


def test_ties_between_messages_go_to_the_greater_message_id_as_a_string():
    """Same time, same kind: "m9" > "m10" as strings, so m9's tag wins."""
    ts = dt.datetime(2026, 3, 2, 9, 0)
    world = World("w", 3, tags_by_project={"P": [
        ((ts, "m10"), "duration", {"minutes": 30}, "m10", "p1"),
        ((ts, "m9"), "duration", {"minutes": 45}, "m9", "p1"),
    ]})
    assert latest_requirement_tags(world, "P")["duration"] == ({"minutes": 45}, "m9")


DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("page, phrase", [
    ("dataset.md", "worlds/world_level{1,2,3,4}.json"),
    ("dataset.md", "| `level` | 1, 2, 3 or 4 |"),
    ("dataset.md", "an occurrence has at most one exception"),
    ("dataset.md", "an exception whose `original_start` is not\n  the start of an occurrence of its series"),
    ("dataset.md", "a person's `working_hours` (level 4) that\n  ends at or before its start"),
    ("dataset.md", "a message with two tags of one type"),
    ("dataset.md", "always an object, never `null`"),
    ("dataset.md", "`PRJ-a-m9` is later than `PRJ-a-m10`"),
    ("dataset.md", "Anyone may write the `owner` tag"),
    ("semantics.md", "(start, room_id) at levels 3-4"),
    ("semantics.md", "so `m9` is later than\n`m10`"),
    ("semantics.md", "which at level 4 is the organiser's"),
    ("semantics.md", "**Who may name the owner.** Anyone"),
    ("semantics.md", "`{}` states a meeting that needs no particular room"),
])
def test_every_settled_rule_is_stated_in_the_docs(page, phrase):
    assert phrase in (DOCS / page).read_text()
