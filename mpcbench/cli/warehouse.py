"""`mpcbench build`, `check`, `info`, `sql`, `explain` and `version`: the commands on the warehouse."""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path
from typing import Annotated

import duckdb
import sqlglot
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from sqlglot import exp

from .. import __version__
from ..dataset.version import DATASET_VERSION, KEY as DATASET_VERSION_KEY, info_dataset_version
from ..errors import UserError
from ..levels import LEVELS
from ..warehouse import db
from ..warehouse.build import BuildError, build
from ..warehouse.checks import run_checks
from ..warehouse.explain import SHOWN_REJECTED, explain as explain_instance
from ..warehouse.scale import DEFAULT_PARTITION_SIZE, build_partitioned
from ..world.config import ConfigError
from ..world.split import PRIVATE_SPLITS, SECRET_ENV
from .query_output import FORMATS, rows_text
from .common import DbOption, console, err, fail, open_db, parse_levels


def build_command(
    ctx: typer.Context,
    db_path: DbOption = db.DEFAULT_DB,
    levels: Annotated[str, typer.Option(help="Levels to build, e.g. 1,2,3.")] = ",".join(map(str, LEVELS)),
    instances: Annotated[int | None, typer.Option(min=1, help="Instances per level (default: each world config's).")] = None,
    worlds: Annotated[Path | None, typer.Option(help="Directory of world_level{1,2,3,4}.toml configs.")] = None,
    jobs: Annotated[int | None, typer.Option(min=1, help="Levels built at once, in worker processes (default: "
                                                         "one per core). The result does not depend on it.")] = None,
    split: Annotated[str, typer.Option(help="dev: the public split from the configs; train: a public split "
                                            "from seeds derived apart from dev's and test's (train on it); test: "
                                            "a private split from --secret-seed (report on it); ood: test's "
                                            "instances in wording no public split uses (report on it beside "
                                            "test; docs/ood.md). Same distribution, other instances.")] = "dev",
    secret_seed: Annotated[str | None, typer.Option(
        envvar=SECRET_ENV, show_envvar=True, show_default=False,
        help="The secret of --split test or ood; never written anywhere (the build records its hash).")] = None,
    check_after: Annotated[bool, typer.Option("--check", help="Then run the data tests (as `mpcbench check`).")] = False,
    out: Annotated[Path | None, typer.Option(help="Write a partitioned Parquet dataset into this directory "
                                                  "instead of the DuckDB file (for large builds).")] = None,
    engine: Annotated[str, typer.Option(help="With --out: local (processes on this machine) or ray (Ray tasks; "
                                             "pip install -e '.[scale]'). The result does not depend on it.")] = "local",
    address: Annotated[str | None, typer.Option(help="With --engine ray: the cluster to use (default: start a "
                                                     "local one with --jobs CPUs).")] = None,
    partition_size: Annotated[int, typer.Option(min=1, help="With --out: candidates per partition. The result "
                                                            "does not depend on it.")] = DEFAULT_PARTITION_SIZE,
) -> None:
    """Generate the worlds and instances, label them with the SQL oracle, write the DuckDB file (or,
    with --out, a partitioned Parquet dataset that every command reads with --db DIR)."""
    chosen = parse_levels(levels)
    if split not in PRIVATE_SPLITS and secret_seed and os.environ.get(SECRET_ENV) != secret_seed:
        fail(f"--secret-seed makes a private split: add --split test or --split ood ({split} is a public split)", 2)
    given = {name for name in ("engine", "address", "partition_size", "db_path")
             if (source := ctx.get_parameter_source(name)) is not None and source.name == "COMMANDLINE"}
    if out is None and given & {"engine", "address", "partition_size"}:
        fail(f"--{sorted(given - {'db_path'})[0].replace('_', '-')} is for a Parquet dataset: add --out DIR", 2)
    if out is not None and "db_path" in given:
        fail("give --db (a DuckDB file) or --out (a Parquet dataset directory), not both", 2)
    target = out if out is not None else db_path
    started = dt.datetime.now()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal) as bar:
        tasks = {level: bar.add_task(f"level {level}", total=None) for level in chosen}

        def progress(level: int, stage: str, done: int, total: int) -> None:
            bar.update(tasks[level], description=f"level {level}: {stage}", completed=done, total=total)

        try:
            if out is None:
                results = build(db_path, chosen, instances, worlds, progress, jobs or os.cpu_count() or 1,
                                split, secret_seed)
                stats = [{"level": r.config.level, "instances": len(r.instances), **r.stats} for r in results]
            else:
                stats = build_partitioned(out, chosen, instances, worlds, progress, jobs or os.cpu_count() or 1,
                                          split, secret_seed, engine, address, partition_size)
        except (ConfigError, BuildError, UserError) as e:
            fail(str(e))
    seconds = (dt.datetime.now() - started).total_seconds()
    table = Table(title=f"Built {target} ({split} split) in {seconds:.1f} s")
    for column in ("level", "instances", "candidates", "too few feasible", "calendar not needed",
                   "policy not needed", "threads not needed", "rooms not needed"):
        table.add_column(column, justify="right")
    for s in stats:
        table.add_row(*(str(s[key]) for key in ("level", "instances", "candidates_sampled", "too_few_feasible",
                                                 "calendar_not_needed", "policy_not_needed", "threads_not_needed",
                                                 "rooms_not_needed")))
    console.print(table)
    where = "" if target == db.DEFAULT_DB else f" --db {target}"
    console.print(f"Explore it: mpcbench sql \"select * from oracle_answers limit 10\"{where}  (or a prompt: "
                  f"mpcbench sql --interactive{where})", markup=False, highlight=False, soft_wrap=True)
    if check_after:
        check(target)


