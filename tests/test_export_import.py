"""`mpcbench export` / `mpcbench import` (docs/dataset.md): the files round-trip byte for
byte, validate against the shipped JSON Schemas, bad datasets are refused with every problem
named (file, line, JSON path) and the target database untouched, and an edited dataset is
re-labelled by the SQL oracle (checked against the plain-Python reference oracle)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

import reference_oracle as ref
from evalkit import shared_build
from mpcbench.cli import app
from mpcbench.dataset.export import export_dataset
from mpcbench.dataset.layout import instances_file, load_schema, oracle_file, validator, world_file
from mpcbench.dataset.validate import MAX_ERRORS, DatasetError
from mpcbench.dataset.version import DATASET_VERSION
from mpcbench.warehouse import db
from mpcbench.warehouse.importer import import_dataset

WORLDS_DIR = Path(__file__).resolve().parent.parent / "worlds"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "mpcbench" / "dataset" / "schema"
runner = CliRunner()


# --- fixtures and helpers --------------------------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return shared_build(tmp_path_factory, (1, 2, 3), 8)   # made once per session (tests/test_splits.py too)


def export_to(db_path: Path, out: Path) -> Path:
    con = db.connect(db_path, read_only=True)
    try:
        export_dataset(con, out)
    finally:
        con.close()
    return out


@pytest.fixture(scope="module")
def exported(built, tmp_path_factory) -> Path:
    return export_to(built, tmp_path_factory.mktemp("exported") / "dataset")


@pytest.fixture(scope="module")
def imported(exported, tmp_path_factory):
    """The exported dataset imported again: (database path, ImportReport)."""
    path = tmp_path_factory.mktemp("imported") / "imported.duckdb"
    return path, import_dataset(exported, path)


@pytest.fixture(scope="module")
def target(built, tmp_path_factory) -> tuple[Path, str, int]:
    """An existing database that failed imports must leave alone: (path, sha256, mtime_ns)."""
    path = tmp_path_factory.mktemp("target") / "existing.duckdb"
    shutil.copy(built, path)
    return path, hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def files(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


class Dataset:
    """An editable copy of an exported dataset (only the levels asked for)."""

    def __init__(self, source: Path, root: Path, levels=(1, 2, 3)):
        self.root = root
        for level in levels:
            for name in (world_file(level), instances_file(level), oracle_file(level)):
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source / name, root / name)

    def world(self, level: int) -> dict:
        return json.loads((self.root / world_file(level)).read_text())

    def put_world(self, level: int, world: dict) -> None:
        (self.root / world_file(level)).write_text(json.dumps(world, indent=2, ensure_ascii=False))

    def lines(self, level: int) -> list[dict]:
        return [json.loads(line) for line in (self.root / instances_file(level)).read_text().splitlines()]

    def put_lines(self, level: int, lines: list) -> None:
        (self.root / instances_file(level)).write_text(
            "".join((line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n"
                    for line in lines))

    def edit_world(self, level: int, change) -> None:
        world = self.world(level)
        change(world)
        self.put_world(level, world)

    def edit_instance(self, level: int, index: int, change) -> None:
        lines = self.lines(level)
        change(lines[index])
        self.put_lines(level, lines)


def tags_of(world: dict, kind: str) -> list[tuple[str, dict]]:
    """(json path of the tag, tag) for every tag of a kind."""
    return [(f"threads[{i}].messages[{j}].tags[{k}]", tag)
            for i, thread in enumerate(world["threads"]) for j, m in enumerate(thread["messages"])
            for k, tag in enumerate(m["tags"]) if tag["type"] == kind]


def gold(db_path: Path) -> dict[str, list[tuple[str, str | None]]]:
    con = db.connect(db_path, read_only=True)
    try:
        rows = con.execute("select instance_id, strftime(starts_at, '%Y-%m-%dT%H:%M'), room_id "
                           "from oracle_answers order by instance_id, rank").fetchall()
    finally:
        con.close()
    out: dict[str, list] = {}
    for instance_id, start, room_id in rows:
        out.setdefault(instance_id, []).append((start, room_id))
    return out


def reference_top(world: dict, instance: dict) -> list[tuple[str, str | None]]:
    return [(start.strftime("%Y-%m-%dT%H:%M"), room_id) for start, room_id in ref.solve(world, instance).top]


# --- export, round trip, schemas -------------------------------------------------------------

def test_export_writes_the_design_layout(exported, built):
    assert sorted(files(exported)) == sorted(
        [world_file(level) for level in (1, 2, 3)] + [instances_file(level) for level in (1, 2, 3)]
        + [oracle_file(level) for level in (1, 2, 3)]
        + [f"schema/{name}.schema.json" for name in ("instance", "oracle", "world")])
    world_text = (exported / world_file(2)).read_text(encoding="utf-8")
    assert world_text.endswith("}\n") and world_text.startswith('{\n  "world_id": "world-l2",\n  "level": 2,')
    for name in ("instance", "oracle", "world"):
        assert (exported / "schema" / f"{name}.schema.json").read_bytes() == \
            (SCHEMA_DIR / f"{name}.schema.json").read_bytes()


def test_oracle_lines_are_the_gold_answers_in_instance_order(exported, built):
    answers = gold(built)
    for level in (1, 2, 3):
        instances = [json.loads(line) for line in (exported / instances_file(level)).read_text().splitlines()]
        oracles = [json.loads(line) for line in (exported / oracle_file(level)).read_text().splitlines()]
        assert [o["instance_id"] for o in oracles] == [i["instance_id"] for i in instances]
        for instance, oracle in zip(instances, oracles):
            assert [(c["start"], c["room_id"]) for c in oracle["candidates"]] == answers[instance["instance_id"]]
            assert len(oracle["candidates"]) == instance["requirements"]["n"] <= oracle["n_feasible"]
            assert all((c["room_id"] is None) == (level < 3) for c in oracle["candidates"])


def test_export_import_export_is_byte_identical(exported, imported, tmp_path):
    path, report = imported
    assert [(lv.level, lv.instances, lv.too_few_feasible, lv.gold_differs) for lv in report.levels] == \
        [(1, 8, 0, 0), (2, 8, 0, 0), (3, 8, 0, 0)]
    again = export_to(path, tmp_path / "again")
    assert files(again) == files(exported)


def test_import_records_where_the_data_came_from(imported):
    path, _ = imported
    con = db.connect(path, read_only=True)
    info = dict(con.execute("select key, value from build_info").fetchall())
    stats = con.execute("select level, world_id, seed, instances_wanted, candidates_sampled, instances_kept, "
                        "discarded_too_few_feasible + rejected_calendar_not_needed + rejected_policy_not_needed "
                        "+ rejected_threads_not_needed + rejected_rooms_not_needed, kept_too_few_feasible "
                        "from build_stats order by level").fetchall()
    con.close()
    assert info["built_by"] == "mpcbench import" and info["source"] == "dataset"
    assert info["dataset_version"] == DATASET_VERSION   # relabelled by this package's oracle
    assert info["levels"] == "1,2,3" and info["seed_level3"] == "3303"
    assert stats == [(1, "world-l1", 1101, 8, 8, 8, 0, 0), (2, "world-l2", 2202, 8, 8, 8, 0, 0),
                     (3, "world-l3", 3303, 8, 8, 8, 0, 0)]


def test_schemas_are_valid_and_every_exported_file_validates(exported):
    for name in ("world", "instance", "oracle"):
        schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    check = {name: jsonschema.Draft202012Validator(load_schema(name)) for name in ("world", "instance", "oracle")}
    for level in (1, 2, 3):
        world = json.loads((exported / world_file(level)).read_text())
        assert list(check["world"].iter_errors(world)) == []
        for name, path in (("instance", instances_file(level)), ("oracle", oracle_file(level))):
            for line in (exported / path).read_text().splitlines():
                assert list(check[name].iter_errors(json.loads(line))) == []


def test_schemas_enforce_level_specific_keys(exported):
    check = validator("world")
    world1 = json.loads((exported / world_file(1)).read_text())
    world3 = json.loads((exported / world_file(3)).read_text())
    assert not check.is_valid({**world1, "rooms": []})
    assert not check.is_valid({**world3, "level": 2})            # rooms and level-3 tags at level 2
    assert not check.is_valid({k: v for k, v in world3.items() if k != "room_bookings"})
    instance = json.loads((exported / instances_file(3)).read_text().splitlines()[0])
    check = validator("instance")
    assert check.is_valid(instance)
    assert not check.is_valid({**instance, "given": {"n": 3}})   # level 3 states nothing in the prompt
    assert not check.is_valid({**instance, "requirements": {**instance["requirements"], "tie_break": "size"}})


def test_export_writes_only_the_levels_in_the_database(exported, tmp_path):
    one = Dataset(exported, tmp_path / "one", levels=(1,))
    shutil.rmtree(one.root / "oracles")
    report = import_dataset(one.root, tmp_path / "one.duckdb")
    assert [(lv.level, lv.gold_differs) for lv in report.levels] == [(1, None)]   # no file to compare
    out = tmp_path / "out"
    shutil.copytree(exported, out)                                 # stale files of levels 2 and 3
    export_to(tmp_path / "one.duckdb", out)
    assert sorted(p for p in files(out) if not p.startswith("schema/")) == \
        [instances_file(1), oracle_file(1), world_file(1)]
    assert (out / world_file(1)).read_bytes() == (exported / world_file(1)).read_bytes()
    assert (out / oracle_file(1)).read_bytes() == (exported / oracle_file(1)).read_bytes()


# --- bad imports: every problem reported, nothing written -------------------------------------

def _first_ban(world):
    return tags_of(world, "ban")[0]


def _set_event(index, **values):
    return lambda w: w["events"][index].update(values)


BAD = {
    # schema: keys, types, patterns, enums, level-specific keys
    "bad timestamp": (1, lambda d: d.edit_world(1, _set_event(17, end="2026-03-02 10:00")),
                      ["worlds/world_level1.json: events[17].end:", "not a timestamp YYYY-MM-DDTHH:MM"]),
    "not a real date": (1, lambda d: d.edit_world(1, _set_event(2, start="2026-02-30T09:00")),
                        ["worlds/world_level1.json: events[2].start:", "not a real date"]),
    "bad status": (1, lambda d: d.edit_world(1, _set_event(0, status="maybe")),
                   ["events[0].status:", 'unknown value "maybe"']),
    "unknown rule type": (1, lambda d: d.edit_world(1, lambda w: w["policies"][0]["rules"][1].update(type="lunch")),
                          ["worlds/world_level1.json: policies[0].rules[1].type:", 'unknown value "lunch"']),
    "bad rule params": (1, lambda d: d.edit_world(1, lambda w: w["policies"][1]["rules"][0]["params"].update(start="9")),
                        ["policies[1].rules[0].params.start:", "not a time of day HH:MM"]),
    "unknown tag type": (3, lambda d: d.edit_world(3, lambda w: _first_ban(w)[1].update(type="vibe")),
                         ["worlds/world_level3.json: threads[", '.type: unknown value "vibe"']),
    "level-3 tag at level 2": (2, lambda d: d.edit_world(2, lambda w: _first_ban(w)[1].update(
                                   type="duration", params={"minutes": 30})),
                               ["worlds/world_level2.json: threads[", 'unknown value "duration"']),
    "rooms at level 1": (1, lambda d: d.edit_world(1, lambda w: w.update(rooms=[])),
                         ["worlds/world_level1.json: rooms: not allowed here"]),
    "threads missing at level 2": (2, lambda d: d.edit_world(2, lambda w: w.pop("threads")),
                                   ['worlds/world_level2.json: missing key "threads"']),
    "extra key": (1, lambda d: d.edit_world(1, _set_event(4, room="A-1")),
                  ['events[4]: unexpected key "room"']),
    "bad instance line": (1, lambda d: d.edit_instance(1, 2, lambda i: i["requirements"].update(n="three")),
                          ["instances/instances_level1.jsonl:3: requirements.n:", "not of type integer"]),
    "invalid json line": (1, lambda d: d.put_lines(1, d.lines(1)[:3] + ['{"instance_id": "L1-x",'] + d.lines(1)[3:]),
                          ["instances/instances_level1.jsonl:4: not valid JSON"]),
    # dangling ids
    "unknown person in event": (1, lambda d: d.edit_world(1, _set_event(5, person_id="p-999")),
                                ['worlds/world_level1.json: events[5].person_id: unknown person "p-999"']),
    "unknown message author": (2, lambda d: d.edit_world(2, lambda w: w["threads"][0]["messages"][0].update(
                                   author_id="p-999")),
                               ['threads[0].messages[0].author_id: unknown person "p-999"']),
    "unknown participant": (1, lambda d: d.edit_instance(1, 0, lambda i: [
                                i[k]["participants"].__setitem__(0, "p-999") for k in ("given", "requirements")]),
                            ['instances/instances_level1.jsonl:1: requirements.participants[0]: unknown person "p-999"']),
    "unknown ooo person": (2, lambda d: d.edit_world(2, lambda w: tags_of(w, "ooo")[0][1]["params"].update(
                               person_id="p-999")),
                           ['.params.person_id: unknown person "p-999"']),
    "unknown room in booking": (3, lambda d: d.edit_world(3, lambda w: w["room_bookings"][3].update(room_id="Z-999")),
                                ['worlds/world_level3.json: room_bookings[3].room_id: unknown room "Z-999"']),
    "unknown policy": (1, lambda d: d.edit_instance(1, 1, lambda i: [
                           i[k].update(policy_id="POL-NOPE") for k in ("given", "requirements")]),
                       ['instances/instances_level1.jsonl:2: requirements.policy_id: unknown policy "POL-NOPE"']),
    "unknown project in thread": (2, lambda d: d.edit_world(2, lambda w: w["threads"][1].update(project_id="PRJ-NOPE")),
                                  ['threads[1].project_id: unknown project "PRJ-NOPE"']),
    "unknown project in instance": (2, lambda d: d.edit_instance(2, 0, lambda i: i.update(project_id="PRJ-NOPE")),
                                    ['instances/instances_level2.jsonl:1: project_id: unknown project "PRJ-NOPE"']),
    "unknown world": (1, lambda d: d.edit_instance(1, 3, lambda i: i.update(world_id="world-zz")),
                      ['instances/instances_level1.jsonl:4: world_id: unknown world "world-zz"']),
    # intervals
    "empty event": (1, lambda d: d.edit_world(1, lambda w: w["events"][6].update(end=w["events"][6]["start"])),
                    ["worlds/world_level1.json: events[6].end:", "is not after start"]),
    "booking ends before it starts": (3, lambda d: d.edit_world(3, lambda w: w["room_bookings"][0].update(
                                          end="2026-03-01T08:00")),
                                      ["room_bookings[0].end: 2026-03-01T08:00 is not after start"]),
    "ban ends before it starts": (2, lambda d: d.edit_world(2, lambda w: _first_ban(w)[1]["params"].update(
                                      end="2026-03-01T08:00")),
                                  ["worlds/world_level2.json: threads[", ".params.end: 2026-03-01T08:00 is not after start"]),
    "empty ooo": (3, lambda d: d.edit_world(3, lambda w: tags_of(w, "ooo")[0][1]["params"].update(
                      end=tags_of(w, "ooo")[0][1]["params"]["start"])),
                  ["worlds/world_level3.json: threads[", ".params.end:", "is not after start"]),
    "window ends before it starts": (1, lambda d: d.edit_instance(1, 4, lambda i: i["window"].update(end="2026-03-01")),
                                     ["instances/instances_level1.jsonl:5: window.end: 2026-03-01 is before window.start"]),
    # duplicates
    "duplicate event id": (1, lambda d: d.edit_world(1, lambda w: w["events"][9].update(
                               event_id=w["events"][8]["event_id"])),
                           ["worlds/world_level1.json: events[9].event_id: duplicate event_id", "first at events[8]"]),
    "duplicate instance id": (1, lambda d: d.edit_instance(1, 1, lambda i: i.update(instance_id="L1-0001")),
                              ['instances/instances_level1.jsonl:2: instance_id: duplicate instance_id "L1-0001"',
                               "first at instances/instances_level1.jsonl:1"]),
    # policies: one working_hours rule, every other type at most once
    "no working hours": (1, lambda d: d.edit_world(1, lambda w: w["policies"][0].update(
                             rules=[r for r in w["policies"][0]["rules"] if r["type"] != "working_hours"])),
                         ["worlds/world_level1.json: policies[0].rules: policy", "has no working_hours rule"]),
    "a rule type twice": (1, lambda d: d.edit_world(1, lambda w: w["policies"][0]["rules"].append(
                              {**w["policies"][0]["rules"][0], "rule_id": "again"})),
                          ["worlds/world_level1.json: policies[0].rules[", 'a second "working_hours" rule']),
    # the level-3 directory and requirements
    "a name twice at level 3": (3, lambda d: d.edit_world(3, lambda w: w["people"][1].update(name=w["people"][0]["name"])),
                                ["worlds/world_level3.json: people[1].name:", "names must be unique"]),
    "ooo name not in directory": (3, lambda d: d.edit_world(3, lambda w: tags_of(w, "ooo")[0][1]["params"].update(
                                      person_name="Nobody Here")),
                                  ['.params.person_name: "Nobody Here" is not in the people directory']),
    "participant name not in directory": (3, lambda d: d.edit_world(3, lambda w: tags_of(w, "participants")[0][1][
                                              "params"]["people"].__setitem__(0, "Nobody Here")),
                                          ['.params.people[0]: "Nobody Here" is not in the people directory']),
    "requirements not what the threads say": (3, lambda d: d.edit_instance(3, 0, lambda i: i["requirements"].update(
                                                  duration_min=i["requirements"]["duration_min"] + 15)),
                                              ["instances/instances_level3.jsonl:1: requirements.duration_min:",
                                               "but the latest duration tag"]),
    "given differs from requirements": (2, lambda d: d.edit_instance(2, 2, lambda i: i["given"].update(n=99)),
                                        ["instances/instances_level2.jsonl:3: requirements.n: ", "differs from given.n 99"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_dataset_is_refused_naming_file_line_and_path(case, exported, target, tmp_path):
    level, change, expected = BAD[case]
    dataset = Dataset(exported, tmp_path / "dataset", levels=(level,))
    change(dataset)
    path, digest, mtime = target
    with pytest.raises(DatasetError) as caught:
        import_dataset(dataset.root, path)
    errors = caught.value.errors
    assert any(all(part in line for part in expected) for line in errors), errors
    assert path.stat().st_mtime_ns == mtime and hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]      # no temporary file left


def test_every_problem_in_every_file_is_reported_together(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "dataset")
    dataset.edit_world(1, _set_event(5, person_id="p-999"))
    dataset.edit_world(3, lambda w: w["room_bookings"][3].update(room_id="Z-999"))
    dataset.edit_instance(2, 0, lambda i: i.update(project_id="PRJ-NOPE"))
    dataset.edit_instance(2, 3, lambda i: i["window"].update(end="2026-03-01"))
    with pytest.raises(DatasetError) as caught:
        import_dataset(dataset.root, tmp_path / "new.duckdb")
    assert [line.split(": ")[0] for line in caught.value.errors] == [
        "worlds/world_level1.json", "worlds/world_level3.json",
        "instances/instances_level2.jsonl:1", "instances/instances_level2.jsonl:4"]
    assert not (tmp_path / "new.duckdb").exists()


def test_errors_are_capped_and_counted(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "dataset", levels=(1,))
    dataset.edit_world(1, lambda w: [e.update(person_id="p-999") for e in w["events"][:MAX_ERRORS + 10]])
    with pytest.raises(DatasetError) as caught:
        import_dataset(dataset.root, tmp_path / "new.duckdb")
    assert len(caught.value.errors) == MAX_ERRORS and caught.value.total == MAX_ERRORS + 10
    assert caught.value.errors[0].startswith("worlds/world_level1.json: events[0].person_id:")


def test_instances_without_their_world_file_are_refused(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "dataset", levels=(1,))
    shutil.copy(exported / instances_file(2), dataset.root / instances_file(2))
    with pytest.raises(DatasetError) as caught:
        import_dataset(dataset.root, tmp_path / "new.duckdb")
    assert caught.value.errors == ["instances/instances_level2.jsonl: no worlds/world_level2.json for these instances"]


# --- import re-labels ------------------------------------------------------------------------

def test_a_new_ban_tag_relabels_the_instance(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "dataset", levels=(2,))
    instance = dataset.lines(2)[0]
    first = json.loads((exported / oracle_file(2)).read_text().splitlines()[0])["candidates"][0]
    world = dataset.world(2)
    thread = next(t for t in world["threads"] if t["project_id"] == instance["project_id"])
    thread["messages"].append({"message_id": f"{instance['project_id']}-m999", "author_id": world["people"][0]["person_id"],
                               "ts": thread["messages"][-1]["ts"], "text": "Keep this slot free, please.",
                               "tags": [{"type": "ban", "params": {"start": first["start"], "end": first["end"]}}]})
    dataset.put_world(2, world)
    report = import_dataset(dataset.root, tmp_path / "new.duckdb")
    assert [(lv.level, lv.gold_differs) for lv in report.levels] == [(2, 1)]
    new_gold = gold(tmp_path / "new.duckdb")[instance["instance_id"]]
    assert (first["start"], None) not in new_gold
    assert new_gold == reference_top(world, instance)


def _cancel_one_event_that_matters(world: dict, instances: list[dict]) -> int:
    """Cancel the first event (of the first instance where one exists) whose cancelling changes
    the reference answer; return that instance's index."""
    for index, instance in enumerate(instances):
        before = reference_top(world, instance)
        last_start = max(before)[0]          # candidates: events before the last gold start
        for event in world["events"]:
            if (event["person_id"] in instance["requirements"]["participants"] and event["status"] != "cancelled"
                    and instance["window"]["start"] <= event["end"] and event["start"] <= last_start):
                status, event["status"] = event["status"], "cancelled"
                if reference_top(world, instance) != before:
                    return index
                event["status"] = status
    pytest.fail("no single event changes an answer")


