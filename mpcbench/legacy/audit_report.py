"""The judge audit as a report section: judge_audit.md, judge_audit.png and audit.json.

    write_report(frame, Path("reports/judge_audit"), options)   # -> reports/judge_audit/judge_audit.md

The Markdown is one self-contained section ("## LLM judge vs. the SQL oracle"), to be read on
its own or pasted into a report; the plot shows, for each judge, its score against F1 (jittered,
exact matches marked) and how its scores split between exact matches and the rest.
"""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl

from .audit_metrics import PASS, judge_agreement, judge_metrics, trial_agreement
from .judge import HEURISTIC
from .layout import write_json

REPORT, PLOT, SUMMARY = "judge_audit.md", "judge_audit.png", "audit.json"


def _fmt(value, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _pct(value) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def write_report(frame: pl.DataFrame, out: Path, options: dict) -> Path:
    rows = frame.to_dicts()
    judges = sorted({r["judge_model"] for r in rows})
    figures = {"judges": [judge_metrics(rows, j) for j in judges], "judge_agreement": judge_agreement(rows),
               "trial_agreement": trial_agreement(rows)}
    write_json(out / SUMMARY, {"options": options, **figures})
    plot(rows, judges, out / PLOT)
    text = markdown(figures, rows, options)
    (out / REPORT).write_text(text, encoding="utf-8")
    return out / REPORT


def markdown(figures: dict, rows: list[dict], options: dict) -> str:
    episodes = {(r["run_id"], r["instance_id"], r["trial"]) for r in rows}
    em = sum(1 for r in rows if r["judge_trial"] == 1 and r["judge_model"] == rows[0]["judge_model"] and r["exact_match"])
    lines = ["## LLM judge vs. the SQL oracle", "",
             f"The legacy benchmark's two-axis judge (same prompt, `archive/prompt_config.json`) scored {len(episodes)} "
             f"MPCBench episodes from {len(options['runs'])} run(s), {em} of them exact matches by the oracle. "
             f"A judge *passes* an answer when its answer_requirements_satisfaction score is {PASS} or more. The judge sees "
             "the request, requirements written from the instance (never the gold answer), every tool call with its "
             "result, and the answer; the oracle's verdict comes from the run's own tables.", ""]
    lines += ["| judge | scored | failures | Spearman vs F1 | Spearman vs EM | grounding vs F1 | false-pass rate "
              "(breaks a constraint) | passes a non-EM answer | false-fail rate |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for m in figures["judges"]:
        lines.append(f"| {m['judge_model']} | {m['scored']} | {m['judge_failures']} | {_fmt(m['spearman_f1'])} | "
                     f"{_fmt(m['spearman_em'])} | {_fmt(m['grounding_spearman_f1'])} | "
                     f"{_pct(m['false_pass_rate'])} ({m['breaks_constraint']} broken) | {_pct(m['false_pass_not_em'])} | "
                     f"{_pct(m['false_fail_rate'])} |")
    for m in figures["judges"]:
        c = m["confusion"]
        lines += ["", f"**{m['judge_model']}**: judge verdict against exact match", "",
                  "| | exact match | not exact match |", "|---|---:|---:|",
                  f"| judge ≥ {PASS} (pass) | {c['pass_em']} | {c['pass_not_em']} |",
                  f"| judge < {PASS} (fail) | {c['fail_em']} | {c['fail_not_em']} |"]
        if m["false_pass_constraints"]:
            kinds = ", ".join(f"{kind} ({n})" for kind, n in m["false_pass_constraints"].items())
            lines += ["", f"Constraints broken by the answers it passed: {kinds}."]
        if m["failure_statuses"]:
            lines += ["", "Judge failures (no score): " + ", ".join(f"{k} {v}" for k, v in m["failure_statuses"].items()) + "."]
    agreement = figures["judge_agreement"]
    lines += ["", "**Agreement**", ""]
    if agreement:
        for p in agreement["pairs"]:
            lines.append(f"- {p['judges'][0]} vs {p['judges'][1]} ({p['episodes']} episodes): Cohen's kappa of pass/fail "
                         f"{_fmt(p['kappa_pass'])}, quadratic-weighted kappa of the scores {_fmt(p['kappa_scores_quadratic'])}.")
        lines.append(f"- Krippendorff's alpha (interval) over all judges: {_fmt(agreement['alpha_interval'])}.")
    else:
        lines.append("- Judge vs judge: one judge model only (give `--judge-model` twice or more).")
    for t in figures["trial_agreement"]:
        lines.append(f"- {t['judge_model']}, {t['trials']} trials on {t['episodes']} episodes: Krippendorff's alpha "
                     f"(interval) {_fmt(t['alpha_interval'])}; pass/fail flips on {_pct(t['pass_flip_rate'])} of them.")
    if not figures["trial_agreement"]:
        lines.append("- Trial vs trial: one trial per judge (give `--judge-trials 2` or more).")
    if HEURISTIC in [m["judge_model"] for m in figures["judges"]]:
        lines += ["", f"`{HEURISTIC}` is not a model: it is the deterministic stand-in that lets the audit run offline. "
                      "It checks only backticked terms in the requirements (these have none, so it passes any non-empty "
                      "answer) and whether the answer's dates and times appear in the tool results. Its figures "
                      "show the harness working, not how far an LLM judge can be trusted."]
    lines += ["", f"![judge score against F1]({PLOT})", ""]
    return "\n".join(lines)


def plot(rows: list[dict], judges: list[str], path: Path) -> None:
    """Per judge: its score against F1 (jittered; exact matches in a second colour), and the
    share of each score among exact matches and the rest."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = random.Random(0)
    fig, axes = plt.subplots(len(judges), 2, figsize=(10, 3.6 * len(judges)), squeeze=False)
    for (left, right), judge_model in zip(axes, judges):
        ok = [r for r in rows if r["judge_model"] == judge_model and r["judge_trial"] == 1 and r["judge_status"] == "ok"]
        for exact, colour, label in ((False, "tab:red", "not exact match"), (True, "tab:green", "exact match")):
            mine = [r for r in ok if r["exact_match"] == exact]
            left.scatter([r["satisfaction"] + rng.uniform(-0.2, 0.2) for r in mine],
                         [r["f1"] + rng.uniform(-0.02, 0.02) for r in mine], s=14, alpha=0.6, c=colour, label=label)
            counts = [sum(r["satisfaction"] == s for r in mine) / len(mine) if mine else 0 for s in range(6)]
            right.bar([s + (0.2 if exact else -0.2) for s in range(6)], counts, width=0.4, color=colour, label=label)
        left.axvline(PASS - 0.5, color="grey", linestyle="--", linewidth=0.8)
        left.set(xlabel="judge: answer_requirements_satisfaction", ylabel="oracle F1", xlim=(-0.5, 5.5), ylim=(-0.1, 1.1),
                 title=f"{judge_model}: score vs F1")
        right.set(xlabel="judge score", ylabel="share of episodes", xticks=range(6), title=f"{judge_model}: scores by verdict")
        left.legend(loc="upper left", fontsize=8)
        right.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
