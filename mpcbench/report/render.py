"""`mpcbench report RUN...`: one report over one or more eval runs.

    make_report([Path("build/runs/A"), Path("build/runs/B")], Path("reports/ab"))
    # -> reports/ab/report.md, report.html (self-contained), f1_by_level.png, failure_causes.png

Per level and model (the agent's name for offline agents): mean F1 with a bootstrap 95%
interval, EM rate, rank-aware scores, parse failures and infrastructure errors (kept apart: they
count in no score), and the primary failure causes with their stage (acquisition or integration,
failures.parquet's words), as in the results table of the MPCBench specification. Then, where the
runs have them: an ablation (an ablation directory, ablation.json, expands into its four runs:
baseline, tools-only, feedback-only, full) with paired differences to the baseline; success by
turn budget for multi-turn feedback (turns.parquet); pass^k, pass@k, flip rate and the minimum
detectable difference for repeated trials; tokens per mode. Then failure causes in full, source
coverage, efficiency, tokens and cost per episode; with `judge_audit`, the judge audit's section
(`mpcbench judge-audit`'s figures and plot, `judge_audit.py`). Everything is read from the runs' Parquet
tables and run.json (runs from before multi-turn feedback read as one turn, no feedback); the
statistics are in `stats`; the tables in `tables`, the plots in `plots`. Runs scored on different
dataset versions (their gold answers differ) are marked not comparable, as harness errors are
marked: a line at the top (`dataset_mismatch`), and each row's label names its run's version.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..episode.record import count_episodes
from ..errors import UserError
from ..model_limits import CAUSES as MODEL_LIMITS
from .judge_audit import audit_section, load_audit
from .load import comparable, load_runs, run_labels
from .mint import deltas_table, mint_table
from .ood import ood_table
from .plots import plot_causes, plot_f1, plot_turns
from .privacy import NOTE as PRIVACY_NOTE, has_privacy, privacy_table
from .booking import NOTE as BOOKING_NOTE
from .booking import booking_table
from .tables import (ablation_table, causes_table, coverage_table, detail_causes_table, efficiency_table, groups_of,
                     infra_table, modes_table, results_table, trials_table, turns_table)
from .trajectories import write_trajectories


@dataclass(frozen=True)
class Link:
    """A table cell that links to a file of the report (a relative path)."""
    text: str
    href: str

    def __str__(self) -> str:
        return self.text


Cell = str | Link  # a table cell: text, or a link to a file of the report


def md_table(header: list[str], body: Sequence[Sequence[Cell]]) -> str:
    if not body:
        return "_none_\n"
    esc = lambda s: f"[{s.text}]({s.href})" if isinstance(s, Link) else str(s).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(map(esc, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(map(esc, row)) + " |" for row in body]
    return "\n".join(lines) + "\n"


def html_table(header: list[str], body: Sequence[Sequence[Cell]]) -> str:
    if not body:
        return "<p><em>none</em></p>"
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    cell = lambda c: (f"<a href='{html.escape(c.href)}'>{html.escape(c.text)}</a>" if isinstance(c, Link)  # noqa: E731
                      else html.escape(str(c)))
    rows = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"


CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:1em 0;font-size:13px;overflow-wrap:normal}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}img{max-width:100%;height:auto}code{background:#f3f3f3;padding:1px 3px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f7f7;border:1px solid #e3e3e3;padding:6px;font-size:12px;max-height:30em;overflow-y:auto}
details{margin:.4em 0}summary{cursor:pointer}.note{color:#555;font-size:13px}.bad{color:#b00}.good{color:#2a7a1a}
@media (max-width:600px){body{margin:1em auto;padding:0 .6em}h1{font-size:1.5em}}"""


@dataclass
class Section:
    title: str
    header: list[str]
    body: Sequence[Sequence[Cell]]
    note: str | None = None
    image: tuple[str, str] | None = None              # (PNG file in the report directory, alt text)
    sentences: list[str] = field(default_factory=list)  # after the table


def harness_failures(runs: list, labels: list[str]) -> list[str]:
    """One line per run that has harness errors (episodes our own code failed): its scores are not a
    measurement of the model."""
    lines = []
    for label, r in zip(labels, runs):
        n = count_episodes(r.runs.to_dicts())["harness_errors"]
        if n:
            first = r.meta.get("harness_error") or {}
            lines.append(f"Run {label}: {n} episode(s) failed in MPCBench's own code (harness errors, left out of "
                         f"every score below; the run failed). The first, {first.get('instance_id')}: "
                         f"{first.get('error')}")
    return lines


def limits_and_errors(counts: dict[str, int]) -> list[str]:
    """The model limits (all kinds), infrastructure and harness errors of `count_episodes`."""
    return [str(sum(counts[cause] for cause in MODEL_LIMITS)), str(counts["infrastructure_errors"]),
            str(counts["harness_errors"])]


