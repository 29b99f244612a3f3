"""Run the SQL oracle on dataset dicts and read its answers in the reference oracle's shape."""

from __future__ import annotations

import atexit
import datetime as dt
import shutil
import tempfile
import threading
from pathlib import Path

import duckdb

from mpcbench.dataset import rows
from mpcbench.warehouse import db

_TEMPLATES: dict[bool, Path] = {}
_TEMPLATE_LOCK = threading.Lock()


def template(keys: bool = True) -> Path:
    """A DuckDB file holding an empty warehouse made by `db.create_warehouse(con, keys)`, once per
    process: creating the views binds each one (about 5 s), a copy of the catalog does not."""
    with _TEMPLATE_LOCK:
        if keys not in _TEMPLATES:
            folder = Path(tempfile.mkdtemp(prefix="mpcbench-warehouse-"))
            atexit.register(shutil.rmtree, folder, True)
            path = folder / f"empty-{'keys' if keys else 'nokeys'}.duckdb"
            con = db.connect(None)
            db.create_warehouse(con, keys)
            con.execute(f"attach '{path}' as template")
            con.execute("copy from database memory to template")
            con.close()
            _TEMPLATES[keys] = path
        return _TEMPLATES[keys]


def fresh_warehouse(keys: bool = True) -> duckdb.DuckDBPyConnection:
    """A new in-memory warehouse, as `db.create_warehouse(db.connect(None), keys)` makes it: a copy
    of the process's template (the same tables, keys, seed rows, views and comments:
    tests/test_oracle_golden.py checks it)."""
    con = db.connect(None)
    con.execute(f"attach '{template(keys)}' as template (read_only)")
    con.execute("copy from database template to memory")
    con.execute("detach template")
    return con


def load(con, worlds: list[dict], instances: list[dict]) -> None:
    rows.load_dataset(con, worlds, instances)
    db.refresh(con)


def clear(con) -> None:
    """Empty every raw table the loader writes (to reuse one warehouse between examples)."""
    for table in reversed(db.RAW_TABLES):
        con.execute(f"delete from {table}")


def fmt(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def sql_answers(con) -> dict[str, list[tuple[str, str | None]]]:
    out: dict[str, list] = {}
    for instance_id, starts_at, room_id in con.execute(
            "select instance_id, starts_at, room_id from oracle_answers order by instance_id, rank").fetchall():
        out.setdefault(instance_id, []).append((fmt(starts_at), room_id))
    return out


def sql_answer_rows(con, instance_id: str) -> list[tuple]:
    """(rank, start, end, room_id) of one instance's oracle answer."""
    return [(rank, fmt(s), fmt(e), room_id) for rank, s, e, room_id in con.execute(
        "select rank, starts_at, ends_at, room_id from oracle_answers where instance_id = $1 order by rank",
        [instance_id]).fetchall()]


def sql_candidates(con) -> dict[str, list[tuple[str, str | None]]]:
    out: dict[str, list] = {}
    for instance_id, starts_at, room_id in con.execute(
            "select instance_id, starts_at, room_id from oracle_candidates order by instance_id, rank").fetchall():
        out.setdefault(instance_id, []).append((fmt(starts_at), room_id))
    return out


def sql_n_feasible(con) -> dict[str, int]:
    return dict(con.execute("select instance_id, n_feasible from oracle_summary").fetchall())


def sql_necessity(con) -> dict[str, dict[str, bool]]:
    out: dict[str, dict] = {}
    for instance_id, source, is_needed in con.execute(
            "select instance_id, source, is_needed from oracle_necessity order by instance_id, source").fetchall():
        out.setdefault(instance_id, {})[source] = is_needed
    return out


def keys(candidates) -> list[tuple[str, str | None]]:
    """Reference-oracle candidates in the same shape as the SQL readers above."""
    return [(fmt(start), room_id) for start, room_id in candidates]
