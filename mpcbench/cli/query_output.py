"""A query's rows as text for scripts and whole values (`mpcbench sql --format`): CSV, JSON (an
array of objects) or a Markdown table, every value whole (the box table shortens wide ones).

    >>> print(rows_text(["id", "at"], [("L1-0001", dt.datetime(2026, 3, 3, 9, 15))], "markdown"))
    | id | at |
    | --- | --- |
    | L1-0001 | 2026-03-03T09:15:00 |
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

FORMATS = ("box", "csv", "json", "markdown")


def plain(value: Any) -> Any:
    """A value as JSON holds it: times in ISO 8601, decimals as numbers, lists and structs as such."""
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def cell(value: Any) -> str:
    """One value as a CSV or Markdown cell: empty for NULL, JSON for a list or struct."""
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def rows_text(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([{c: plain(v) for c, v in zip(columns, row)} for row in rows], ensure_ascii=False, indent=2)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([cell(v) for v in row] for row in rows)
        return out.getvalue().rstrip("\n")
    if fmt == "markdown":
        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(c.replace("|", "\\|").replace("\n", "<br>") for c in cells) + " |"
        return "\n".join([line(columns), line(["---"] * len(columns)), *(line([cell(v) for v in row]) for row in rows)])
    raise ValueError(f"unknown format {fmt!r}")
