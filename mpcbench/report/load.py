"""Reading eval runs for a report: each run's Parquet tables and run.json (runs from before
multi-turn feedback read as one turn, no feedback), an ablation directory expanded into its
runs, and the prices given on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..dataset.version import KEY as DATASET_VERSION, UNRECORDED
from ..errors import UserError
from ..harness.journal import read_run_json


ABLATION_CONFIGS = ("baseline", "tools-only", "feedback-only", "full")
ABLATION_CODE_CONFIGS = ("code-only", "code-full")      # --ablation-code


def parse_prices(items: list[str]) -> dict[str, tuple[float, float]]:
    """MODEL=IN,OUT (US$ per million prompt / completion tokens) -> {model: (in, out)}."""
    prices = {}
    for item in items:
        try:
            model, _, pair = item.partition("=")
            price_in, price_out = (float(x) for x in pair.split(","))
        except ValueError:
            raise UserError(f"--price takes MODEL=IN,OUT (US$ per million tokens), not {item!r}") from None
        prices[model.strip()] = (price_in, price_out)
    return prices


@dataclass
class Run:
    path: Path
    meta: dict
    runs: pl.DataFrame
    failures: pl.DataFrame
    turns: pl.DataFrame | None = None          # turns.parquet (absent in single-turn runs of old)
    ablation: tuple[str, str] | None = None    # (ablation id, config name)

    @property
    def options(self) -> dict:
        return self.meta.get("options") or {}

    @property
    def dataset_versions(self) -> list[str]:
        """The dataset versions (of the gold answers) the run was scored on: run.json's
        `dataset_version` and runs.parquet's column, ["1"] for a run from before they were
        recorded; two only where the two disagree (a table rewritten apart)."""
        found = {str(self.meta[DATASET_VERSION])} if self.meta.get(DATASET_VERSION) else set()
        if DATASET_VERSION in self.runs.columns:
            found |= {str(v) for v in self.runs[DATASET_VERSION].drop_nulls().unique().to_list()}
        return sorted(found) or [UNRECORDED]

    @property
    def dataset_version(self) -> str:
        """`dataset_versions` as one text: "2", or "1/2" for a run whose files disagree."""
        return "/".join(self.dataset_versions)

    @property
    def mode(self) -> str:
        return (self.runs["mode"].drop_nulls().to_list() or [self.options.get("mode") or "tools"])[0]

    @property
    def feedback(self) -> str:
        feedback = (self.runs["feedback"].drop_nulls().to_list() or [self.options.get("feedback") or "none"])[0]
        detail = self.options.get("feedback_detail")
        return f"{feedback} ({detail})" if feedback != "none" and detail else feedback

    @property
    def max_turns(self) -> int:
        return int(max([*self.runs["max_turns"].drop_nulls().to_list(), self.options.get("max_turns") or 1]))

    @property
    def trials(self) -> int:
        return int(max([*self.runs["trial"].drop_nulls().to_list(), self.options.get("trials") or 1]))

    def turn_values(self) -> dict[tuple[str, int], dict[int, float]]:
        """{(instance_id, trial): {turn: F1}} from turns.parquet."""
        out: dict[tuple[str, int], dict[int, float]] = {}
        for row in (self.turns if self.turns is not None else pl.DataFrame()).to_dicts():
            out.setdefault((row["instance_id"], row["trial"]), {})[row["turn"]] = row["f1"] or 0.0
        return out


def with_defaults(runs: pl.DataFrame, options: dict) -> pl.DataFrame:
    """Runs from before multi-turn feedback lack its columns: one turn, no feedback, solved at turn 1
    iff an exact match (an infrastructure error is never solved)."""
    defaults = {
        "mode": pl.lit(options.get("mode") or "tools"),
        "max_turns": pl.lit(int(options.get("max_turns") or 1), pl.Int64),
        "feedback": pl.lit(options.get("feedback") or "none"),
        "solved_turn": pl.when(pl.col("exact_match").fill_null(False) & pl.col("error").is_null())
                         .then(pl.lit(1, pl.Int64)).otherwise(pl.lit(None, pl.Int64)),
    }
    return runs.with_columns(expr.alias(name) for name, expr in defaults.items() if name not in runs.columns)


def read_table(path: Path) -> pl.DataFrame:
    """A result table; a one-line UserError when it is not readable Parquet (empty, cut short)."""
    try:
        return pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UserError(f"{path} is not a readable Parquet file ({reason}); `mpcbench rescore {path.parent}` "
                        "writes the tables again from the run's journal") from None


def load_run(path: Path, ablation: tuple[str, str] | None = None) -> Run:
    path = Path(path)
    if not (path / "run.json").exists() or not (path / "runs.parquet").exists():
        raise UserError(f"{path} is not a finished run directory (no run.json or runs.parquet; "
                        f"`mpcbench eval --resume --out {path}` finishes one)")
    meta = read_run_json(path / "run.json")
    if not isinstance(meta.get("run_id"), str):
        raise UserError(f"{path / 'run.json'} has no run_id; is this a run directory?")
    failures_path, turns_path = path / "failures.parquet", path / "turns.parquet"
    failures = read_table(failures_path) if failures_path.exists() else pl.DataFrame()
    turns = read_table(turns_path) if turns_path.exists() else None
    runs = with_defaults(read_table(path / "runs.parquet"), meta.get("options") or {})
    if ablation is None and (tag := meta.get("ablation")):
        ablation = (tag.get("group") or "", tag.get("config") or "")
    return Run(path, meta, runs, failures, turns, ablation)


def load_runs(paths: list[Path]) -> list[Run]:
    """Run directories, and ablation directories (ablation.json) expanded into their runs."""
    out = []
    for path in map(Path, paths):
        if (path / "ablation.json").exists():
            spec = read_run_json(path / "ablation.json")
            out += [load_run(path / c["run_dir"], (spec["ablation_id"], c["name"])) for c in spec["configs"]]
        else:
            out.append(load_run(path))
    return out


def comparable(runs: list[Run]) -> bool:
    """Whether the runs' scores may be compared: every run was scored on one dataset version
    (the same gold answers). Runs without a recorded version are version 1."""
    return len({r.dataset_version for r in runs}) <= 1


def run_labels(runs: list[Run]) -> list[str]:
    """A short label per run: the model (or the agent's name) and the ablation config, and the
    dataset version where the runs are of several (`comparable`); the run id (or the ablation id)
    where two would clash."""
    base = []
    mixed = not comparable(runs)
    for r in runs:
        label = r.meta.get("model") or r.meta.get("agent") or r.meta["run_id"]
        if r.meta.get("agent") == "replay":
            label = f"replay of {label}"
        label = f"{label} · {r.ablation[1]}" if r.ablation else label
        base.append(f"{label} [dataset {r.dataset_version}]" if mixed else label)
    counts: dict[str, int] = {}
    for label in base:
        counts[label] = counts.get(label, 0) + 1
    return [f"{label} ({r.ablation[0] if r.ablation else r.meta['run_id']})" if counts[label] > 1 else label
            for label, r in zip(base, runs)]
