"""Setting a run up: its directory and id (`run_directory`, `default_run_id`) and what it runs
with (`prepare_run`: the config of a new run, or of a resumed one checked against the saved one;
its episode options and its options as run.json saves them). `provenance.start_run` then starts
it. `mpcbench eval` and the outside drivers (`session`) set runs up here."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..sandbox import sandbox_status
from .config import DEFAULT_RUNS_DIR, JOURNAL, RUN_FILES, RUN_JSON, EvalConfig
from .episode_spec import EpisodeSpec
from .journal import read_journal, read_run_json


def default_run_id(config: EvalConfig) -> str:
    model = re.sub(r"[^A-Za-z0-9._-]+", "-", config.model or "")
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return "-".join(part for part in (config.agent, model.strip("-"), stamp) if part)


def run_directory(config: EvalConfig) -> Path:
    return Path(config.out) if config.out else DEFAULT_RUNS_DIR / default_run_id(config)


@dataclass(frozen=True)
class PreparedRun:
    """A run as it is set up: the config it runs with (validated), its directory (not created
    yet), its episodes' options, its options as run.json saves them, and the episodes its journal
    already holds (a half-written last line repaired)."""
    config: EvalConfig
    run_dir: Path
    spec: EpisodeSpec
    options: dict
    done: dict[tuple[str, int], dict]   # the episodes its journal holds (a resumed run's), by (instance, trial)


def prepare_run(config: EvalConfig, *, resume: bool, overwrite: bool = False,
                given: frozenset[str] = frozenset()) -> PreparedRun:
    """The run to set up (`PreparedRun`); on resume, with the config saved in run.json and the
    options of RESUME_MAY_CHANGE taken from `config`. `given` names the
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
    if resume and not saved_path.exists():
        raise UserError(f"--resume: {run_dir} holds no run.json (give the run directory with --out)")
    if not resume and saved_path.exists():
        raise UserError(f"{run_dir} already holds a run; use --resume to finish it, --overwrite to start it "
                        "again, or choose another --out")
    saved = read_run_json(saved_path) if resume else {}
    done = read_journal(run_dir / JOURNAL, repair=True)
    if resume:
        config = config.resumed(saved.get("options") or {}, given, run_dir)
    config.validate()
    if config.mode == "code":
        ok, why = sandbox_status()
        if not ok:  # never unsandboxed
            raise UserError(f"--mode code needs a sandbox: {why}")
    return PreparedRun(config, run_dir, config.episode_spec(), config.public(), done)
