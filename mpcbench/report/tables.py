"""The report's tables, each as (header, body rows) of text cells, over groups of episodes per
level and model: results with bootstrap intervals, failure causes, source coverage, efficiency,
infrastructure errors, turns, modes, ablation and trials (the statistics are in `stats`).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ..episode.record import count_episodes, unscored
from ..model_limits import CAUSES as MODEL_LIMITS
from ..sources import SOURCES
from .load import ABLATION_CODE_CONFIGS, ABLATION_CONFIGS, Run, run_labels
from .stats import (bootstrap_ci, bootstrap_se, flip_rate, mde, mean, mean_by_turn, paired_diff_ci, pass_at_k,
                    pass_hat_k, success_at)


STAGES = ("acquisition", "integration")  # failures.parquet's words for the stage
OUTCOME_ORDER = ("exact match", *SOURCES, "ranking", "too few candidates",
                 "invalid candidate", "parse failure", "unexplained", "context exceeded", "model output rejected",
                 "infrastructure error")


def outcome(row: dict) -> str:
    """The one outcome an episode counts under in the stacked plot."""
    if unscored(row):
        return "infrastructure error"
    if row.get("exact_match"):
        return "exact match"
    cause = row.get("failure_cause") or "unexplained"
    source = row.get("failure_source")
    if source in SOURCES:
        return source
    if source == "answer":
        return "invalid candidate"
    return {"too_few_candidates": "too few candidates", "parse_failure": "parse failure",
            "context_exceeded": "context exceeded", "model_output_rejected": "model output rejected"}.get(cause, cause)


def _cause_label(row: dict) -> str:
    stage = row.get("failure_stage")
    return f"{row['failure_cause']} ({stage})" if stage in STAGES else row["failure_cause"]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def _num(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _tokens(g: "Group", rows: list[dict], column: str) -> str:
    """Mean tokens per episode; "n/a" for an offline agent (no model: nothing counts tokens)."""
    if not g.run.meta.get("model"):
        return "n/a"
    return _num(mean([float(r[column] or 0) for r in rows]), 0)


def join_labels(labels: list[str]) -> str:
    """Labels of runs that share a row, the common "model · " prefix said once.

    >>> join_labels(["m · baseline", "m · tools-only"]), join_labels(["a", "b · full"])
    ('m · baseline, tools-only', 'a, b · full')
    """
    prefixes = {label.split(" · ", 1)[0] for label in labels}
    if len(prefixes) == 1 and all(" · " in label for label in labels):
        return f"{prefixes.pop()} · " + ", ".join(label.split(" · ", 1)[1] for label in labels)
    return ", ".join(labels)


@dataclass
class Group:
    level: int
    label: str
    rows: list[dict]
    run: Run

    @property
    def scored(self) -> list[dict]:
        return [r for r in self.rows if not unscored(r)]


def groups_of(runs: list[Run], task: str = "propose") -> list[Group]:
    """Per level and run, the episodes of `task` (a run from before --task proposed): the proposing
    tables never mix in a booking's F1, which compares one booking with N gold starts."""
    out = []
    for i, (r, label) in enumerate(zip(runs, run_labels(runs))):
        given = pl.col("task").fill_null("propose") if "task" in r.runs.columns else pl.lit("propose")
        episodes = r.runs.filter(given == task)
        for level in sorted(set(episodes["level"].to_list())):
            out.append((level, i, Group(level, label, episodes.filter(pl.col("level") == level).to_dicts(), r)))
    return [g for _, _, g in sorted(out, key=lambda t: t[:2])]


def _episodes(g: Group) -> str:
    """Scored episodes, and infrastructure errors (counted in no score) as (+n)."""
    errors = len(g.rows) - len(g.scored)
    return f"{len(g.scored)}" + (f" (+{errors})" if errors else "")


