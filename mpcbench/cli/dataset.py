"""`mpcbench export` and `mpcbench import`: the dataset files (docs/dataset.md); `mpcbench overlap`:
whether builds (splits) share an instance, and how much of their wording."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..dataset.export import export_dataset
from ..dataset.fingerprint import overlap
from ..dataset.hf import export_hf
from ..dataset.skeletons import build_skeletons, matching_pools, pool_patterns, shared_share
from ..dataset.validate import DatasetError
from ..warehouse import db
from ..warehouse.importer import import_dataset
from ..world.split import PUBLIC_WORDING_SPLITS
from ..world.wording import FAMILIES
from .common import DbOption, console, err, fail, open_db


FORMATS = {"json": export_dataset, "hf": export_hf}
# A public build's sentence skeletons that may match the ood pools (a handful of generic
# sentences can match by chance; a public build drawing from an ood pool matches far more).
MAX_OOD_SHARE = 0.02


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


def _skeleton_table(names: list[str], found: list[dict[str, set[str]]]) -> Table:
    """Each ordered pair of builds: the share of the first's sentence skeletons the second holds."""
    families = list(found[0])
    table = Table(title="Sentence skeletons shared (of the first build's, the share the second also holds)")
    for column in ("build", "with", *families):
        table.add_column(column, justify="right")
    for i, j in ((i, j) for i in range(len(found)) for j in range(len(found)) if i != j):
        shares = shared_share(found[i], found[j])
        table.add_row(names[i], names[j], *(f"{100 * n / total:.0f}% ({n}/{total})" if total else "-"
                                            for n, total in (shares[f] for f in families)))
    return table


def overlap_command(
    builds: Annotated[list[Path], typer.Argument(help="Two or more builds (DuckDB files or `build --out` "
                                                     "directories), e.g. a train, a dev and a test split.")],
    max_ood_share: Annotated[float, typer.Option(min=0, max=1, help="The share of a public build's sentence "
                                                 "skeletons that may match an entry of the ood text pools "
                                                 "(exit 1 beyond it).")] = MAX_OOD_SHARE,
) -> None:
    """Whether the builds share an instance: compares the content hashes of each instance and its
    world (`dataset.fingerprint`); and how much wording they share: the sentence skeletons of
    each family of text (`dataset.skeletons`). Exit 1 if any two builds share an instance, or if
    more than --max-ood-share of a public build's skeletons match the ood text pools."""
    if len(builds) < 2:
        fail("give two or more builds to compare", 2)
    connections = [open_db(path) for path in builds]
    try:
        splits = [dict(con.execute("select key, value from build_info").fetchall()).get("split", "dev")
                  for con in connections]
        shared = overlap(connections)
        found = [build_skeletons(con) for con in connections]
    finally:
        for con in connections:
            con.close()
    names = [f"{path} ({split})" for path, split in zip(builds, splits)]
    console.print(_skeleton_table(names, found))
    patterns = pool_patterns(pool.ood for pool in FAMILIES.values())
    problems = []
    for name, split, skeletons in zip(names, splits, found):
        if split in PUBLIC_WORDING_SPLITS:
            matched, total = matching_pools(skeletons, patterns)
            share = matched / total if total else 0.0
            typer.echo(f"{name}: {matched} of {total} sentence skeletons ({100 * share:.1f}%) match the ood pools")
            if share > max_ood_share:
                problems.append(f"{name}: {100 * share:.1f}% of its sentence skeletons match the ood pools "
                                f"(at most {100 * max_ood_share:.0f}%)")
    if shared:
        for where in list(shared.values())[:10]:
            typer.echo("shared: " + ", ".join(f"{names[i]} {instance_id}" for i, instance_id in where))
        problems.insert(0, f"{len(shared)} instance(s) appear in more than one of the builds")
    if problems:
        fail("; ".join(problems))
    typer.echo(f"no instance is shared by {', '.join(names)}")
