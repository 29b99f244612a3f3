"""`mpcbench export` and `mpcbench import`: the dataset files (docs/dataset.md); `mpcbench overlap`:
whether builds (splits) share an instance."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..dataset.export import export_dataset
from ..dataset.fingerprint import overlap
from ..dataset.hf import export_hf
from ..dataset.validate import DatasetError
from ..warehouse import db
from ..warehouse.importer import import_dataset
from .common import DbOption, console, err, fail, open_db


FORMATS = {"json": export_dataset, "hf": export_hf}


def export_command(
    directory: Annotated[Path, typer.Argument(help="Where to write worlds/, instances/, oracles/ and schema/ "
                                                   "(--format hf: README.md and Parquet splits).")],
    fmt: Annotated[str, typer.Option("--format", help="json: the dataset files; hf: a Hugging Face dataset "
                                                      "(Parquet splits per level and a dataset card).")] = "json",
    db_path: DbOption = db.DEFAULT_DB,
) -> None:
    """Write the dataset files (docs/dataset.md): worlds, instances, gold answers, JSON Schemas;
    or, with --format hf, a Hugging Face dataset directory."""
    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}", 2)
    con = open_db(db_path)
    try:
        exported = FORMATS[fmt](con, directory)
    finally:
        con.close()
    counts = ", ".join(f"level {e.level}: {e.instances} instances" for e in exported)
    typer.echo(f"Exported {counts} to {directory}")


def import_command(
    directory: Annotated[Path, typer.Argument(help="A directory laid out as `mpcbench export` writes it.")],
    db_path: DbOption = db.DEFAULT_DB,
    force: Annotated[bool, typer.Option(help="Replace --db if it exists.")] = False,
) -> None:
    """Check dataset files and load them into a new DuckDB file (an existing one only with --force),
    re-labelling every instance with the oracle. Any problem: all of them are listed and nothing is
    written."""
    try:
        report = import_dataset(directory, db_path, force=force)
    except DatasetError as e:
        err.print(f"[bold red]error:[/] {escape(str(directory))} cannot be imported ({e.total} problem(s)); "
                  f"{escape(str(db_path))} was not touched", highlight=False)
        for line in e.errors:
            typer.echo(line, err=True)
        if e.total > len(e.errors):
            typer.echo(f"... and {e.total - len(e.errors)} more", err=True)
        raise typer.Exit(1) from None
    table = Table(title=f"Imported {directory} into {db_path}")
    for column in ("level", "world", "instances", "fewer than N feasible (kept)", "gold differs from oracles/"):
        table.add_column(column, justify="right")
    for lv in report.levels:
        table.add_row(str(lv.level), lv.world_id, str(lv.instances), str(lv.too_few_feasible),
                      "no file" if lv.gold_differs is None else str(lv.gold_differs))
    console.print(table)
    for note in report.notes:
        typer.echo(f"note: {note}")


def overlap_command(
    builds: Annotated[list[Path], typer.Argument(help="Two or more builds (DuckDB files or `build --out` "
                                                     "directories), e.g. a train, a dev and a test split.")],
) -> None:
    """Whether the builds share an instance: compares the content hashes of each instance and its
    world (`dataset.fingerprint`); exit 1 if any two builds share one."""
    if len(builds) < 2:
        fail("give two or more builds to compare", 2)
    connections = [open_db(path) for path in builds]
    try:
        splits = [dict(con.execute("select key, value from build_info").fetchall()).get("split", "dev")
                  for con in connections]
        shared = overlap(connections)
    finally:
        for con in connections:
            con.close()
    names = [f"{path} ({split})" for path, split in zip(builds, splits)]
    if shared:
        for where in list(shared.values())[:10]:
            typer.echo("shared: " + ", ".join(f"{names[i]} {instance_id}" for i, instance_id in where))
        fail(f"{len(shared)} instance(s) appear in more than one of the builds")
    typer.echo(f"no instance is shared by {', '.join(names)}")
