"""What every command shares: the consoles, the `--db` option, one-line errors, opening the
warehouse and parsing `--levels`."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Annotated, NoReturn

import duckdb
import typer
from rich.console import Console
from rich.markup import escape

from ..errors import UserError
from ..levels import LEVEL_NAMES, LEVELS
from ..warehouse import db


# Tables stay readable when the output is a pipe or a file (rich assumes 80 columns there).
console = Console(width=None if sys.stdout.isatty() else 140)
err = Console(stderr=True)
DbOption = Annotated[Path, typer.Option("--db", help="The DuckDB file to write or read (to read, also a Parquet "
                                                   "dataset directory that `mpcbench build --out` wrote).")]


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)


def report_error(error: UserError, debug: bool = False) -> None:
    """Print a user error as one line (after its traceback with --debug) and exit with its code."""
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    fail(str(error), error.code)


def open_db(path: Path) -> duckdb.DuckDBPyConnection:
    return db.open_existing(path)


def parse_levels(text: str) -> tuple[int, ...]:
    try:
        levels = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        levels = ()
    if not levels or not set(levels) <= set(LEVELS):
        fail(f"--levels takes a comma-separated subset of {LEVEL_NAMES}, not {text!r}", 2)
    return levels
