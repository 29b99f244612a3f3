"""`build.build`: deterministic, and every kept instance obeys the rules of docs/semantics.md and docs/dataset.md
(enough feasible starts, every required source matters, level-3 requirements come from the
latest thread tags, build stats add up)."""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import reference_oracle as ref
from evalkit import shared_build_with_results
from oracle_harness import fresh_warehouse
from mpcbench.dataset import rows
from mpcbench.sources import SOURCES
from mpcbench.warehouse import build, db
from mpcbench.warehouse.build import _clear_instances
from mpcbench.warehouse.partitions import _clear_candidate_threads
from mpcbench.warehouse.checks import run_checks
from mpcbench.world.candidates import room_need_finder, write_threads
from mpcbench.world.config import load_world_config, world_config_path
from mpcbench.world.generate import generate_world

WORLDS_DIR = Path(__file__).resolve().parent.parent / "worlds"
LEVELS = (1, 2, 3)
INSTANCES = 8          # the session's build of levels 1-3 (tests/test_splits.py, test_export_import.py)


@functools.cache
def table_hashes(path: Path, level: int | None = None) -> dict[str, str]:
    """Content hash of every table: its rows (those of one level, if given) ordered by all columns
    (once per process and file: the session's build is read by two tests)."""
    con = db.connect(path, read_only=True)
    try:
        tables = [name for (name,) in con.execute(
            "select table_name from duckdb_tables() order by table_name").fetchall()]
        hashes = {}
        for table in tables:
            digest = hashlib.sha256()
            columns = [c[0] for c in con.execute(f'describe "{table}"').fetchall()]
            digest.update(repr(columns).encode())
            where = "" if level is None else level_rows(table, columns, level)
            for row in con.execute(f'select * from "{table}" {where} order by all').fetchall():
                digest.update(repr(row).encode())
            hashes[table] = digest.hexdigest()
        return hashes
    finally:
        con.close()