def dataset_mismatch(runs: list) -> list[str]:
    """A line when the runs were scored on different dataset versions (the gold answers changed
    between them: their scores are not comparable), and one per run whose run.json and
    runs.parquet disagree; none when every run is of one version (a run without one is version 1)."""
    lines = []
    if not comparable(runs):
        by_version: dict[str, list[str]] = {}
        for r in runs:
            by_version.setdefault(r.dataset_version, []).append(r.meta["run_id"])
        which = "; ".join(f"version {v}: {', '.join(ids)}" for v, ids in sorted(by_version.items()))
        lines.append(f"Not comparable: these runs were scored on different dataset versions ({which}), whose gold "
                     "answers differ. Do not compare the scores of one version with those of another in any table "
                     "below: each row names its run's version ([dataset N]), and no paired difference is taken "
                     "across versions. Compare runs of one dataset version (`mpcbench info` shows a build's).")
    for r in runs:
        if len(r.dataset_versions) > 1:
            lines.append(f"Run {r.meta['run_id']}: its run.json and runs.parquet record different dataset versions "
                         f"({' and '.join(r.dataset_versions)}); `mpcbench rescore {r.path}` writes its tables again.")
    return lines


def make_report(run_dirs: list[Path], out: Path | None = None, *, prices: dict | None = None,
                trajectories: str = "failed", judge_audit: Path | None = None) -> Path:
    """Write report.md, report.html and the PNG plots for the runs (ablation directories expand into
    their runs), the trajectory pages (`all`, `failed` or `none`) and, given the directory of a
    `mpcbench judge-audit`, its section; returns the directory."""
    if not run_dirs:
        raise UserError("give at least one run directory")
    runs = load_runs(run_dirs)
    prices = prices or {}
    out = Path(out) if out else Path("reports") / ("-vs-".join(r.meta["run_id"] for r in runs)[:120])
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; the report needs a directory (choose another --out)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create the report directory {out}: {e.strerror or e}") from None
    audit = load_audit(judge_audit, out) if judge_audit is not None else None
    labels = run_labels(runs)
    models = {label: r.meta.get("model") for label, r in zip(labels, runs)}
    groups = groups_of(runs)

    results_h, results_b, stats = results_table(groups)
    outcomes_h, outcomes_b, shares = causes_table(groups)
    runs_h = ["Run", "Label", "Agent", "Model", "Mode", "Max turns", "Feedback", "Trials", "Endpoint host",
              "Episodes", "Model limits", "Infra errors", "Harness errors", "Build", "Grader", "Dataset", "Created"]
    runs_b = [[r.meta["run_id"], label, r.meta.get("agent") or "", r.meta.get("model") or "—", r.mode,
               str(r.max_turns), r.feedback, str(r.trials), r.meta.get("base_url_host") or "—", str(r.runs.height),
               *limits_and_errors(count_episodes(r.runs.to_dicts())),
               (r.meta.get("build") or {}).get("content_sha256", "")[:12], str(r.meta.get("grader_version")),
               r.dataset_version, str(r.meta.get("created_at", ""))] for label, r in zip(labels, runs)]
    plot_f1(stats, out / "f1_by_level.png")
    plot_causes(shares, out / "failure_causes.png")

    sections = [
        Section("Runs", runs_h, runs_b),
        Section("Results", results_h, results_b,
                "Avg F1 and EM rate count scored episodes only; infrastructure errors (the endpoint failed after "
                "every retry) are listed apart, as (+n) after the episode count. The F1 interval is a bootstrap "
                "over instances. Primary failure causes: the cause that explains the most wrong candidates of a "
                "missed episode, with its stage as failures.parquet gives it (acquisition: that source was never read, "
                "the specification's decomposition/acquisition stage; integration: read, still violated), as a "
                "share of the scored episodes.",
                ("f1_by_level.png", "F1 by level")),
    ]
    ood_h, ood_b = ood_table(runs)
    if ood_b:
        sections.append(Section("In-distribution against ood", ood_h, ood_b,
                                "Each agent's (or model's) runs on builds in the public wording (dev, train, test) "
                                "against its runs on an ood build (`mpcbench build --split ood`: test's instances "
                                "in wording no public split uses), per level: mean F1 with a bootstrap 95% "
                                "interval over instances, EM rate and scored episodes. A drop on ood is what the "
                                "score owed to knowing the public phrasings (docs/ood.md)."))
    if any(r.ablation for r in runs):
        sections.append(Section("Ablation", *ablation_table(groups),
                                "Each config's mean F1 with a bootstrap 95% interval (over instances) and EM rate; "
                                "then each config minus the baseline in mean F1, paired by instance and trial, with "
                                "a paired bootstrap 95% interval (resampling instances). Configs: baseline (context, "
                                "no feedback), tools-only (tools, no feedback), feedback-only (context, feedback), "
                                "full (tools, feedback), and with --ablation-code code-only (code, no feedback) and "
                                "code-full (code, feedback). ΔF1 per feedback turn (the feedback budget's yield): "
                                "full minus tools-only, feedback-only minus baseline (and code-full minus "
                                "code-only), in mean F1 over the same pairs, divided by the feedback turns (max "
                                "turns − 1). Infrastructure errors are left out of every pair."))
    if any(r.max_turns > 1 for r in runs):
        turns_h, turns_b, curves = turns_table(groups)
        plotted = plot_turns(curves, out / "success_by_turn.png")
        sections.append(Section("Turns", turns_h, turns_b,
                                "success@k: share of scored episodes whose answer was an exact match within the "
                                "first k turns (— beyond a run's turn budget). Multi-turn gain: success at the "
                                "run's budget minus success@1. F1 turn k: mean F1 of the answer standing after "
                                "turn k (an episode that stopped early, solved, keeps its last answer). In the "
                                "plot, runs whose curves are equal share one line (the legend names them, joined "
                                "by =), and a single-turn run is one point at k = 1.",
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
    sections.append(Section("MINT metrics", *mint_table(groups),
                            "SR@k: share of scored episodes solved within k turns (proposals); slope and r² of the "
                            "least-squares line through SR@1..K (— for one turn). Invalid actions: MINT-protocol "
                            "replies with neither <execute> nor <solution>, per step. Native calls count every "
                            "call the agent made itself (python cells included); calls from code are those its "
                            "cells made."))
    deltas_h, deltas_b = deltas_table(groups)
    if deltas_b:
        sections.append(Section("ΔFeedback and ΔCode", deltas_h, deltas_b,
                                "MINT's paired differences, To minus From, for two runs of one model on the same "
                                "instances: ΔFeedback where they differ only in feedback (none against some; same "
                                "mode and protocol), ΔCode where they differ only in tools against code (same "
                                "feedback and turn budget). Pairs: the episodes both scored, matched by instance "
                                "and trial. ΔSuccess: in solved share (exact match within the turn budget), in "
                                "points; ΔF1 in mean F1; 95% intervals from a paired bootstrap resampling "
                                "instances."))
    booked = groups_of(runs, task="book")
    if booked:
        sections.append(Section("Booking task", *booking_table(booked), BOOKING_NOTE))
    if has_privacy(groups):
        sections.append(Section("Privacy", *privacy_table(groups), PRIVACY_NOTE))
    sections += [
        Section("Outcomes", outcomes_h, outcomes_b, "Episodes by outcome: an exact match, or the source of the "
                                                    "primary failure cause.",
                ("failure_causes.png", "Outcomes and failure causes")),
        Section("Failure causes in detail", *detail_causes_table(groups),
                "Runs of one level whose primary causes are the same, count for count, share their rows: the "
                "Model cell names them all."),
        Section("Source coverage", *coverage_table(groups), "Share of episodes that read each source their level "
                                                             "requires (a tool of that source answered without error)."),
        Section("Efficiency, tokens and cost", *efficiency_table(groups, prices, models),
                "Per episode. Extra calls: tool calls beyond those the scripted solver makes on the same instance."),
        Section("Infrastructure errors", *infra_table(groups)),
    ]
    if audit is not None:
        figures, plot = audit
        sections.append(Section(**audit_section(figures), image=(plot, "Judge score against the oracle's F1")))
    pages = write_trajectories(runs, labels, out, trajectories)
    if pages:
        sections.append(Section("Trajectories", ["Run", "Episodes", "Pages", "Index"],
                                [[label, str(n), str(k), Link("trajectories", href)] for label, href, k, n in pages],
                                "One page per episode: the prompt, every tool call and the text it returned, each "
                                f"answer with a verdict per candidate (each violation with its source row), the "
                                f"failure causes and the feedback. Written: {trajectories} episodes "
                                "(--trajectories all|failed|none)."))
    stamp = dt.datetime.now().isoformat(timespec="seconds")
    failed = harness_failures(runs, labels)
    mismatched = dataset_mismatch(runs)
    md = ([f"# MPCBench report\n\n{len(runs)} run(s), written {stamp}.\n"] + [f"> **{line}**\n" for line in failed]
          + [f"> **{line}**\n" for line in mismatched])
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

    parts = [f"<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' content='width=device-width, initial-scale=1'>"
             f"<title>MPCBench report</title>"
             f"<style>{CSS}</style></head><body><h1>MPCBench report</h1>"
             f"<p class='note'>{len(runs)} run(s), written {html.escape(stamp)}.</p>"]
    parts += [f"<p class='bad harness-error'><strong>{html.escape(line)}</strong></p>" for line in failed]
    parts += [f"<p class='bad not-comparable'><strong>{html.escape(line)}</strong></p>" for line in mismatched]
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
