"""Writing a warehouse file, for `mpcbench build` and `mpcbench import` alike: into a fresh file
next to the target that is renamed into place only when complete (so a failure leaves nothing
half-written), with the per-level `build_stats` and the `build_info` key/value rows.

    with atomic_database(Path("build/mpcbench.duckdb")) as con:
        ...                                   # fill con; on an exception the file is removed
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from ..sources import SOURCES
from ..warehouse import db


@contextmanager
def atomic_database(db_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to a new DuckDB file that becomes `db_path` when the block ends without an
    exception; otherwise the file is removed and the exception goes on."""
    db_path = Path(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = db_path.with_name(f".{db_path.name}.{os.getpid()}.tmp")
    tmp_wal = Path(f"{tmp_path}.wal")
    tmp_path.unlink(missing_ok=True)
    tmp_wal.unlink(missing_ok=True)
    con = db.connect(tmp_path)
    try:
        yield con
        con.close()
    except BaseException:
        con.close()
        tmp_path.unlink(missing_ok=True)
        tmp_wal.unlink(missing_ok=True)
        raise
    Path(f"{db_path}.wal").unlink(missing_ok=True)   # a stale log would be replayed onto the new file
    tmp_path.replace(db_path)


def write_build_stats(con: duckdb.DuckDBPyConnection, *, level: int, world_id: str, seed: int, instances: int,
                      candidates_sampled: int, too_few_feasible: int = 0, not_needed: dict[str, int] | None = None,
                      kept_too_few_feasible: int = 0) -> None:
    """One level's row of `build_stats`: `instances` wanted and kept, how many candidates were
    sampled, discarded (too few feasible starts) and rejected per source not needed."""
    not_needed = not_needed or {}
    con.execute("insert into build_stats values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                [level, world_id, seed, instances, candidates_sampled, instances, too_few_feasible,
                 *(not_needed.get(source, 0) for source in SOURCES), kept_too_few_feasible])


def write_build_info(con: duckdb.DuckDBPyConnection, info: dict[str, str]) -> None:
    """The `build_info` rows (what built the file, from which configs or files, with which seeds)."""
    con.executemany("insert into build_info values ($1, $2)", sorted(info.items()))