def results_table(groups: list[Group]) -> tuple[list[str], list[list[str]], list[dict]]:
    header = ["Level", "Model", "Episodes", "Avg F1 [95% CI]", "EM rate", "First correct", "NDCG",
              "Parse failures", "Out of steps", "Model limits", "Over-submitted", "Infra errors",
              "Primary failure causes"]
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
        counts = count_episodes(g.rows)
        mean_f1 = mean(f1)
        em_rate = mean([float(r["exact_match"]) for r in scored])
        stats.append({"level": g.level, "label": g.label, "mean_f1": mean_f1, "ci": ci, "em_rate": em_rate})
        body.append([f"Level {g.level}", g.label, _episodes(g),
                     f"{_num(mean_f1)} [{_num(ci[0])}, {_num(ci[1])}]" if ci else "—",
                     _pct(em_rate), _pct(mean([float(r["first_correct"]) for r in scored])),
                     _num(mean([r["ndcg"] for r in scored])),
                     str(counts["parse_failures"]), str(counts["step_budget"]),
                     str(sum(counts[cause] for cause in MODEL_LIMITS)),
                     # runs scored before grader version 2 have no over_submitted column: "—"
                     _pct(mean([float(r["over_submitted"]) for r in scored if r.get("over_submitted") is not None])),
                     str(counts["infrastructure_errors"]), cause_text])
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
    """Primary failure causes per level and model, with their stage as failures.parquet words it;
    runs of one level whose causes are the same, count for count (an ablation's configs often
    are), share one block of rows."""
    header = ["Level", "Model", "Primary failure cause", "Stage", "Episodes", "Share of failed"]
    blocks: dict[tuple, list[str]] = {}
    for g in groups:
        failed = [r for r in g.scored if not r["exact_match"]]
        counts: dict[tuple, int] = {}
        for r in failed:
            key = (r["failure_cause"], r["failure_stage"] if r["failure_stage"] in STAGES else "—")
            counts[key] = counts.get(key, 0) + 1
        rows = tuple((cause, stage, str(n), f"{n / len(failed):.0%}")
                     for (cause, stage), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        if rows:
            blocks.setdefault((g.level, rows), []).append(g.label)
    return header, [[f"Level {level}", join_labels(labels), *row]
                    for (level, rows), labels in blocks.items() for row in rows]


def coverage_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Model", "Mean coverage"] + [f"read {s}" for s in SOURCES] + ["read directory"]
    body = []
    for g in groups:
        rows = g.scored
        if not rows:
            continue
        cells = [f"Level {g.level}", g.label, _pct(mean([r["source_coverage"] or 0.0 for r in rows]))]
        for s in (*SOURCES, "directory"):
            required = [r for r in rows if s in (r["sources_required"] or [])] if s != "directory" else \
                [r for r in rows if r["level"] >= 3]
            cells.append(_pct(mean([float(s in (r["sources_read"] or [])) for r in required])) if required else "")
        body.append(cells)
    return header, body


def efficiency_table(groups: list[Group], prices: dict, models: dict[str, str | None]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Model", "Tool calls", "Scripted solver's calls", "Extra calls", "Tool errors", "Steps",
              "Prompt tokens", "Completion tokens", "Cost per episode (US$)", "Cost, all episodes (US$)",
              "Seconds per episode"]
    body = []
    for g in groups:
        rows = g.rows
        price = prices.get(models.get(g.label) or "")
        if price:  # --price overrides the run's own price table
            costs = [((r["prompt_tokens"] or 0) * price[0] + (r["completion_tokens"] or 0) * price[1]) / 1e6
                     for r in rows]
        else:  # the runs' cost_usd; unknown (null) for a model without a price, or an offline agent
            costs = [r.get("cost_usd") for r in rows]
        known = rows and all(c is not None for c in costs)
        cost, total = (mean(costs), sum(costs)) if known else (None, None)
        body.append([f"Level {g.level}", g.label, _num(mean([float(r["tool_calls"]) for r in rows]), 1),
                     _num(mean([float(r["reference_tool_calls"]) for r in rows if r["reference_tool_calls"] is not None]), 1),
                     _num(mean([float(r["extra_tool_calls"]) for r in rows if r["extra_tool_calls"] is not None]), 1),
                     _num(mean([float(r["tool_errors"]) for r in rows]), 1), _num(mean([float(r["steps"] or 0) for r in rows]), 1),
                     _tokens(g, rows, "prompt_tokens"), _tokens(g, rows, "completion_tokens"),
                     "n/a" if cost is None else f"{cost:.4f}",
                     "n/a" if total is None else f"{total:.4f}",
                     _num(mean([float(r["latency_s"] or 0) for r in rows]), 2)])
    return header, body


def infra_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Model", "Error kind", "Episodes", "Example"]
    body = []
    for g in groups:
        kinds: dict[str, list[dict]] = {}
        for r in g.rows:
            if unscored(r):
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
        first, last = success[0], success[-1]  # None only when nothing was scored
        gain = None if first is None or last is None else last - first
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
                     _tokens(g, scored, "prompt_tokens"), _tokens(g, scored, "completion_tokens"),
                     _num(mean([r["f1"] for r in scored])), _pct(mean([float(r["exact_match"]) for r in scored]))])
    return header, body


# (with feedback, the same without): their paired F1 gap over the feedback turns is the feedback budget's yield
FEEDBACK_PAIRS = (("full", "tools-only"), ("feedback-only", "baseline"), ("code-full", "code-only"))


def ablation_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    """Per level and ablation: each config's mean F1 [95% CI] and EM rate, each config minus the
    baseline in mean F1 with a paired bootstrap interval (pairs: instance and trial; resampling
    instances), and the gain per feedback turn: a feedback config minus its twin without feedback
    in mean F1 (paired), divided by the feedback turns it had (max_turns − 1)."""
    present = {g.run.ablation[1] for g in groups if g.run.ablation}
    names = list(ABLATION_CONFIGS) + [c for c in ABLATION_CODE_CONFIGS if c in present]
    diffs = [c for c in names if c != "baseline"]
    pairs = [(a, b) for a, b in FEEDBACK_PAIRS if a in names and b in names]
    header = (["Level", "Ablation", "Model"] + [f"{c}: F1 [95% CI], EM" for c in names]
              + [f"{c} − baseline: ΔF1 [95% CI]" for c in diffs]
              + [f"{a} − {b}: ΔF1 per feedback turn" for a, b in pairs] + ["Infra errors"])
    configs: dict[tuple[int, str], dict[str, Group]] = {}
    for g in groups:
        if g.run.ablation:
            configs.setdefault((g.level, g.run.ablation[0]), {})[g.run.ablation[1]] = g
    body = []
    for (level, ablation_id), by_name in configs.items():
        cells = []
        for name in names:
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
        for with_feedback, without in pairs:
            keys = [k for k in f1_of.get(without, {}) if k in f1_of.get(with_feedback, {})]
            feedback_turns = by_name[with_feedback].run.max_turns - 1 if with_feedback in by_name else 0
            gain = mean([f1_of[with_feedback][k] - f1_of[without][k] for k in keys])
            cells.append("—" if gain is None or feedback_turns < 1 else f"{round(gain / feedback_turns, 3) + 0.0:+.3f}")
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
