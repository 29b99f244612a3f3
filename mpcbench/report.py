"""`mpcbench report RUN...`: one report over one or more eval runs.

    make_report([Path("build/runs/A"), Path("build/runs/B")], Path("reports/ab"))
    # -> reports/ab/report.md, report.html (self-contained), f1_by_level.png, failure_causes.png

Per level and model (the agent's name for offline agents): mean F1 with a bootstrap 95%
interval, EM rate, rank-aware scores, parse failures and infrastructure errors (kept apart: they
count in no score), and the primary failure causes with their stage (decomposition/acquisition
or integration), as in the results table of the MPCBench specification. Then, where the runs
have them: an ablation (an ablation directory, ablation.json, expands into its four runs:
baseline, tools-only, feedback-only, full) with paired differences to the baseline; success by
turn budget for multi-turn feedback (turns.parquet); pass^k, pass@k, flip rate and the minimum
detectable difference for repeated trials; tokens per mode. Then failure causes in full, source
coverage, efficiency, tokens and cost per episode. Everything is read from the runs' Parquet
tables and run.json (runs from before multi-turn feedback read as one turn, no feedback); the
statistics are in stats.py.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .errors import UserError
from .stats import (bootstrap_ci, bootstrap_se, flip_rate, mde, mean, mean_by_turn, paired_diff_ci, pass_at_k,
                    pass_hat_k, success_at)

ABLATION_CONFIGS = ("baseline", "tools-only", "feedback-only", "full")
STAGE_LABEL = {"acquisition": "decomposition/acquisition", "integration": "integration"}
OUTCOME_ORDER = ("exact match", "calendar", "policy", "threads", "rooms", "ranking", "too few candidates",
                 "invalid candidate", "parse failure", "unexplained", "infrastructure error")
OUTCOME_COLORS = {"exact match": "#4c9a2a", "calendar": "#1f77b4", "policy": "#ff7f0e", "threads": "#9467bd",
                  "rooms": "#8c564b", "ranking": "#e377c2", "too few candidates": "#bcbd22",
                  "invalid candidate": "#17becf", "parse failure": "#d62728", "unexplained": "#7f7f7f",
                  "infrastructure error": "#000000"}


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
    def mode(self) -> str:
        return (self.runs["mode"].drop_nulls().to_list() or [self.options.get("mode") or "tools"])[0]

    @property
    def feedback(self) -> str:
        feedback = (self.runs["feedback"].drop_nulls().to_list() or [self.options.get("feedback") or "none"])[0]
        detail = self.options.get("feedback_detail")
        return f"{feedback} ({detail})" if feedback != "none" and detail else feedback

    @property
    def max_turns(self) -> int:
        return int(max(self.runs["max_turns"].max() or 1, self.options.get("max_turns") or 1))

    @property
    def trials(self) -> int:
        return int(max(self.runs["trial"].max() or 1, self.options.get("trials") or 1))

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


def load_run(path: Path, ablation: tuple[str, str] | None = None) -> Run:
    path = Path(path)
    if not (path / "run.json").exists() or not (path / "runs.parquet").exists():
        raise UserError(f"{path} is not a finished run directory (no run.json or runs.parquet; "
                        "`mpcbench eval --resume --out {path}` finishes one)")
    meta = json.loads((path / "run.json").read_text())
    failures_path, turns_path = path / "failures.parquet", path / "turns.parquet"
    failures = pl.read_parquet(failures_path) if failures_path.exists() else pl.DataFrame()
    turns = pl.read_parquet(turns_path) if turns_path.exists() else None
    runs = with_defaults(pl.read_parquet(path / "runs.parquet"), meta.get("options") or {})
    if ablation is None and (tag := meta.get("ablation")):
        ablation = (tag.get("group") or "", tag.get("config") or "")
    return Run(path, meta, runs, failures, turns, ablation)


def load_runs(paths: list[Path]) -> list[Run]:
    """Run directories, and ablation directories (ablation.json) expanded into their runs."""
    out = []
    for path in map(Path, paths):
        if (path / "ablation.json").exists():
            spec = json.loads((path / "ablation.json").read_text())
            out += [load_run(path / c["run_dir"], (spec["ablation_id"], c["name"])) for c in spec["configs"]]
        else:
            out.append(load_run(path))
    return out


def _labels(runs: list[Run]) -> list[str]:
    """A short label per run: the model (or the agent's name) and the ablation config; the run id
    (or the ablation id) where two would clash."""
    base = []
    for r in runs:
        label = r.meta.get("model") or r.meta.get("agent") or r.meta["run_id"]
        if r.meta.get("agent") == "replay":
            label = f"replay of {label}"
        base.append(f"{label} · {r.ablation[1]}" if r.ablation else label)
    counts: dict[str, int] = {}
    for label in base:
        counts[label] = counts.get(label, 0) + 1
    return [f"{label} ({r.ablation[0] if r.ablation else r.meta['run_id']})" if counts[label] > 1 else label
            for label, r in zip(base, runs)]


def outcome(row: dict) -> str:
    """The one outcome an episode counts under in the stacked plot."""
    if row.get("error"):
        return "infrastructure error"
    if row.get("exact_match"):
        return "exact match"
    cause = row.get("failure_cause") or "unexplained"
    source = row.get("failure_source")
    if source in ("calendar", "policy", "threads", "rooms"):
        return source
    if source == "answer":
        return "invalid candidate"
    return {"too_few_candidates": "too few candidates", "parse_failure": "parse failure"}.get(cause, cause)


def _cause_label(row: dict) -> str:
    stage = row.get("failure_stage")
    return f"{row['failure_cause']} ({STAGE_LABEL[stage]})" if stage in STAGE_LABEL else row["failure_cause"]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def _num(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


@dataclass
class Group:
    level: int
    label: str
    rows: list[dict]
    run: Run

    @property
    def scored(self) -> list[dict]:
        return [r for r in self.rows if not r.get("error")]


def groups_of(runs: list[Run]) -> list[Group]:
    out = []
    for i, (r, label) in enumerate(zip(runs, _labels(runs))):
        for level in sorted(set(r.runs["level"].to_list())):
            out.append((level, i, Group(level, label, r.runs.filter(pl.col("level") == level).to_dicts(), r)))
    return [g for _, _, g in sorted(out, key=lambda t: t[:2])]


def _episodes(g: Group) -> str:
    """Scored episodes, and infrastructure errors (counted in no score) as (+n)."""
    errors = len(g.rows) - len(g.scored)
    return f"{len(g.scored)}" + (f" (+{errors})" if errors else "")


def results_table(groups: list[Group]) -> tuple[list[str], list[list[str]], list[dict]]:
    header = ["Level", "Model", "Episodes", "Avg F1 [95% CI]", "EM rate", "First correct", "NDCG",
              "Parse failures", "Infra errors", "Primary failure causes"]
    body, stats = [], []
    for g in groups:
        scored = g.scored
        f1 = [r["f1"] for r in scored]
        ci = bootstrap_ci(f1, [r["instance_id"] for r in scored])
        failed = [r for r in scored if not r["exact_match"]]
        causes: dict[str, int] = {}
        for r in failed:
            causes[_cause_label(r)] = causes.get(_cause_label(r), 0) + 1
        top = sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        cause_text = "; ".join(f"{c} {n / len(scored):.0%}" for c, n in top) or "—"
        mean_f1 = mean(f1)
        stats.append({"level": g.level, "label": g.label, "mean_f1": mean_f1, "ci": ci,
                      "em_rate": mean([float(r["exact_match"]) for r in scored])})
        body.append([f"Level {g.level}", g.label, _episodes(g),
                     f"{_num(mean_f1)} [{_num(ci[0])}, {_num(ci[1])}]" if ci else "—",
                     _pct(stats[-1]["em_rate"]), _pct(mean([float(r["first_correct"]) for r in scored])),
                     _num(mean([r["ndcg"] for r in scored])),
                     str(sum(1 for r in scored if not r["parse_ok"])), str(len(g.rows) - len(scored)), cause_text])
    return header, body, stats


def causes_table(groups: list[Group]) -> tuple[list[str], list[list[str]], dict]:
    """Share of episodes per outcome, per level and model."""
    header = ["Level", "Model"] + [o for o in OUTCOME_ORDER]
    body, shares = [], {}
    for g in groups:
        counts = {o: 0 for o in OUTCOME_ORDER}
        for r in g.rows:
            counts[outcome(r)] = counts.get(outcome(r), 0) + 1
        n = len(g.rows)
        shares[(g.level, g.label)] = {o: counts[o] / n for o in OUTCOME_ORDER}
        body.append([f"Level {g.level}", g.label] + [str(counts[o]) if counts[o] else "" for o in OUTCOME_ORDER])
    keep = [i for i in range(2, len(header)) if any(row[i] for row in body)]
    return ([header[0], header[1]] + [header[i] for i in keep],
            [[row[0], row[1]] + [row[i] for i in keep] for row in body], shares)


def detail_causes_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Model", "Primary failure cause", "Stage", "Episodes", "Share of failed"]
    body = []
    for g in groups:
        failed = [r for r in g.scored if not r["exact_match"]]
        counts: dict[tuple, int] = {}
        for r in failed:
            key = (r["failure_cause"], STAGE_LABEL.get(r["failure_stage"], "—"))
            counts[key] = counts.get(key, 0) + 1
        for (cause, stage), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            body.append([f"Level {g.level}", g.label, cause, stage, str(n), f"{n / len(failed):.0%}"])
    return header, body


def coverage_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    sources = ("calendar", "policy", "threads", "rooms")
    header = ["Level", "Model", "Mean coverage"] + [f"read {s}" for s in sources] + ["read directory"]
    body = []
    for g in groups:
        rows = g.scored
        if not rows:
            continue
        cells = [f"Level {g.level}", g.label, _pct(mean([r["source_coverage"] or 0.0 for r in rows]))]
        for s in (*sources, "directory"):
            required = [r for r in rows if s in (r["sources_required"] or [])] if s != "directory" else \
                [r for r in rows if r["level"] == 3]
            cells.append(_pct(mean([float(s in (r["sources_read"] or [])) for r in required])) if required else "")
        body.append(cells)
    return header, body


def efficiency_table(groups: list[Group], prices: dict, models: dict[str, str | None]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Model", "Tool calls", "Scripted solver's calls", "Extra calls", "Tool errors", "Steps",
              "Prompt tokens", "Completion tokens", "Cost per episode (US$)", "Seconds per episode"]
    body = []
    for g in groups:
        rows = g.rows
        prompt = mean([float(r["prompt_tokens"] or 0) for r in rows])
        completion = mean([float(r["completion_tokens"] or 0) for r in rows])
        price = prices.get(models.get(g.label) or "")
        cost = (prompt * price[0] + completion * price[1]) / 1e6 if price and prompt is not None else None
        body.append([f"Level {g.level}", g.label, _num(mean([float(r["tool_calls"]) for r in rows]), 1),
                     _num(mean([float(r["reference_tool_calls"]) for r in rows if r["reference_tool_calls"] is not None]), 1),
                     _num(mean([float(r["extra_tool_calls"]) for r in rows if r["extra_tool_calls"] is not None]), 1),
                     _num(mean([float(r["tool_errors"]) for r in rows]), 1), _num(mean([float(r["steps"] or 0) for r in rows]), 1),
                     f"{prompt:.0f}", f"{completion:.0f}", "—" if cost is None else f"{cost:.4f}",
                     _num(mean([float(r["latency_s"] or 0) for r in rows]), 2)])
    return header, body


def infra_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Model", "Error kind", "Episodes", "Example"]
    body = []
    for g in groups:
        kinds: dict[str, list[dict]] = {}
        for r in g.rows:
            if r.get("error"):
                kinds.setdefault(r.get("error_kind") or "error", []).append(r)
        for kind, rows in sorted(kinds.items()):
            body.append([f"Level {g.level}", g.label, kind, str(len(rows)), (rows[0]["error"] or "")[:120]])
    return header, body


def _signed(x: float) -> str:
    return f"{round(x, 2) + 0.0:+.2f}"  # + 0.0: no "-0.00"


def turns_table(groups: list[Group]) -> tuple[list[str], list[list[str]], dict]:
    """Success within each turn budget k (solved_turn <= k), the multi-turn gain and mean F1 per turn."""
    budget = max(g.run.max_turns for g in groups)
    header = (["Level", "Model", "Mode", "Feedback", "Max turns", "Episodes"]
              + [f"success@{k}" for k in range(1, budget + 1)] + ["Multi-turn gain"]
              + [f"F1 turn {k}" for k in range(1, budget + 1)])
    body, curves = [], {}
    for g in groups:
        scored, k_run = g.scored, g.run.max_turns
        success = [success_at([r["solved_turn"] for r in scored], k) for k in range(1, k_run + 1)]
        if g.run.turns is not None:
            per_turn = g.run.turn_values()
            f1 = mean_by_turn([per_turn.get((r["instance_id"], r["trial"]), {}) for r in scored], k_run)
        else:  # no turns table: only a single-turn run's F1 is known
            f1 = [mean([r["f1"] for r in scored])] if k_run == 1 else [None] * k_run
        pad = [None] * (budget - k_run)
        gain = None if not scored else success[-1] - success[0]
        curves[(g.level, g.label)] = success
        body.append([f"Level {g.level}", g.label, g.run.mode, g.run.feedback, str(k_run), _episodes(g)]
                    + [_pct(x) for x in success + pad] + ["—" if gain is None else f"{100 * gain:+.0f} pts"]
                    + [_num(x) for x in f1 + pad])
    return header, body, curves


def modes_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    """What each mode costs: tokens per scored episode next to its scores."""
    header = ["Level", "Model", "Mode", "Episodes", "Prompt tokens", "Completion tokens", "Avg F1", "EM rate"]
    body = []
    for g in groups:
        scored = g.scored
        body.append([f"Level {g.level}", g.label, g.run.mode, _episodes(g),
                     _num(mean([float(r["prompt_tokens"] or 0) for r in scored]), 0),
                     _num(mean([float(r["completion_tokens"] or 0) for r in scored]), 0),
                     _num(mean([r["f1"] for r in scored])), _pct(mean([float(r["exact_match"]) for r in scored]))])
    return header, body


def ablation_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    """Per level and ablation: each config's mean F1 [95% CI] and EM rate, and each config minus the
    baseline in mean F1 with a paired bootstrap interval (pairs: instance and trial; resampling instances)."""
    diffs = [c for c in ABLATION_CONFIGS if c != "baseline"]
    header = (["Level", "Ablation", "Model"] + [f"{c}: F1 [95% CI], EM" for c in ABLATION_CONFIGS]
              + [f"{c} − baseline: ΔF1 [95% CI]" for c in diffs] + ["Infra errors"])
    configs: dict[tuple[int, str], dict[str, Group]] = {}
    for g in groups:
        if g.run.ablation:
            configs.setdefault((g.level, g.run.ablation[0]), {})[g.run.ablation[1]] = g
    body = []
    for (level, ablation_id), by_name in configs.items():
        cells = []
        for name in ABLATION_CONFIGS:
            scored = by_name[name].scored if name in by_name else []
            ci = bootstrap_ci([r["f1"] for r in scored], [r["instance_id"] for r in scored])
            cells.append(f"{mean([r['f1'] for r in scored]):.2f} [{ci[0]:.2f}, {ci[1]:.2f}], "
                         f"EM {_pct(mean([float(r['exact_match']) for r in scored]))}" if ci else "—")
        f1_of = {name: {(r["instance_id"], r["trial"]): r["f1"] for r in g.scored} for name, g in by_name.items()}
        base = f1_of.get("baseline", {})
        for name in diffs:
            keys = [k for k in base if k in f1_of.get(name, {})]
            d = paired_diff_ci([base[k] for k in keys], [f1_of[name][k] for k in keys], [k[0] for k in keys])
            cells.append(f"{_signed(d[0])} [{_signed(d[1])}, {_signed(d[2])}]" if d else "—")
        meta = next(iter(by_name.values())).run.meta
        model = meta.get("model") or meta.get("agent") or ""
        errors = sum(len(g.rows) - len(g.scored) for g in by_name.values())
        body.append([f"Level {level}", ablation_id, model] + cells + [str(errors)])
    return header, body


def trials_table(groups: list[Group]) -> tuple[list[str], list[list[str]], list[str]]:
    """pass^k and pass@k over each instance's scored trials (Instances: those with one or more), the
    flip rate, and the minimum detectable difference in mean F1 (MDE = 2.8 × √2 × SE, SE: bootstrap
    over instances)."""
    most = max(g.run.trials for g in groups)
    ks = range(1, most + 1)
    header = (["Level", "Model", "Instances", "Trials", "Episodes"] + [f"pass^{k}" for k in ks]
              + [f"pass@{k}" for k in ks] + ["Flip rate", "SE of Avg F1", "MDE (Avg F1)"])
    body, sentences = [], []
    for g in groups:
        scored = g.scored
        outcomes: dict[str, list[bool]] = {}
        for r in scored:
            outcomes.setdefault(r["instance_id"], []).append(bool(r["exact_match"]))
        trials = list(outcomes.values())
        se = bootstrap_se([r["f1"] for r in scored], [r["instance_id"] for r in scored])
        body.append([f"Level {g.level}", g.label, str(len(trials)), str(g.run.trials),
                     _episodes(g)] + [_pct(pass_hat_k(trials, k)) for k in ks] + [_pct(pass_at_k(trials, k)) for k in ks]
                    + [_pct(flip_rate(trials)), _num(se, 3), _num(None if se is None else mde(se))])
        if se == 0:
            sentences.append(f"Level {g.level}, {g.label}: every scored episode has the same F1, so the "
                             "bootstrap has no spread to estimate a detectable difference from.")
        elif se is not None:
            sentences.append(f"Level {g.level}, {g.label}: with {len(trials)} instances × {g.run.trials} trial(s), "
                             f"differences in mean F1 smaller than {mde(se):.2f} (MDE = 2.8 × √2 × SE, "
                             f"SE = {se:.3f}) are within noise; do not read them as real.")
    return header, body, sentences


# --- plots -----------------------------------------------------------------------------------

def plot_f1(stats: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = sorted({s["level"] for s in stats})
    labels = list(dict.fromkeys(s["label"] for s in stats))
    width = 0.8 / max(len(labels), 1)
    fig, ax = plt.subplots(figsize=(max(6, 1.8 * len(levels) * max(1, len(labels)) ** 0.5), 4), dpi=110)
    for j, label in enumerate(labels):
        xs, ys, lo, hi = [], [], [], []
        for i, level in enumerate(levels):
            s = next((s for s in stats if s["level"] == level and s["label"] == label), None)
            if s is None or s["mean_f1"] is None:
                continue
            xs.append(i + (j - (len(labels) - 1) / 2) * width)
            ys.append(s["mean_f1"])
            lo.append(s["mean_f1"] - s["ci"][0])
            hi.append(s["ci"][1] - s["mean_f1"])
        ax.bar(xs, ys, width * 0.95, yerr=[lo, hi], capsize=3, label=label)
    ax.set_xticks(range(len(levels)), [f"Level {level}" for level in levels])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean F1 (95% bootstrap CI)")
    ax.set_title("F1 by level")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def plot_causes(shares: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(shares)
    names = [f"L{level} · {label}" for level, label in keys]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(keys) + 1.6), dpi=110)
    left = [0.0] * len(keys)
    for o in OUTCOME_ORDER:
        values = [shares[k].get(o, 0.0) for k in keys]
        if not any(values):
            continue
        ax.barh(range(len(keys)), values, left=left, color=OUTCOME_COLORS[o], label=o)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(range(len(keys)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of episodes (primary cause of the miss, by source)")
    ax.set_title("Outcomes and primary failure causes")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=4, frameon=False)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def plot_turns(curves: dict, path: Path) -> bool:
    """Success within each turn budget: one panel per level, one line per run; False if nothing scored."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = {key: success for key, success in curves.items() if success[0] is not None}  # scored ones
    if not curves:
        return False
    levels = sorted({level for level, _ in curves})
    labels = list(dict.fromkeys(label for _, label in curves))
    colors = {label: f"C{i % 10}" for i, label in enumerate(labels)}  # one color per run in every panel
    budget = max(len(c) for c in curves.values())
    fig, axes = plt.subplots(1, len(levels), figsize=(3.6 * len(levels) + 2.4, 3.6), dpi=110, squeeze=False,
                             sharey=True)
    for ax, level in zip(axes[0], levels):
        for (lv, label), success in curves.items():
            if lv == level:
                ax.plot(range(1, len(success) + 1), success, marker="o", color=colors[label], alpha=0.85)
        ax.set_title(f"Level {level}")
        ax.set_xticks(range(1, budget + 1))
        ax.set_xlim(0.8, budget + 0.2)
        ax.set_xlabel("turn budget k")
        ax.set_ylim(-0.03, 1.05)
    axes[0][0].set_ylabel("success within k turns")
    handles = [plt.Line2D([], [], color=colors[label], marker="o") for label in labels]
    axes[0][-1].legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Success by turn budget")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return True


# --- rendering -------------------------------------------------------------------------------

def md_table(header: list[str], body: list[list[str]]) -> str:
    if not body:
        return "_none_\n"
    esc = lambda s: str(s).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(map(esc, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(map(esc, row)) + " |" for row in body]
    return "\n".join(lines) + "\n"


def html_table(header: list[str], body: list[list[str]]) -> str:
    if not body:
        return "<p><em>none</em></p>"
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}img{max-width:100%}code{background:#f3f3f3;padding:1px 3px}
.note{color:#555;font-size:13px}"""


@dataclass
class Section:
    title: str
    header: list[str]
    body: list[list[str]]
    note: str | None = None
    image: tuple[str, str] | None = None              # (PNG file in the report directory, alt text)
    sentences: list[str] = field(default_factory=list)  # after the table


def make_report(run_dirs: list[Path], out: Path | None = None, *, prices: dict | None = None) -> Path:
    """Write report.md, report.html and the PNG plots for the runs (ablation directories expand into
    their runs); returns the directory."""
    if not run_dirs:
        raise UserError("give at least one run directory")
    runs = load_runs(run_dirs)
    prices = prices or {}
    out = Path(out) if out else Path("reports") / ("-vs-".join(r.meta["run_id"] for r in runs)[:120])
    out.mkdir(parents=True, exist_ok=True)
    labels = _labels(runs)
    models = {label: r.meta.get("model") for label, r in zip(labels, runs)}
    groups = groups_of(runs)

    results_h, results_b, stats = results_table(groups)
    outcomes_h, outcomes_b, shares = causes_table(groups)
    runs_h = ["Run", "Label", "Agent", "Model", "Mode", "Max turns", "Feedback", "Trials", "Endpoint host",
              "Episodes", "Infra errors", "Build", "Grader", "Created"]
    runs_b = [[r.meta["run_id"], label, r.meta.get("agent") or "", r.meta.get("model") or "—", r.mode,
               str(r.max_turns), r.feedback, str(r.trials), r.meta.get("base_url_host") or "—", str(r.runs.height),
               str((r.meta.get("episodes") or {}).get("infrastructure_errors", 0)),
               (r.meta.get("build") or {}).get("content_sha256", "")[:12], str(r.meta.get("grader_version")),
               str(r.meta.get("created_at", ""))] for label, r in zip(labels, runs)]
    plot_f1(stats, out / "f1_by_level.png")
    plot_causes(shares, out / "failure_causes.png")

    sections = [
        Section("Runs", runs_h, runs_b),
        Section("Results", results_h, results_b,
                "Avg F1 and EM rate count scored episodes only; infrastructure errors (the endpoint failed after "
                "every retry) are listed apart, as (+n) after the episode count. The F1 interval is a bootstrap "
                "over instances. Primary failure causes: the cause that explains the most wrong candidates of a "
                "missed episode, with its stage (decomposition/acquisition: that source was never read; "
                "integration: read, still violated), as a share of the scored episodes.",
                ("f1_by_level.png", "F1 by level")),
    ]
    if any(r.ablation for r in runs):
        sections.append(Section("Ablation", *ablation_table(groups),
                                "Each config's mean F1 with a bootstrap 95% interval (over instances) and EM rate; "
                                "then each config minus the baseline in mean F1, paired by instance and trial, with "
                                "a paired bootstrap 95% interval (resampling instances). Configs: baseline (context, "
                                "no feedback), tools-only (tools, no feedback), feedback-only (context, feedback), "
                                "full (tools, feedback). Infrastructure errors are left out of every pair."))
    if any(r.max_turns > 1 for r in runs):
        turns_h, turns_b, curves = turns_table(groups)
        plotted = plot_turns(curves, out / "success_by_turn.png")
        sections.append(Section("Turns", turns_h, turns_b,
                                "success@k: share of scored episodes whose answer was an exact match within the "
                                "first k turns (— beyond a run's turn budget). Multi-turn gain: success at the "
                                "run's budget minus success@1. F1 turn k: mean F1 of the answer standing after "
                                "turn k (an episode that stopped early, solved, keeps its last answer).",
                                ("success_by_turn.png", "Success by turn budget") if plotted else None))
    if any(r.trials > 1 for r in runs):
        trials_h, trials_b, sentences = trials_table(groups)
        sections.append(Section("Repeated trials", trials_h, trials_b,
                                "Over each instance's scored trials (n trials, c exact matches): pass^k = mean over "
                                "instances of C(c,k)/C(n,k) (all of k trials succeed, as in tau-bench), pass@k = "
                                "mean of 1 − C(n−c,k)/C(n,k) (at least one does); instances with fewer than k "
                                "scored trials are left out at k. Flip rate: share of instances with two or more "
                                "scored trials that disagree on exact match. MDE: the smallest gap in mean F1 this "
                                "run can detect (two-sided 5%, 80% power).", sentences=sentences))
    if any(r.mode != "tools" for r in runs):
        sections.append(Section("Modes", *modes_table(groups),
                                "What each mode costs: prompt and completion tokens per scored episode (all turns), "
                                "next to its scores."))
    sections += [
        Section("Outcomes", outcomes_h, outcomes_b, "Episodes by outcome: an exact match, or the source of the "
                                                    "primary failure cause.",
                ("failure_causes.png", "Outcomes and failure causes")),
        Section("Failure causes in detail", *detail_causes_table(groups)),
        Section("Source coverage", *coverage_table(groups), "Share of episodes that read each source their level "
                                                             "requires (a tool of that source answered without error)."),
        Section("Efficiency, tokens and cost", *efficiency_table(groups, prices, models),
                "Per episode. Extra calls: tool calls beyond those the scripted solver makes on the same instance."),
        Section("Infrastructure errors", *infra_table(groups)),
    ]
    stamp = dt.datetime.now().isoformat(timespec="seconds")
    md = [f"# MPCBench report\n\n{len(runs)} run(s), written {stamp}.\n"]
    for sec in sections:
        md.append(f"## {sec.title}\n")
        if sec.note:
            md.append(sec.note + "\n")
        md.append(md_table(sec.header, sec.body))
        md += [f"- {sentence}" for sentence in sec.sentences] + ([""] if sec.sentences else [])
        if sec.image:
            md.append(f"![{sec.image[1]}]({sec.image[0]})\n")
    (out / "report.md").write_text("\n".join(md))

    def img(name: str, alt: str) -> str:
        data = base64.b64encode((out / name).read_bytes()).decode()
        return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'

    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>MPCBench report</title>"
             f"<style>{CSS}</style></head><body><h1>MPCBench report</h1>"
             f"<p class='note'>{len(runs)} run(s), written {html.escape(stamp)}.</p>"]
    for sec in sections:
        parts.append(f"<h2>{html.escape(sec.title)}</h2>")
        if sec.note:
            parts.append(f"<p class='note'>{html.escape(sec.note)}</p>")
        parts.append(html_table(sec.header, sec.body))
        if sec.sentences:
            parts.append("<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in sec.sentences) + "</ul>")
        if sec.image:
            parts.append(img(*sec.image))
    parts.append("</body></html>")
    (out / "report.html").write_text("".join(parts))
    return out