def check(db_path: DbOption = db.DEFAULT_DB) -> None:
    """Run the data tests (sql/checks/*.sql: invariants that must return no row); exit 1 if one fails."""
    con = open_db(db_path)
    try:
        results = run_checks(con)
    finally:
        con.close()
    for r in results:
        if r.failed:
            console.print(f"[bold red]FAIL[/] {r.name}: {r.n_rows} row{'s' if r.n_rows != 1 else ''}. "
                          f"{r.description}", highlight=False)
            console.print(f"     first: {r.sample}", markup=False, highlight=False)
        else:
            console.print(f"ok   {r.name}", highlight=False)
    failed = sum(r.failed for r in results)
    if failed:
        fail(f"{failed} of {len(results)} data tests failed on {db_path}")
    console.print(f"{len(results)} data tests passed on {db_path}", highlight=False)


def print_rows(title: str, cursor: duckdb.DuckDBPyConnection) -> None:
    table = Table(title=title)
    for d in cursor.description:
        table.add_column(d[0])
    for row in cursor.fetchall():
        table.add_row(*("" if v is None else str(v) for v in row))
    console.print(table)


def print_per_level(title: str, cursor: duckdb.DuckDBPyConnection) -> None:
    """A table with one row per level, printed turned: one line per column, one column per level,
    so that no header is cut however narrow the terminal."""
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    table = Table(title=title)
    table.add_column("", no_wrap=True)
    for row in rows:
        table.add_column(f"level {row[names.index('level')]}", justify="right", no_wrap=True)
    for i, name in enumerate(names):
        if name != "level":
            table.add_row(name, *("" if row[i] is None else str(row[i]) for row in rows))
    console.print(table)


def info(db_path: DbOption = db.DEFAULT_DB) -> None:
    """Counts per level, how the build sampled and discarded instances, and what built it."""
    con = open_db(db_path)
    print_per_level("Levels", db.query(con, "level_counts"))
    print_per_level("Build stats (discards and necessity rejections)",
                    con.execute("select * from build_stats order by level"))
    print_rows("Thread tags that bind (of the instances whose threads say the kind: the share where it "
               "changes the answer, and where it rejects a start that breaks nothing else)",
               db.query(con, "tag_binding_shares"))
    print_rows("Build info", con.execute("select key, value from build_info order by key"))
    console.print(dataset_version_line(dict(con.execute("select key, value from build_info").fetchall())),
                  highlight=False)


def dataset_version_line(info: dict[str, str]) -> str:
    """`Dataset version: N`, saying so when the build records none (it is then version 1) or when
    this package builds another."""
    version = info_dataset_version(info)
    notes = [] if DATASET_VERSION_KEY in info else ["not recorded: built before dataset versions were"]
    if version != DATASET_VERSION:
        notes.append(f"this mpcbench builds version {DATASET_VERSION}")
    return f"Dataset version: {version}" + (f" ({'; '.join(notes)})" if notes else "")


