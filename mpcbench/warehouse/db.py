r"""The warehouse: open the DuckDB file, create the raw tables and the SQL views from `sql/`.

    >>> con = connect(None)          # in memory
    >>> create_warehouse(con)
    >>> con.execute("select count(*) from oracle_answers").fetchone()
    (0,)

SQL lives in files; a file's name is the name of the view it defines. Layers only read earlier
layers, and inside a layer the views are created in dependency order (found with sqlglot). A
view file's leading comment is its description and `-- column: name  text` lines note its
columns; both become DuckDB comments (`duckdb_views()`, `duckdb_columns()`):

    >>> view_docs("-- Gold starts.\n-- column: rank  1 = the earliest.\nselect 1 as rank")
    ('Gold starts.', {'rank': '1 = the earliest.'})

The grading layer, `sql/40_grading/`, is created on a scoring connection only
(`mpcbench/grading/layer.py`); a file of a layer whose name starts with a digit is not a view
(the grading layer's `00_inputs.sql` declares its input tables).
"""

from __future__ import annotations

import graphlib
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from ..errors import UserError
from ..paths import SQL_DIR
from . import parts
from .generated import GENERATED_VIEWS, union_all, violation_views

DEFAULT_DB = Path("build/mpcbench.duckdb")
TABLE_LAYER = "00_raw"
SEED_LAYER = "05_seeds"          # tables with their rows: the constraint-kind registry, level_sources
VIEW_LAYERS = ("10_staging", "20_intermediate", "30_oracle")


