"""Where the package's SQL is: `sql/`, inside the installed package or beside it in a checkout.
The warehouse reads its tables and views from it and the constraint-kind registry its rows, so
it sits below every layer that reads SQL files.

    >>> (SQL_DIR / "05_seeds" / "constraint_kinds.sql").is_file()
    True
"""

from __future__ import annotations

from pathlib import Path


def _find_sql_dir() -> Path:
    package = Path(__file__).resolve().parent   # mpcbench/: sql/ is in it (installed) or beside it
    for candidate in (package / "sql", package.parent / "sql"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the sql/ directory is missing from this installation")


SQL_DIR = _find_sql_dir()