def check_read_only(query: str) -> None:
    """One SELECT (or WITH ... SELECT) statement; a UserError (exit status 2) otherwise."""
    try:
        statements = [s for s in sqlglot.parse(query, read="duckdb") if s is not None]
    except sqlglot.errors.ParseError as e:
        raise UserError(f"not valid SQL: {e}", 2) from None
    if len(statements) != 1:
        raise UserError(f"give exactly one statement (got {len(statements)})", 2)
    statement = statements[0]
    if not isinstance(statement, (exp.Select, exp.SetOperation)) and not (
            isinstance(statement, exp.With) and isinstance(statement.this, exp.Select)):
        raise UserError(f"only SELECT (or WITH ... SELECT) queries are allowed, not {statement.key.upper()}", 2)


def show_query(con: duckdb.DuckDBPyConnection, query: str, max_rows: int | None, params: dict | None = None,
               fmt: str = "box") -> None:
    """Print one read-only query's rows: a box table of the first `max_rows` (default 50), saying
    so when there are more, or every row (up to `max_rows` if given) whole in `fmt` (csv, json,
    markdown)."""
    check_read_only(query)
    try:
        relation = con.sql(query, params=params)
        if relation is None:
            raise UserError("the statement returns no rows: give a SELECT", 2)
        if fmt != "box":
            rows = (relation if max_rows is None else relation.limit(max_rows)).fetchall()
            typer.echo(rows_text(relation.columns, rows, fmt))
            return
        max_rows = max_rows or SQL_ROWS
        relation.limit(max_rows).show(max_rows=max_rows, max_width=console.width)
        more = bool(relation.limit(1, offset=max_rows).fetchall())
    except duckdb.Error as e:
        raise UserError(f"query failed: {str(e).splitlines()[0]}", 2) from None
    if more:
        console.print(f"(the first {max_rows} rows; --max-rows N shows more, --format csv|json|markdown every one "
                      "whole)", markup=False, highlight=False)


SQL_ROWS = 50   # a box table's rows by default


SHELL_HELP = ("Read-only SQL over {db}: end a statement with ';'. .tables lists the tables and views, "
              ".schema NAME shows one's columns, .quit (or Ctrl-D) leaves.")


SHELL_TABLES = "select table_name, table_type from information_schema.tables order by table_name"
SHELL_SCHEMA = ("select column_name, data_type from information_schema.columns where table_name = $name "
                "order by ordinal_position")


def shell(con: duckdb.DuckDBPyConnection, db_path: Path, max_rows: int | None, fmt: str = "box") -> None:
    """A small read-only SQL prompt over the warehouse (for when no duckdb CLI of the same version
    is at hand)."""
    console.print(SHELL_HELP.format(db=db_path), markup=False, highlight=False)
    lines: list[str] = []
    while True:
        try:
            line = input("...> " if lines else "sql> ")
        except EOFError:
            break
        command = line.strip()
        if not lines and command in (".quit", ".exit"):
            break
        if not lines and command.startswith("."):
            word, _, name = command.partition(" ")
            try:
                if word == ".tables":
                    show_query(con, SHELL_TABLES, 10_000)
                elif word == ".schema" and name.strip():
                    show_query(con, SHELL_SCHEMA, 10_000, {"name": name.strip()})
                else:
                    console.print(SHELL_HELP.format(db=db_path), markup=False, highlight=False)
            except UserError as e:
                err.print(f"error: {e}", markup=False, highlight=False, soft_wrap=True)
            continue
        lines.append(line)
        if lines[-1].rstrip().endswith(";"):
            statement, lines = "\n".join(lines).rstrip().rstrip(";"), []
            try:
                show_query(con, statement, max_rows, fmt=fmt)
            except UserError as e:
                err.print(f"error: {e}", markup=False, highlight=False, soft_wrap=True)


