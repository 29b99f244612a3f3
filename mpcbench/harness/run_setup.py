"""Setting a run up: its directory and id (`run_directory`, `default_run_id`), the config it runs
with (`prepare_run`: a new run, or a resume checked against the saved one) and its run.json as
it starts (`start_run`, `write_run_meta`: what ran, on which build, with which options, seeds and
versions; the episodes the journal already holds).
`mpcbench eval` and the outside drivers (`session`) set runs up here."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from .. import __version__
from ..dataset.version import info_dataset_version
from ..errors import UserError
from ..grading.scoring import GRADER_VERSION
from ..sandbox import sandbox_status
from .config import DEFAULT_RUNS_DIR, JOURNAL, RUN_FILES, RUN_JSON, EvalConfig
from .journal import read_journal, read_run_json, write_json
from .provenance import build_content_hash, sql_hash, url_host, versions


def default_run_id(config: EvalConfig) -> str:
    model = re.sub(r"[^A-Za-z0-9._-]+", "-", config.model or "")
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return "-".join(part for part in (config.agent, model.strip("-"), stamp) if part)


def run_directory(config: EvalConfig) -> Path:
    return Path(config.out) if config.out else DEFAULT_RUNS_DIR / default_run_id(config)


def prepare_run(config: EvalConfig, *, resume: bool, overwrite: bool = False,
                given: frozenset[str] = frozenset()) -> tuple[EvalConfig, Path]:
    """The run directory (not created yet) and the config to run; on resume, the config saved in
    run.json, with the options of RESUME_MAY_CHANGE taken from `config`. `given` names the
    config fields the user set: on resume, one that differs from the saved run is refused.
    `overwrite` deletes a previous run's files from the directory first. eval and the outside
    drivers (`session`: MCP) set a run up, and check a resume, here alone."""
    run_dir = run_directory(config)
    saved_path = run_dir / RUN_JSON
    if run_dir.exists() and not run_dir.is_dir():
        raise UserError(f"--out {run_dir} is a file, not a run directory; choose another --out")
    if overwrite and not resume:
        for name in RUN_FILES:
            (run_dir / name).unlink(missing_ok=True)
    if resume:
        if not saved_path.exists():
            raise UserError(f"--resume: {run_dir} holds no run.json (give the run directory with --out)")
        saved = read_run_json(saved_path)
        budget = {k: getattr(config, k) for k in ("max_cost_usd", "prices") if getattr(config, k) is not None}
        config_saved = EvalConfig.from_public(saved.get("options") or {}, base_url=config.base_url, out=str(run_dir),
                                              concurrency=config.concurrency, timeout_s=config.timeout_s,
                                              max_retries=config.max_retries, **budget)
        differ = config.differences(config_saved, given)
        if differ:
            raise UserError(f"{run_dir} holds a run with other options: {'; '.join(differ)}. Continue it "
                            "without them, or start a new run in another directory", 2)
        host = (saved.get("options") or {}).get("base_url_host")
        if host and url_host(config.base_url) != host:
            raise UserError(f"--resume: this run used an endpoint at {host}; pass its --base-url again "
                            "(run.json keeps only the host)")
        config = config_saved
    elif saved_path.exists():
        raise UserError(f"{run_dir} already holds a run; use --resume to finish it, --overwrite to start it "
                        "again, or choose another --out")
    config.validate()
    if config.mode == "code":
        ok, why = sandbox_status()
        if not ok:  # never unsandboxed
            raise UserError(f"--mode code needs a sandbox: {why}")
    return config, run_dir


def start_run(con, config: EvalConfig, run_dir: Path, *, agent: str, model: str | None, notes: list[str],
              planned: int, resume: bool, price: dict | None = None) -> dict[tuple[str, int], dict]:
    """Create the run directory and write run.json (`write_run_meta`); the episodes its journal
    already holds (a resumed run's; a half-written last line repaired), by (instance, trial)."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create the run directory {run_dir}: {e.strerror or e}") from None
    write_run_meta(con, config, run_dir, agent=agent, model=model, notes=notes, planned=planned, resume=resume,
                   price=price)
    return read_journal(run_dir / JOURNAL, repair=True)


def write_run_meta(con, config: EvalConfig, run_dir: Path, *, agent: str, model: str | None, notes: list[str],
                   planned: int, resume: bool, price: dict | None = None) -> dict:
    """Write run.json as a run starts (or resumes): what ran, on which build, with which options.
    A resume keeps the saved metadata and refuses a build whose content differs."""
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
        "base_url_host": url_host(config.base_url), "api_key_env": config.api_key_env if config.agent == "openai" else None,
        "replay_of": config.replay_from, "notes": notes,
        "build": {"db": str(Path(config.db)), "content_sha256": content_hash, "info": build_info},
        "sql_sha256": sql_hash(), "versions": versions(),
        "seeds": {"agent_seed": config.seed, "trial_seeds": None if config.seed is None else
                  [config.seed + t for t in range(config.trials)],
                  "worlds": {k: v for k, v in build_info.items() if k.startswith("seed_")}},
        "split": {"name": build_info.get("split", "dev"), "seed_hash": build_info.get("split_seed_hash")},
        "options": config.public(), "episodes": {"planned": planned}, "price": price})
    write_json(saved_path, meta)
    return meta