def test_cancelling_a_blocking_event_relabels_the_instance(exported, tmp_path):
    dataset = Dataset(exported, tmp_path / "dataset", levels=(1,))
    world, instances = dataset.world(1), dataset.lines(1)
    old_gold = {line["instance_id"]: [(c["start"], c["room_id"]) for c in line["candidates"]]
                for line in map(json.loads, (exported / oracle_file(1)).read_text().splitlines())}
    index = _cancel_one_event_that_matters(world, instances)
    instance = instances[index]
    dataset.put_world(1, world)
    report = import_dataset(dataset.root, tmp_path / "new.duckdb")
    new_gold = gold(tmp_path / "new.duckdb")[instance["instance_id"]]
    assert new_gold != old_gold[instance["instance_id"]] and new_gold == reference_top(world, instance)
    assert report.levels[0].gold_differs >= 1
    again = export_to(tmp_path / "new.duckdb", tmp_path / "again")
    line = json.loads((again / oracle_file(1)).read_text().splitlines()[index])
    assert [(c["start"], c["room_id"]) for c in line["candidates"]] == new_gold


# --- the command line ------------------------------------------------------------------------

def test_cli_export_then_import_keeps_and_counts_too_few_feasible(built, exported, tmp_path):
    """Through the CLI, over an existing database (refused without --force): an instance asking for more starts than are
    feasible is kept, printed and stored in build_stats."""
    result = runner.invoke(app, ["export", str(tmp_path / "out"), "--db", str(built)])
    assert result.exit_code == 0, result.output
    assert files(tmp_path / "out") == files(exported)
    one = Dataset(tmp_path / "out", tmp_path / "one", levels=(1,))
    n_feasible = json.loads((exported / oracle_file(1)).read_text().splitlines()[2])["n_feasible"]
    one.edit_instance(1, 2, lambda i: [i[k].update(n=n_feasible + 1) for k in ("given", "requirements")])
    path = tmp_path / "db" / "existing.duckdb"
    path.parent.mkdir()
    shutil.copy(built, path)
    refused = runner.invoke(app, ["import", str(one.root), "--db", str(path)])
    assert refused.exit_code == 1 and "already exists" in refused.output and "--force" in refused.output
    assert path.read_bytes() == built.read_bytes()
    result = runner.invoke(app, ["import", str(one.root), "--db", str(path), "--force"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Imported" in result.output
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in result.output.splitlines() if "world-l1" in line]
    assert rows == [["1", "world-l1", "8", "1", "1"]]     # level, world, instances, too few feasible, gold differs
    con = db.connect(path, read_only=True)                 # replaced, not added to
    assert con.execute("select level, count(*) from instances group by level").fetchall() == [(1, 8)]
    assert con.execute("select kept_too_few_feasible, instances_kept from build_stats").fetchall() == [(1, 8)]
    assert con.execute("select instance_id, n_feasible from oracle_summary where not has_enough_feasible"
                       ).fetchall() == [("L1-0003", n_feasible)]
    assert con.execute("select count(*) from oracle_answers where instance_id = 'L1-0003'").fetchall() == \
        [(n_feasible,)]
    con.close()
    assert [p.name for p in path.parent.iterdir()] == ["existing.duckdb"]


def test_cli_import_lists_the_problems_without_a_traceback(exported, target, tmp_path):
    dataset = Dataset(exported, tmp_path / "dataset", levels=(1,))
    dataset.edit_world(1, _set_event(5, person_id="p-999"))
    dataset.edit_instance(1, 4, lambda i: i["window"].update(end="2026-03-01"))
    path, digest, _ = target
    result = runner.invoke(app, ["import", str(dataset.root), "--db", str(path)])
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    assert 'worlds/world_level1.json: events[5].person_id: unknown person "p-999"' in result.output
    assert "instances/instances_level1.jsonl:5: window.end: 2026-03-01 is before window.start" in result.output
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_cli_export_needs_an_existing_database(tmp_path):
    result = runner.invoke(app, ["export", str(tmp_path / "out"), "--db", str(tmp_path / "missing.duckdb")])
    assert result.exit_code == 1 and "does not exist" in result.output
    result = runner.invoke(app, ["import", str(tmp_path / "nothing"), "--db", str(tmp_path / "new.duckdb")])
    assert result.exit_code == 1 and "not a directory" in result.output
