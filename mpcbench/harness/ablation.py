"""`mpcbench eval --ablation`: the four MINT configurations on the same instances, one run each
in one directory (`ablation.json` names them); `--ablation-code` adds the code axis: code only and
code with feedback (context / tools / code × feedback)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Callable, TypedDict

from ..errors import UserError
from ..sandbox import sandbox_status
from .config import DEFAULT_RUNS_DIR, RUN_JSON, EvalConfig
from .journal import write_json
from .run_setup import default_run_id
from .runner import EvalResult, Progress, run_eval


ABLATION = (("baseline", "context", False), ("tools-only", "tools", False),
            ("feedback-only", "context", True), ("full", "tools", True))
ABLATION_CODE = (("code-only", "code", False), ("code-full", "code", True))
ABLATION_JSON = "ablation.json"
DEFAULT_ABLATION_TURNS = 3


class AblationConfig(TypedDict):
    """One run of an ablation, as ablation.json lists it."""
    name: str
    mode: str
    feedback: str
    max_turns: int
    run_dir: str


def run_ablation(config: EvalConfig, *, resume: bool = False, overwrite: bool = False, code: bool = False,
                 progress: Callable[[str], Progress] | None = None,
                 given: frozenset[str] = frozenset()) -> list[tuple[str, EvalResult]]:
    """The four MINT configurations on the same instances, one run each in one directory:
    baseline (context, no feedback), tools only, feedback only (context) and full (tools and
    feedback); with `code`, also code only and code-full (code and feedback). The feedback
    configurations use `config.feedback` (rule if none was chosen) and `config.max_turns` (3 if it
    was 1). `given` is run_eval's (the ablation sets mode, feedback and turns itself)."""
    if code:
        check_code_axis(config)
    root = Path(config.out) if config.out else DEFAULT_RUNS_DIR / f"ablation-{default_run_id(config)}"
    feedback = config.feedback if config.feedback != "none" else "rule"
    turns = config.max_turns if config.max_turns > 1 else DEFAULT_ABLATION_TURNS
    created = not root.exists()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create the ablation directory {root}: {e.strerror or e}") from None
    try:
        return _run_configs(config, root, feedback, turns, resume=resume, overwrite=overwrite, progress=progress,
                            given=given, code=code)
    except BaseException:
        if created and not any(p.is_dir() for p in root.iterdir()):  # failed before any run began
            shutil.rmtree(root, ignore_errors=True)
        raise


def _run_configs(config: EvalConfig, root: Path, feedback: str, turns: int, *, resume: bool, overwrite: bool,
                 progress, given: frozenset[str], code: bool) -> list[tuple[str, EvalResult]]:
    configs: list[AblationConfig] = []
    for name, mode, with_feedback in ABLATION + (ABLATION_CODE if code else ()):
        configs.append({"name": name, "mode": mode, "feedback": feedback if with_feedback else "none",
                        "max_turns": turns if with_feedback else 1, "run_dir": name})
    write_json(root / ABLATION_JSON, {"ablation_id": root.name, "configs": configs})
    results = []
    for c in configs:
        one = dataclasses.replace(config, out=str(root / c["run_dir"]), mode=c["mode"], feedback=c["feedback"],
                                  max_turns=c["max_turns"])
        result = run_eval(one, resume=resume and (root / c["run_dir"] / RUN_JSON).exists(), overwrite=overwrite,
                          progress=progress(c["name"]) if progress else None,
                          given=given - {"mode", "feedback", "max_turns"})
        meta = json.loads((result.run_dir / RUN_JSON).read_text())
        meta["ablation"] = {"group": root.name, "config": c["name"]}
        write_json(result.run_dir / RUN_JSON, meta)
        results.append((c["name"], result))
    return results


def check_code_axis(config: EvalConfig) -> None:
    """Refuse the code axis before any configuration runs, where it cannot run or would repeat one."""
    if config.protocol == "mint":
        raise UserError("--ablation-code compares tools with code under --protocol native; under --protocol mint "
                        "the tools configurations already run code")
    dataclasses.replace(config, mode="code").validate()
    ok, why = sandbox_status()
    if not ok:  # never unsandboxed
        raise UserError(f"--ablation-code needs a sandbox: {why}")
