"""`mpcbench eval --ablation`: the four MINT configurations on the same instances, one run each
in one directory (`ablation.json` names them)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Callable

from .config import DEFAULT_RUNS_DIR, RUN_JSON, EvalConfig
from .journal import write_json
from .runner import EvalResult, Progress, default_run_id, run_eval


ABLATION = (("baseline", "context", False), ("tools-only", "tools", False),
            ("feedback-only", "context", True), ("full", "tools", True))
ABLATION_JSON = "ablation.json"
DEFAULT_ABLATION_TURNS = 3


def run_ablation(config: EvalConfig, *, resume: bool = False, overwrite: bool = False,
                 progress: Callable[[str], Progress] | None = None) -> list[tuple[str, EvalResult]]:
    """The four MINT configurations on the same instances, one run each in one directory:
    baseline (context, no feedback), tools only, feedback only (context) and full (tools and
    feedback). The feedback configurations use `config.feedback` (rule if none was chosen) and
    `config.max_turns` (3 if it was 1)."""
    root = Path(config.out) if config.out else DEFAULT_RUNS_DIR / f"ablation-{default_run_id(config)}"
    feedback = config.feedback if config.feedback != "none" else "rule"
    turns = config.max_turns if config.max_turns > 1 else DEFAULT_ABLATION_TURNS
    root.mkdir(parents=True, exist_ok=True)
    configs = []
    for name, mode, with_feedback in ABLATION:
        configs.append({"name": name, "mode": mode, "feedback": feedback if with_feedback else "none",
                        "max_turns": turns if with_feedback else 1, "run_dir": name})
    write_json(root / ABLATION_JSON, {"ablation_id": root.name, "configs": configs})
    results = []
    for c in configs:
        one = dataclasses.replace(config, out=str(root / c["run_dir"]), mode=c["mode"], feedback=c["feedback"],
                                  max_turns=c["max_turns"])
        result = run_eval(one, resume=resume and (root / c["run_dir"] / RUN_JSON).exists(), overwrite=overwrite,
                          progress=progress(c["name"]) if progress else None)
        meta = json.loads((result.run_dir / RUN_JSON).read_text())
        meta["ablation"] = {"group": root.name, "config": c["name"]}
        write_json(result.run_dir / RUN_JSON, meta)
        results.append((c["name"], result))
    return results
