"""Writing a warehouse file, for `mpcbench build` and `mpcbench import` alike: into a fresh file
next to the target that is renamed into place only when complete (so a failure leaves nothing
half-written), under a lock on `<db>.lock` (a second writer of the same file stops at once with
one line naming the first), with the per-level `build_stats` and the `build_info` key/value rows.

    with atomic_database(Path("build/mpcbench.duckdb")) as con:
        ...                                   # fill con; on an exception the file is removed
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from ..errors import UserError
from ..sources import SOURCES


@contextmanager
def write_lock(db_path: Path) -> Iterator[None]:
    """Hold `<db_path>.lock` (an exclusive fcntl lock) for the block, or raise a UserError at once
    when another process holds it. The file is removed on release; a process that locked a file
    just removed tries again on the new one."""
    lock_path = Path(f"{db_path}.lock")
    while True:
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise UserError(f"cannot write {db_path}: {e.strerror or e} ({lock_path})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise UserError(f"{db_path} is being written by another mpcbench build or import (pid {holder}, "
                            f"lock {lock_path}); wait for it to finish, or choose another --db") from None
        try:
            same = os.stat(lock_path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        lock_path.unlink(missing_ok=True)
        os.close(fd)


def _writable(db_path: Path) -> None:
    """The directory of `db_path` exists (made if needed) and is one; a UserError otherwise."""
    if db_path.is_dir():
        raise UserError(f"--db {db_path} is a directory; give a file path, e.g. {db_path / 'mpcbench.duckdb'}")
    existing = next(p for p in db_path.absolute().parents if p.exists())
    if not existing.is_dir():
        raise UserError(f"cannot write {db_path}: {existing} is a file, not a directory")
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot write {db_path}: {e.strerror or e} ({e.filename or db_path.parent})") from None


@contextmanager
def atomic_database(db_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to a new DuckDB file that becomes `db_path` when the block ends without an
    exception; otherwise the file is removed and the exception goes on. Holds the write lock."""
    db_path = Path(db_path)
    _writable(db_path)
    with write_lock(db_path), _fresh_file(db_path) as con:
        yield con


@contextmanager
def _fresh_file(db_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    tmp_path = db_path.with_name(f".{db_path.name}.{os.getpid()}.tmp")
    tmp_wal = Path(f"{tmp_path}.wal")
    tmp_path.unlink(missing_ok=True)
    tmp_wal.unlink(missing_ok=True)
    try:
        con = duckdb.connect(str(tmp_path))   # its directory exists: _writable made it
    except duckdb.Error as e:
        raise UserError(f"cannot write {db_path}: {str(e).splitlines()[0]}") from None
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