def sql(
    query: Annotated[str | None, typer.Argument(help="One SELECT statement.")] = None,
    db_path: DbOption = db.DEFAULT_DB,
    max_rows: Annotated[int | None, typer.Option(min=1, help=f"Rows to print at most (default: {SQL_ROWS} in a box "
                                                              "table, every row in the other formats).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="box (a table for the terminal; wide values shortened), "
                                                      "or every value whole: csv, json (an array of objects) or "
                                                      "markdown.")] = "box",
    interactive: Annotated[bool, typer.Option("--interactive", "-i", help="A read-only SQL prompt over the "
                                                                          "warehouse.")] = False,
) -> None:
    """Run one read-only query on the warehouse and print the result as a table (or, with
    --interactive, a prompt for many)."""
    if interactive == (query is not None):
        fail("give one SELECT statement, or --interactive for a prompt", 2)
    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}", 2)
    if query is not None:
        check_read_only(query)
    con = open_db(db_path)
    if interactive:
        shell(con, db_path, max_rows, fmt)
    elif query is not None:
        show_query(con, query, max_rows, fmt=fmt)


def explain(
    instance_id: Annotated[str, typer.Argument(help="e.g. L2-0007")],
    start: Annotated[list[str] | None, typer.Option(help="A start to explain (YYYY-MM-DDTHH:MM); repeatable.")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="List every rejected in-hours start, not the first "
                                                          f"{SHOWN_REJECTED}.")] = False,
    db_path: DbOption = db.DEFAULT_DB,
) -> None:
    """Show an instance's prompt, requirements and gold answer, and every constraint that kills a start;
    with --start, what is true of that start (outside the window, off the grid, what it breaks, its rank)."""
    try:
        starts = [dt.datetime.fromisoformat(s) for s in start or []]
    except ValueError as e:
        fail(f"--start must look like 2026-03-03T09:15 ({e})", 2)
    con = open_db(db_path)
    result = explain_instance(con, instance_id, starts, limit=None if show_all else SHOWN_REJECTED)
    inst = result["instance"]
    console.rule(f"{inst['instance_id']} (level {inst['level']}, {inst['world_id']})")
    console.print(inst["prompt"], markup=False)
    console.print(f"\nnow {inst['now']}   window {inst['window_start']} .. {inst['window_end']}")
    rooms = (f", tie_break {inst['tie_break']}, room min_capacity={inst['room_min_capacity']} "
             f"features={inst['room_features']} building={inst['room_building']}" if inst["level"] >= 3 else "")
    console.print(f"requirements: participants {inst['participants']}, {inst['duration_minutes']} min, "
                  f"N={inst['n']}, policy {inst['policy_id']}{rooms}", markup=False)
    console.print(f"feasible starts: {inst['n_feasible']}")
    gold = Table(title="Gold answer")
    for column in ("rank", "start", "end", "room_id"):
        gold.add_column(column)
    for g in result["gold"]:
        gold.add_row(str(g["rank"]), f"{g['starts_at']:%Y-%m-%dT%H:%M}", f"{g['ends_at']:%Y-%m-%dT%H:%M}",
                      g["room_id"] or "")
    console.print(gold)
    if start:
        title = "Violations"
    else:
        shown, total = len(result["starts"]), result["n_rejected"]
        which = (f"all {total} rejected in-hours starts" if shown == total else
                 f"the first {shown} of {total} rejected in-hours starts (--all lists every one)")
        title = f"Why these starts are not in the answer: {which}"
    table = Table()
    for column in ("start", "constraint", "source", "rule / tag / event", "source row"):
        table.add_column(column)
    for v in result["violations"]:
        table.add_row(f"{v['starts_at']:%Y-%m-%dT%H:%M}", v["constraint_kind"], v["source"],
                      v["constraint_id"], f"{v['source_table']}.{v['source_row_id']}")
    if result["violations"] or not start:
        console.print(title, markup=False, highlight=False, soft_wrap=True)  # one line, never wrapped to the table
        console.print(table)
    for s, said in result["verdicts"].items():
        console.print(f"{s:%Y-%m-%dT%H:%M}: {said}", markup=False, highlight=False)


def version() -> None:
    """Print the versions of MPCBench and of the engines it uses."""
    console.print(f"mpcbench {__version__}, duckdb {duckdb.__version__}, sqlglot {sqlglot.__version__}, "
                  f"python {sys.version.split()[0]}")
