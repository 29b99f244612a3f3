"""`mpcbench rescore`: recompute every table of a run from its journal (after a grader change)."""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..warehouse import db
from .config import RUN_JSON
from .journal import read_run_json
from .provenance import build_content_hash
from .tables import finalize


def rescore(run_dir: str | Path, db_path: str | Path | None = None, *, force: bool = False) -> dict:
    """Recompute every table of a run from its journal (after a grader change)."""
    run_dir = Path(run_dir)
    if not (run_dir / RUN_JSON).exists():
        raise UserError(f"{run_dir} holds no run.json: not a run directory")
    meta = read_run_json(run_dir / RUN_JSON)
    db_path = Path(db_path or meta.get("build", {}).get("db") or db.DEFAULT_DB)
    if not db_path.exists():
        raise UserError(f"{db_path} does not exist (pass --db)")
    con = db.open_existing(db_path, episodes=True)
    try:
        recorded = meta.get("build", {}).get("content_sha256")
        if recorded and not force and build_content_hash(con) != recorded:
            raise UserError(f"{db_path} is not the build this run was made on (content hash differs); "
                            "pass --force to score against it anyway")
        return finalize(run_dir, con)
    finally:
        con.close()
