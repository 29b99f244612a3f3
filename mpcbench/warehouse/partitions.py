"""The two tasks of a partitioned build, each run by a worker (a process of the local pool or a Ray
task) on its own DuckDB connection with the same SQL files as `mpcbench build --db`.

`judge_partition(config, size, part, staging, threads)` drafts candidates part*size ..
(part+1)*size - 1 of a level, judges them with the oracle exactly as the DuckDB build does
(`build._sample_round`), gives the kept ones their chatter and writes them with their labels
(oracle_answers, oracle_summary, oracle_necessity) into a staging DuckDB file, under provisional
ids. A candidate depends only on (seed, level, k), so a partition depends only on its index: not on
how many workers ran, nor when.

`finalize_partition(...)` turns a staging file into the partition's Parquet files once the
partitions before it are known: instance ids and positions continue the level's numbering (the
build keeps the first `wanted` kept candidates in index order, as the DuckDB build does), and a
partition past the last wanted instance is cut there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from . import db
from .build import _clear_instances, _sample_round
from .parts import LABEL_TABLES, part_path
from ..dataset.rows import insert_rows, instance_rows, load_dataset, sensitive_item_rows, thread_rows
from ..levels import level_spec
from ..world import privacy
from ..world.candidates import room_need_finder, write_threads
from ..world.config import WorldConfig
from ..world.generate import generate_world

INSTANCE_TABLES = ("instances", "requirements", "requirement_participants")
THREAD_TABLES = ("projects", "threads", "messages", "message_tags")


@dataclass
class JudgedPartition:
    level: int
    part: int
    verdicts: list[str]            # one per candidate of the partition, in index order
    kept_threads: list[int]        # per kept candidate, in index order: how many threads it has


_contexts: dict[str, tuple] = {}   # per worker process: a level's world and its judging connection


def level_context(config: WorldConfig, threads: int | None = None
                  ) -> tuple[dict, object, duckdb.DuckDBPyConnection, privacy.Calendars]:
    """(world, room needs, a connection with the warehouse and the world loaded, the calendars the
    candidates' private messages explain: `privacy.add_world_items`'s) for
    a config, made once per process: creating the views costs about a second. `threads`: DuckDB's
    threads (None: one per core; a pool worker, one of a worker per core, takes 1)."""
    key = repr((config, threads))
    if key not in _contexts:
        if len(_contexts) >= 3:
            close_contexts()
        world = generate_world(config)
        room_needs = room_need_finder(world) if level_spec(config.level).rooms else None
        con = db.connect(None)
        if threads:
            con.execute(f"set threads = {int(threads)}")
        db.create_warehouse(con, keys=False)
        load_dataset(con, [world], [])
        _contexts[key] = (world, room_needs, con, privacy.add_world_items(config, world)[1])
    return _contexts[key]


def close_contexts() -> None:
    for _, _, con, _ in _contexts.values():
        con.close()
    _contexts.clear()


def staging_file(staging: Path, level: int, part: int) -> Path:
    return Path(staging) / f"level{level}-part{part}.duckdb"


def _clear_candidate_threads(con: duckdb.DuckDBPyConnection, project_ids: list[str]) -> None:
    """Drop the candidates' projects, threads, messages and tags, keeping the world's: each table
    is recreated without them, not deleted from (see `build._clear_instances`)."""
    threads = "(select thread_id from threads where list_contains($ids, project_id))"
    for table, kept in (
        ("message_tags", f"message_id not in (select message_id from messages where thread_id in {threads})"),
        ("messages", f"thread_id not in {threads}"),
        ("threads", "not list_contains($ids, project_id)"),
        ("projects", "not list_contains($ids, project_id)"),
    ):
        con.execute(f"create or replace table {table} as select * from {table} where {kept} order by rowid",
                    {"ids": project_ids})


def judge_partition(config: WorldConfig, size: int, part: int, staging: Path,
                    threads: int | None = None) -> JudgedPartition:
    world, room_needs, con, calendars = level_context(config, threads)
    candidates, verdicts = _sample_round(con, config, world, range(part * size, (part + 1) * size), room_needs)
    codes = [verdicts[c.instance["instance_id"]] for c in candidates]
    kept = [c for c, code in zip(candidates, codes) if code == "kept"]
    path = staging_file(staging, config.level, part)
    path.unlink(missing_ok=True)           # a retried task starts over
    con.execute(f"attach {db.quote_literal(str(path))} as staging")
    try:
        for table in LABEL_TABLES:
            con.execute(f"create table staging.{table} as select * from {table} "
                        "where list_contains($ids, instance_id) order by all",
                        {"ids": [c.instance["instance_id"] for c in kept]})
        _clear_instances(con)
        _clear_candidate_threads(con, [c.project["project_id"] for c in candidates if c.project])
        db.release(con)
        if level_spec(config.level).threads:
            kept = [write_threads(config, c.planned()) for c in kept]   # judged on their tags alone (ThreadPlan)
        items: list[dict] = []
        for i, candidate in enumerate(kept):   # their sensitive items, as build_level gives them
            written, found = privacy.add_candidate_items(config, calendars, candidate.k, candidate.instance,
                                                         candidate.threads)
            kept[i] = replace(candidate, threads=written)
            items += found
        con.execute("use staging")
        db.create_tables(con)
        insert_rows(con, instance_rows([c.instance for c in kept]))
        insert_rows(con, thread_rows(world["world_id"], [c.project for c in kept if c.project],
                                     [t for c in kept for t in c.threads]))
        insert_rows(con, sensitive_item_rows(world["world_id"], items))
    finally:
        con.execute("use memory")
        con.execute("detach staging")
    return JudgedPartition(config.level, part, codes, [len(c.threads) for c in kept])


def finalize_partition(staging: Path, out_dir: Path, level: int, part: int, first_instance: int,
                       first_project: int, first_thread: int, take: int) -> dict[str, int]:
    """Write partition `part` of a level from its staging file: its first `take` kept instances,
    numbered from `first_instance` (0-based), their projects and threads positioned from
    `first_project` and `first_thread`. Returns the rows per written file; removes the staging file."""
    path = staging_file(staging, level, part)
    con = duckdb.connect(str(path), read_only=True)
    counts = {}
    try:
        con.execute("""
            create temp table id_map as
            select instance_id as old_id, printf('L%d-%04d', level, $first + position + 1) as new_id,
                   $first + position as new_position, project_id
            from instances where position < $take""", {"first": first_instance, "take": take})
        per_instance = {"instances": "replace (m.new_id as instance_id, m.new_position as position)"}
        selects = {table: f"select t.* {per_instance.get(table, 'replace (m.new_id as instance_id)')} "
                          "from {0} as t join id_map as m on m.old_id = t.instance_id order by m.new_position, t.rowid"
                   for table in (*INSTANCE_TABLES, *LABEL_TABLES)}
        kept_threads = "(select t.thread_id from threads as t join id_map as m using (project_id))"
        selects.update({
            "projects": f"select t.* replace ({first_project} + t.position as position) from projects as t "
                        "where t.project_id in (select project_id from id_map) order by t.position",
            "threads": f"select t.* replace ({first_thread} + t.position as position) from threads as t "
                       "where t.project_id in (select project_id from id_map) order by t.position",
            "messages": f"select t.* from messages as t where t.thread_id in {kept_threads} order by t.rowid",
            "message_tags": "select t.* from message_tags as t where t.message_id in (select message_id from "
                            f"messages where thread_id in {kept_threads}) order by t.rowid",
            "sensitive_items": "select t.* from sensitive_items as t where t.source_table = 'messages' and "
                               "t.source_id in (select message_id from messages where thread_id in "
                               f"{kept_threads}) order by t.rowid",
        })
        for table, sql in selects.items():
            relative = part_path(table, level, part)
            target = Path(out_dir) / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            counts[relative] = db.value(con.execute(
                f"copy ({sql.format(table)}) to {db.quote_literal(str(target))} (format parquet)"))
    finally:
        con.close()
    path.unlink()
    return counts


def write_world(world: dict, out_dir: Path) -> dict[str, int]:
    """A level's world rows (the fixed world: people, events, policies, handbook, rooms, and the
    noise projects and threads) into part 0 of every raw table, as `world.parquet`."""
    con = db.connect(None)
    counts = {}
    try:
        db.create_tables(con)
        load_dataset(con, [world], [])
        for table in db.RAW_TABLES:
            relative = part_path(table, world["level"], 0, "world")
            target = Path(out_dir) / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            counts[relative] = db.value(con.execute(f"copy (select * from {table} order by rowid) to "
                                                    f"{db.quote_literal(str(target))} (format parquet)"))
    finally:
        con.close()
    return counts