def level_rows(table: str, columns: list[str], level: int) -> str:
    """The where clause that keeps a table's rows of one level (a table of no level: every row)."""
    if table == "build_info":   # the levels built, and each level's config and seed
        return f"where key not like '%level%' or key like '%level{level}%'"
    for key, owner in (("world_id", "worlds"), ("instance_id", "instances")):
        if key in columns:
            return f"where {key} in (select {key} from {owner} where level = {level})"
    return f"where level = {level}" if "level" in columns else ""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(path, what build.build returned), made once per test session (tests/evalkit.py) and shared
    with the modules that ask for the same build, so that the tests reading it can run on any
    pytest-xdist worker; read-only."""
    return shared_build_with_results(tmp_path_factory, LEVELS, INSTANCES)


@pytest.fixture
def con(built):
    connection = db.connect(built[0], read_only=True)
    yield connection
    connection.close()


def test_build_is_deterministic(built, tmp_path):
    """A second build, through the CLI in another process with another string-hash seed and the
    levels built in parallel worker processes, gives the same tables."""
    again = tmp_path / "b.duckdb"
    hash_seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    subprocess.run(
        [sys.executable, "-m", "mpcbench", "build", "--db", str(again), "--levels", ",".join(map(str, LEVELS)),
         "--instances", str(INSTANCES), "--worlds", str(WORLDS_DIR), "--jobs", "2"],
        check=True, env={**os.environ, "PYTHONHASHSEED": hash_seed}, cwd=WORLDS_DIR.parent,
        stdout=subprocess.DEVNULL)
    first, second = table_hashes(built[0]), table_hashes(again)
    assert first.keys() == second.keys()
    assert {"instances", "events", "message_tags", "build_stats", "build_info"} <= first.keys()
    assert [t for t in first if first[t] != second[t]] == []


def test_every_level_has_the_asked_instances(con):
    rows = con.execute("select level, count(*) from instances group by level order by level").fetchall()
    assert rows == [(level, INSTANCES) for level in LEVELS]


def test_kept_instances_have_enough_feasible_starts(con):
    rows = con.execute("select instance_id, n, n_feasible, has_enough_feasible from oracle_summary").fetchall()
    assert len(rows) == INSTANCES * len(LEVELS)
    assert [r for r in rows if not (r[3] and r[2] >= r[1])] == []
    answers = dict(con.execute("select instance_id, count(*) from oracle_answers group by all").fetchall())
    assert all(answers[instance_id] == n for instance_id, n, _, _ in rows)


def test_the_data_tests_pass(con):
    results = run_checks(con)
    assert len(results) >= 6 and [(r.name, r.sample) for r in results if r.failed] == []


def test_kept_instances_need_every_source_of_their_level(con):
    rows = con.execute("""
        select i.instance_id, ls.source, n.is_needed
        from instances as i
        join level_sources as ls on ls.level = i.level
        left join oracle_necessity as n on n.instance_id = i.instance_id and n.source = ls.source
        order by all""").fetchall()
    assert len(rows) == INSTANCES * (2 + 3 + 4)
    assert [r for r in rows if r[2] is not True] == []


def test_kept_instances_need_every_source_by_the_reference(con):
    """The same check, with the plain-Python oracle."""
    for level in LEVELS:
        insts = rows.dump_instances(con, level)
        world = rows.dump_world(con, insts[0]["world_id"])
        for instance in insts:
            assert ref.solve(world, instance).n_feasible >= instance["requirements"]["n"]
            needed = ref.necessity(world, instance)
            assert set(needed) == set(ref.LEVEL_SOURCES[level])
            assert all(needed.values()), (instance["instance_id"], needed)


def test_level3_requirements_resolve_from_the_latest_tags(con):
    insts = rows.dump_instances(con, 3)
    world = rows.dump_world(con, insts[0]["world_id"])
    for instance in insts:
        assert instance["given"] == {}
        assert ref.resolve_level3_requirements(world, instance) == instance["requirements"], instance["instance_id"]


def test_level3_requirement_revisions_exist(con):
    """The check above is not vacuous: some projects say a requirement twice, the later wins."""
    insts = rows.dump_instances(con, 3)
    world = rows.dump_world(con, insts[0]["world_id"])
    revised = 0
    for instance in insts:
        kinds = [tag["type"] for _, tag in ref.project_tags(world, instance)
                 if tag["type"] not in ref.CONSTRAINT_TAGS]
        revised += len(kinds) != len(set(kinds))
    assert revised > 0


@pytest.mark.parametrize("level", [1, 2])
def test_given_states_the_requirements(con, level):
    for instance in rows.dump_instances(con, level):
        req = instance["requirements"]
        assert instance["given"] == {k: req[k] for k in ("participants", "duration_min", "n", "policy_id")}
        assert req["tie_break"] is None and req["room"] is None
        assert (instance["project_id"] is None) == (level == 1)


def test_build_stats_add_up(con, built):
    columns = [c[0] for c in con.execute("describe build_stats").fetchall()]
    rows = [dict(zip(columns, r)) for r in con.execute("select * from build_stats order by level").fetchall()]
    assert [r["level"] for r in rows] == list(LEVELS)
    for r in rows:
        rejected = (r["rejected_calendar_not_needed"] + r["rejected_policy_not_needed"]
                    + r["rejected_threads_not_needed"] + r["rejected_rooms_not_needed"])
        assert r["candidates_sampled"] == r["instances_kept"] + r["discarded_too_few_feasible"] + rejected, r
        assert r["instances_wanted"] == r["instances_kept"] == INSTANCES, r
        if r["level"] < 3:
            assert r["rejected_rooms_not_needed"] == 0, r
        if r["level"] < 2:
            assert r["rejected_threads_not_needed"] == 0, r
    for result in built[1]:
        assert result.stats["candidates_sampled"] == next(
            r["candidates_sampled"] for r in rows if r["level"] == result.config.level)


def test_round_size_does_not_change_the_build(built, tmp_path, monkeypatch):
    """Candidates are judged in rounds (MAX_ROUND at most); a verdict depends on the candidate
    alone, so tiny rounds (fewer than the instances wanted: several a level) give the same tables,
    build stats included. On level 3, whose judging takes every path (threads, rooms, the second
    pass): a level is built from its own config and seed, whatever else is built."""
    monkeypatch.setattr(build, "MAX_ROUND", 5)
    small = tmp_path / "rounds.duckdb"
    build.build(small, (3,), instances=INSTANCES, worlds_dir=WORLDS_DIR)
    first, second = table_hashes(built[0], 3), table_hashes(small, 3)
    assert first.keys() == second.keys() and [t for t in first if first[t] != second[t]] == []
    assert first["instances"] != table_hashes(built[0], 2)["instances"]   # the filter keeps one level's rows


def test_the_python_source_order_names_the_sql_level_sources(con):
    from_sql = {source for (source,) in con.execute("select distinct source from level_sources").fetchall()}
    assert set(SOURCES) == from_sql and len(SOURCES) == len(from_sql)


def _judging_connection(level: int):
    """(config, world, a build's judging connection with the level's world loaded)."""
    config = load_world_config(world_config_path(level, WORLDS_DIR))
    world = generate_world(config)
    con = fresh_warehouse(keys=False)   # what db.create_warehouse(con, keys=False) makes (oracle_harness.py)
    rows.load_dataset(con, [world], [])
    return config, world, con


@pytest.mark.parametrize("level", [2, 3, 4])
def test_second_pass_reuse_equals_a_full_refresh(level):
    """The build's second pass keeps the first pass's violation masks but for the thread kinds
    (`threads_added`); recomputing every view from scratch on the same rows gives the same masks
    and verdicts."""
    config, world, con = _judging_connection(level)
    _, verdicts = build._sample_round(con, config, world, range(150),
                                      room_need_finder(world) if level >= 3 else None)
    con.execute("create temp table reused as select * from mat_int_slot_violation_masks")
    sources = dict(con.execute("select k.source, count(*) from reused join constraint_kinds as k "
                               "on reused.violated_mask & k.bit <> 0 group by all").fetchall())
    assert sources.get("threads", 0) > 0 and sources.get("calendar", 0) > 0   # both halves are there
    full = build.judge_candidates(con)                                       # every view recomputed
    assert full == {instance_id: verdicts[instance_id] for instance_id in full}
    for a, b in (("reused", "mat_int_slot_violation_masks"), ("mat_int_slot_violation_masks", "reused")):
        assert con.execute(f"select count(*) from (select * from {a} except all select * from {b})").fetchone()[0] == 0


@pytest.mark.parametrize("level", [2, 3, 4])
def test_tags_alone_get_the_verdicts_of_the_written_threads(level):
    """The build judges a candidate on its planned tags (`ThreadPlan.tag_threads`: no text, author
    or time) and writes the threads only for the kept: judged on the written threads, with their
    chatter, every candidate gets the same verdict."""
    config, world, con = _judging_connection(level)
    candidates, on_tags = build._sample_round(con, config, world, range(150),
                                              room_need_finder(world) if level >= 3 else None)
    assert "kept" in on_tags.values() and len(set(on_tags.values())) > 1
    planned = [c for c in candidates if c.plan]
    _clear_instances(con)
    _clear_candidate_threads(con, [c.project["project_id"] for c in planned])
    written = [write_threads(config, c.plan) for c in planned]
    assert all(m["text"] and m["ts"] for c in written for t in c.threads for m in t["messages"])
    rows.insert_rows(con, rows.thread_rows(world["world_id"], [c.project for c in written],
                                           [t for c in written for t in c.threads]))
    rows.insert_rows(con, rows.instance_rows([c.instance for c in written]))
    on_threads = build.judge_candidates(con)
    assert on_threads == {c.instance["instance_id"]: on_tags[c.instance["instance_id"]] for c in written}


def test_a_judging_connection_reuses_blocked_starts_only_while_they_cover_the_lengths_in_use():
    """A judging connection keeps the blocked starts from round to round (the world does not
    change); a round with a meeting length they do not cover gets the labels of a fresh warehouse."""
    config, world, judging = _judging_connection(2)
    drafts = [build.draft_candidate(config, world, k) for k in range(120)]
    first_length = drafts[0].instance["requirements"]["duration_min"]
    first = [d.instance for d in drafts if d.instance["requirements"]["duration_min"] == first_length]
    later = [d.instance for d in drafts if d.instance["requirements"]["duration_min"] != first_length]
    assert first and later

    def labels(con):
        return {table: con.execute(f"select * from {table} order by all").fetchall()
                for table in ("oracle_answers", "oracle_necessity")}

    for instances in (first, later):
        _clear_instances(judging)
        rows.insert_rows(judging, rows.instance_rows(instances))
        db.refresh(judging, judging=True)
    lengths = judging.execute("select count(distinct duration_minutes) from mat_int_blocked_starts").fetchone()[0]
    assert lengths > 1                                                   # recomputed for both rounds' lengths
    fresh = db.connect(None)
    db.create_warehouse(fresh)
    rows.load_dataset(fresh, [world], later)
    db.refresh(fresh)
    assert labels(judging) == labels(fresh) and labels(fresh)["oracle_answers"]
