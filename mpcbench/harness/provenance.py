"""What a run records about where it came from: run.json as the run starts (`start_run`,
`write_run_meta`: what ran, on which build, with which options, seeds and versions), the build's
content hash, the hash of the SQL, and the versions of the engines."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import platform
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from .. import __version__
from ..dataset.version import info_dataset_version
from ..errors import UserError
from ..grading.scoring import GRADER_VERSION
from ..warehouse import db
from .config import RUN_JSON
from .journal import read_run_json, write_json
from .run_setup import PreparedRun


_CONTENT_HASHES: dict[tuple, str] = {}


def build_content_hash(con: duckdb.DuckDBPyConnection) -> str:
    """sha256 over every raw table's rows in a canonical order: equal data, equal hash. A build file
    opened read-only is hashed once per process while the file and its write-ahead log stay as they
    were (a build replaces its file whole: a new inode)."""
    file = db.read_only_file(con)
    if file is not None and file in _CONTENT_HASHES:
        return _CONTENT_HASHES[file]
    digest = hashlib.sha256()
    for table in db.RAW_TABLES:
        count, md5 = con.execute(
            f"select count(*), md5(coalesce(string_agg(t::varchar, chr(10) order by t::varchar), '')) "
            f"from {table} as t").fetchall()[0]
        digest.update(f"{table}:{count}:{md5}\n".encode())
    if file is not None:
        _CONTENT_HASHES[file] = digest.hexdigest()
    return digest.hexdigest()


@cache
def sql_hash() -> str:
    """sha256 of every .sql file the oracle, the tools and the grader use, once per process (as
    `db.layer_views` and the tool files read them once)."""
    digest = hashlib.sha256()
    for path in sorted(db.SQL_DIR.rglob("*.sql")):
        digest.update(str(path.relative_to(db.SQL_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def versions() -> dict:
    return {"mpcbench": __version__, "grader": GRADER_VERSION, "python": platform.python_version(),
            "duckdb": duckdb.__version__, "polars": pl.__version__, "openai": importlib.metadata.version("openai")}


def start_run(con, run: PreparedRun, *, agent: str, model: str | None, notes: list[str], planned: int,
              resume: bool, price: dict | None = None) -> None:
    """Create the run directory and write run.json (`write_run_meta`)."""
    try:
        run.run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create the run directory {run.run_dir}: {e.strerror or e}") from None
    write_run_meta(con, run, agent=agent, model=model, notes=notes, planned=planned, resume=resume, price=price)


def write_run_meta(con, run: PreparedRun, *, agent: str, model: str | None, notes: list[str],
                   planned: int, resume: bool, price: dict | None = None) -> dict:
    """Write run.json as a run starts (or resumes): what ran, on which build, with which options.
    A resume keeps the saved metadata and refuses a build whose content differs."""
    config, run_dir, options = run.config, run.run_dir, run.options
    saved_path = run_dir / RUN_JSON
    content_hash = build_content_hash(con)
    meta: dict[str, Any] = read_run_json(saved_path) if resume else {
        "run_id": run_dir.name, "created_at": dt.datetime.now().isoformat(timespec="seconds"),
        "benchmark_version": __version__, "grader_version": GRADER_VERSION}
    if resume and meta.get("build", {}).get("content_sha256") not in (None, content_hash):
        raise UserError(f"--resume: {Path(config.db)} is not the build this run started on (content hash differs)")
    build_info = dict(con.execute("select key, value from build_info order by key").fetchall())
    meta.update({
        "dataset_version": info_dataset_version(build_info),   # of the build's gold answers
        "status": "running", "agent": agent, "model": model, "mode": config.mode, "protocol": config.protocol,
        "base_url_host": options["base_url_host"], "api_key_env": config.api_key_env if config.agent == "openai" else None,
        "replay_of": config.replay_from, "notes": notes,
        "build": {"db": str(Path(config.db)), "content_sha256": content_hash, "info": build_info},
        "sql_sha256": sql_hash(), "versions": versions(),
        "seeds": {"agent_seed": config.seed, "trial_seeds": None if config.seed is None else
                  [config.seed + t for t in range(config.trials)],
                  "worlds": {k: v for k, v in build_info.items() if k.startswith("seed_")}},
        "split": {"name": build_info.get("split", "dev"), "seed_hash": build_info.get("split_seed_hash")},
        "options": options, "episodes": {"planned": planned}, "price": price})
    write_json(saved_path, meta)
    return meta