def connect(path: Path | str | None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    if path is None:
        return duckdb.connect(":memory:")
    path = Path(path)
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    return duckdb.connect(str(path), read_only=read_only)


def open_existing(path: Path | str, episodes: bool = False) -> duckdb.DuckDBPyConnection:
    """A read-only connection to a warehouse that must exist (a directory: a partitioned Parquet
    dataset, `open_partitioned`); a UserError in one line otherwise (no such file, not a DuckDB
    file, locked by a writer). `episodes`, for a harness whose parallelism is its episodes (eval,
    MCP, the rollout pool): one DuckDB thread (docs/performance.md, "One DuckDB thread...")."""
    path = Path(path)
    if path.is_dir():
        con = open_partitioned(path)
    elif not path.is_file():
        raise UserError(f"{path} does not exist; run `mpcbench build` first (or pass --db)")
    else:
        try:
            con = connect(path, read_only=True)
        except duckdb.Error as e:
            raise UserError(f"cannot open {path}: {str(e).splitlines()[0]}") from None
    if episodes:
        con.execute("set threads = 1")
    return con


def _parquet_view(con: duckdb.DuckDBPyConnection, name: str, glob: str) -> None:
    """Replace the table or view `name` by a view over Parquet files with its columns and types
    (the hive keys `level` and `part` become columns only where `name` has them)."""
    columns = [(c[0], c[1]) for c in con.execute(f"describe {name}").fetchall()]
    kind = value(con.execute("select table_type from information_schema.tables where table_name = $1", [name]))
    con.execute(f"drop {'view' if kind == 'VIEW' else 'table'} {name}")
    selects = ", ".join(f"cast({c} as {t}) as {c}" for c, t in columns)
    con.execute(f"create view {name} as select {selects} from read_parquet({quote_literal(glob)}, hive_partitioning = true)")


def open_partitioned(root: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory connection that reads a partitioned Parquet dataset (`parts`) after checking
    its manifest: the raw tables and the labels (oracle_answers, oracle_summary, oracle_necessity)
    are views over the files, every other view is computed from them when queried."""
    parts.check_dataset(root)
    con = connect(None)
    create_tables(con)
    create_views(con)     # the materialized ones as empty tables: cheap to bind the views after them
    for table in (*RAW_TABLES, *parts.META_TABLES, *parts.LABEL_TABLES):
        _parquet_view(con, table, parts.table_glob(root, table))
    definitions = view_definitions()
    for name in reversed(MATERIALIZED):   # the last first: each binds over tables (in order, 1.4 s of 1.5)
        if name not in parts.LABEL_TABLES:
            con.execute(f"create or replace view {name} as\n{definitions[name]}")
            document(con, name, definitions[name])
    for name in MATERIALIZED:
        con.execute(f"drop table mat_{name}")
    return con


def referenced_tables(sql: str) -> set[str]:
    """Names of the tables and views a query reads (CTE names included)."""
    return {t.name for t in sqlglot.parse_one(sql, read="duckdb").find_all(exp.Table)}


@cache
def layer_views(layer: str) -> tuple[tuple[str, str], ...]:
    """(view name, SQL) of every view in a layer, each after the views it reads; a generated
    view (GENERATED_VIEWS) gets its SQL from the layer's files."""
    sources = {p.stem: p.read_text() for p in sorted((SQL_DIR / layer).glob("[a-z]*.sql"))}
    for name, make in GENERATED_VIEWS.get(layer, {}).items():
        sources[name] = make(list(sources))
    graph = {name: referenced_tables(sql) & sources.keys() - {name} for name, sql in sources.items()}
    order = graphlib.TopologicalSorter(graph).static_order()
    return tuple((name, sources[name]) for name in order)


def view_definitions() -> dict[str, str]:
    """The SQL of every view of VIEW_LAYERS, by name, in creation order."""
    return {name: sql for layer in VIEW_LAYERS for name, sql in layer_views(layer)}


_DOC_COLUMN = re.compile(r"^column:\s*([a-z_][a-z0-9_]*)\s+(.*)$")


def view_docs(sql: str) -> tuple[str, dict[str, str]]:
    """A view file's description (its leading comment) and its column notes (`-- column: name
    text`); a comment line that is neither continues the entry above it."""
    entries = [["", ""]]
    for line in sql.splitlines():
        if not line.startswith("--"):
            break
        text = line[2:].strip()
        if column := _DOC_COLUMN.match(text):
            entries.append([column.group(1), column.group(2)])
        elif text:
            entries[-1][1] = f"{entries[-1][1]} {text}".strip()
    description, *columns = entries
    return description[1], {name: text for name, text in columns}


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def document(con: duckdb.DuckDBPyConnection, name: str, sql: str) -> None:
    """Attach the view file's description and column notes to the view as DuckDB comments
    (COMMENT ON takes no bound parameter: the text, from our own files, is quoted here)."""
    description, columns = view_docs(sql)
    if description:
        con.execute(f"comment on view {name} is {quote_literal(description)}")
    for column, text in columns.items():
        con.execute(f"comment on column {name}.{column} is {quote_literal(text)}")


def create_tables(con: duckdb.DuckDBPyConnection, keys: bool = True) -> None:
    """The raw tables, empty, and the seed tables with their rows. `keys=False`: the raw tables
    without their primary keys, for a build's judging connection, where candidates come and go
    by the thousand (maintaining the keys' indexes costs 5-10 % of a level-3 partition) and
    the rows kept are written to keyed tables anyway (the warehouse, a partition's staging)."""
    for layer in (TABLE_LAYER, SEED_LAYER):
        for path in sorted((SQL_DIR / layer).glob("*.sql")):
            con.execute(path.read_text())
    if not keys:
        for table in RAW_TABLES:
            con.execute(f"create table unkeyed as select * from {table} limit 0; drop table {table}; "
                        f"alter table unkeyed rename to {table}")


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """Every view of VIEW_LAYERS over the empty raw tables; those of MATERIALIZED as empty tables (`where
    false`: their joins are not planned) until `refresh`, so that the views after them bind against a
    table: DuckDB binds a view's whole tree (with every view live the oracle's deepest take seconds)."""
    for layer in VIEW_LAYERS:
        for name, sql in layer_views(layer):
            if name in MATERIALIZED:
                materialize(con, name, f"select * from (\n{sql}\n) where false", documented=False)
            else:
                con.execute(f"create or replace view {name} as\n{sql}")
            document(con, name, sql)


# Views computed once into a table (`mat_<name>`) by `refresh`, as dbt materializes a model:
# several later views read each of them, and DuckDB would otherwise recompute them every time
# (the working-hours violations: every scoring call reads them, 0.2 s on the default build;
# the recurring series' occurrences: each busy-intervals call reads them, half its time; the rooms
# that fit each level-3 request: the room checks of every scoring call read them; the gold answers,
# a window over every instance's candidates: every scoring call reads them, a third of its checks).
MATERIALIZED = ("stg_series_occurrences", "int_blocked_starts", "int_framed_grid", "int_violations_working_hours", "int_framed_violations",
                "int_slot_violation_masks", "int_feasible_starts", "int_scenario_added_starts", "int_room_static_fits",
                "int_room_choice", "int_candidates", "oracle_answers", "oracle_summary", "oracle_necessity")


def materialize(con: duckdb.DuckDBPyConnection, name: str, sql: str, temp: bool = False,
                documented: bool = True) -> None:
    """Compute the view's SQL into the table `mat_<name>` and make the view read it."""
    kind = "temp " if temp else ""
    con.execute(f"create or replace {kind}table mat_{name} as\n{sql}")
    con.execute(f"create or replace {kind}view {name} as select * from mat_{name}")
    if documented:
        document(con, name, sql)


def refresh(con: duckdb.DuckDBPyConnection, until: str | None = None, judging: bool = False,
            threads_added: bool = False) -> None:
    """Recompute the materialized views from the raw tables (after any change to them); with
    `until`, stop after that one (the views after it are left out of date). The views must
    exist (create_views); a materialized view becomes `select * from mat_<name>`.

    `judging`, for a build's judging connection (one world, candidates coming and going), which
    needs only the labels: every violation row (int_framed_violations, a row per candidate,
    constraint and source row, which grading and explanations read) is not stored, only each
    candidate's mask of the kinds it breaks (int_slot_violation_masks); int_framed_violations stays
    the union it is defined as, and so do the working-hours violations and the gold answers (no
    verdict reads them). The blocked starts, which depend on the world and the meeting lengths and
    margins in use, stand while they cover those of the instances loaded (`_refresh_blocked_starts`).

    `threads_added` (judging only): since the last refresh the only changes were instances removed
    and the others given threads and room needs (the build's second pass). The masks' bits of the
    kinds that do not come from threads then stand, and are kept (those of the instances left)
    instead of recomputed."""
    if threads_added and not judging:
        raise ValueError("threads_added updates a judging connection's violation masks: pass judging=True")
    definitions = view_definitions()
    for name in MATERIALIZED:
        if judging and name == "int_blocked_starts":
            _refresh_blocked_starts(con, definitions)
        elif judging and name in ("int_violations_working_hours", "int_framed_violations", "oracle_answers"):
            con.execute(f"create or replace view {name} as\n{definitions[name]}")
        elif threads_added and name == "int_slot_violation_masks":
            _recompute_thread_masks(con)
        else:
            materialize(con, name, definitions[name])
        if name == until:
            return


_COVERED_MARGINS = "blocked_margins_covered"   # a judging connection's: what mat_int_blocked_starts holds


def _refresh_blocked_starts(con: duckdb.DuckDBPyConnection, definitions: dict[str, str]) -> None:
    """On a judging connection, whose world does not change: recompute the blocked starts only when
    the instances loaded use a (world, owner kind, meeting length, margin) they do not cover, and
    then for those covered before too (blocked starts of lengths and margins no instance uses are
    never joined). After the first few rounds of a level every combination is covered."""
    margins = definitions["int_blocked_margins"]
    covered = value(con.execute("select count(*) from duckdb_tables() where table_name = $1 and temporary",
                                [_COVERED_MARGINS]))
    if covered:
        missing = value(con.execute(f"select count(*) from (({margins}) except select * from {_COVERED_MARGINS})"))
        if not missing:
            return
        margins = f"({margins}) union select * from {_COVERED_MARGINS}"
    con.execute(f"create or replace temp table {_COVERED_MARGINS} as {margins}")
    materialize(con, "int_blocked_starts",
                definitions["int_blocked_starts"].replace("int_blocked_margins", _COVERED_MARGINS))


def _recompute_thread_masks(con: duckdb.DuckDBPyConnection) -> None:
    """`mat_int_slot_violation_masks` anew from its rows of the instances still loaded, without
    the bits of the kinds that come from threads, and the thread kinds' violations."""
    thread_views = violation_views([name for name, _ in layer_views("20_intermediate")], "threads")
    con.execute(f"""
        create or replace table mat_int_slot_violation_masks as
        with thread_bits as (
            select bit_or(bit) as bits from constraint_kinds where source = 'threads'
        ),

        bits as (
            select m.instance_id, m.starts_at, m.violated_mask & ~t.bits as violated_mask
            from mat_int_slot_violation_masks as m, thread_bits as t
            where m.instance_id in (select instance_id from instances)
            union all
            select v.instance_id, v.starts_at, k.bit
            from ({union_all(thread_views)}) as v
            join constraint_kinds as k on k.constraint_kind = v.constraint_kind
        )

        select instance_id, starts_at, bit_or(violated_mask) as violated_mask
        from bits
        group by instance_id, starts_at
        having bit_or(violated_mask) <> 0
    """)


def release(con: duckdb.DuckDBPyConnection) -> None:
    """Empty a judging connection's materialized views (until the next `refresh`) but the blocked
    starts, which the next refresh reuses: a partitioned build's worker keeps a connection per
    level, and a level-4 partition's tables alone hold hundreds of MB."""
    for name in MATERIALIZED:
        if name != "int_blocked_starts":
            empty_table(con, f"mat_{name}")


def empty_table(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Recreate a table without rows (and without constraints: for a judging connection's keyless
    tables and the `mat_*` tables). Not `delete from`: DuckDB keeps deleted rows in memory."""
    con.execute(f"create or replace table {table} as select * from {table} limit 0")


def create_warehouse(con: duckdb.DuckDBPyConnection, keys: bool = True) -> None:
    """The raw tables, empty, the seed tables and every view; the materialized views are computed as
    they are created (`create_views`), so they need no `refresh` until the raw tables change."""
    create_tables(con, keys)
    create_views(con)


RAW_TABLES = ("worlds", "people", "events", "policies", "policy_rules", "policy_docs", "projects", "threads", "messages",
              "message_tags", "rooms", "room_bookings", "instances", "requirements", "requirement_participants",
              "person_hours", "event_series", "event_series_exceptions", "sensitive_items")


def read_only_file(con: duckdb.DuckDBPyConnection) -> tuple | None:
    """The identity of a read-only connection's file and its write-ahead log (path, inode, size,
    mtime: a build replaces its file whole), to key what is computed from its rows once per process."""
    path, read_only = con.execute("select path, readonly from duckdb_databases() "
                                  "where database_name = current_database()").fetchone() or (None, False)
    if not (path and read_only) or (main := _stat(path)) is None:
        return None
    return (path, main, _stat(f"{path}.wal"))


def _stat(path: str) -> tuple | None:
    found = os.stat(path) if os.path.exists(path) else None
    return None if found is None else (found.st_ino, found.st_size, found.st_mtime_ns)


def query(con: duckdb.DuckDBPyConnection, name: str, **params) -> duckdb.DuckDBPyConnection:
    """Run the named query file `sql/queries/<name>.sql` with bound parameters."""
    return con.execute((SQL_DIR / "queries" / f"{name}.sql").read_text(), params)


def value(cursor: duckdb.DuckDBPyConnection) -> Any:
    """The first column of the one row a statement returns (an aggregate, a COPY's row count).

    >>> value(connect(None).execute("select count(*) from range(3)"))
    3
    """
    row = cursor.fetchone()
    if row is None:
        raise LookupError("the statement returned no row")
    return row[0]


def records(cursor: duckdb.DuckDBPyConnection) -> list[dict]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
