"""`mpcbench report RUN...`: one report over one or more eval runs.

    make_report([Path("build/runs/A"), Path("build/runs/B")], Path("reports/ab"))
    # -> reports/ab/report.md, report.html (self-contained), f1_by_level.png, failure_causes.png

Per level and model (the agent's name for offline agents): mean F1 with a bootstrap 95%
interval, EM rate, rank-aware scores, parse failures and infrastructure errors (kept apart: they
count in no score), and the primary failure causes with their stage (decomposition/acquisition
or integration), as in the results table of the MPCBench specification. Then failure causes in
full, source coverage, efficiency, tokens and cost per episode. Everything is read from the
runs' Parquet tables and run.json; nothing is recomputed.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import json
import random
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .errors import UserError

BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 0
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


def bootstrap_ci(values: list[float], *, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED,
                 level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean (deterministic: a fixed seed)."""
    if not values:
        return None
    if len(values) == 1:
        return (values[0], values[0])
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples))
    lo = means[int((1 - level) / 2 * samples)]
    hi = means[min(int((1 + level) / 2 * samples), samples - 1)]
    return (lo, hi)


@dataclass
class Run:
    path: Path
    meta: dict
    runs: pl.DataFrame
    failures: pl.DataFrame


def load_run(path: Path) -> Run:
    path = Path(path)
    if not (path / "run.json").exists() or not (path / "runs.parquet").exists():
        raise UserError(f"{path} is not a finished run directory (no run.json or runs.parquet; "
                        "`mpcbench eval --resume --out {path}` finishes one)")
    meta = json.loads((path / "run.json").read_text())
    failures_path = path / "failures.parquet"
    failures = pl.read_parquet(failures_path) if failures_path.exists() else pl.DataFrame()
    return Run(path, meta, pl.read_parquet(path / "runs.parquet"), failures)


def _labels(runs: list[Run]) -> dict[str, str]:
    """A short label per run: the model (or the agent's name); the run id where two would clash."""
    base = {r.meta["run_id"]: r.meta.get("model") or r.meta.get("agent") or r.meta["run_id"] for r in runs}
    if r2 := [r for r in runs if r.meta.get("agent") == "replay"]:
        for r in r2:
            base[r.meta["run_id"]] = f"replay of {base[r.meta['run_id']]}"
    counts: dict[str, int] = {}
    for label in base.values():
        counts[label] = counts.get(label, 0) + 1
    return {run_id: f"{label} ({run_id})" if counts[label] > 1 else label for run_id, label in base.items()}


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

    @property
    def scored(self) -> list[dict]:
        return [r for r in self.rows if not r.get("error")]


def groups_of(runs: list[Run]) -> list[Group]:
    labels = _labels(runs)
    out: dict[tuple[int, str], list[dict]] = {}
    for r in runs:
        label = labels[r.meta["run_id"]]
        for row in r.runs.to_dicts():
            out.setdefault((row["level"], label), []).append(row)
    order = {labels[r.meta["run_id"]]: i for i, r in enumerate(runs)}
    return [Group(level, label, rows) for (level, label), rows in sorted(out.items(), key=lambda kv: (kv[0][0], order[kv[0][1]]))]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def results_table(groups: list[Group]) -> tuple[list[str], list[list[str]], list[dict]]:
    header = ["Level", "Model", "Episodes", "Avg F1 [95% CI]", "EM rate", "First correct", "NDCG",
              "Parse failures", "Infra errors", "Primary failure causes"]
    body, stats = [], []
    for g in groups:
        scored = g.scored
        f1 = [r["f1"] for r in scored]
        ci = bootstrap_ci(f1)
        failed = [r for r in scored if not r["exact_match"]]
        causes: dict[str, int] = {}
        for r in failed:
            causes[_cause_label(r)] = causes.get(_cause_label(r), 0) + 1
        top = sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        cause_text = "; ".join(f"{c} {n / len(scored):.0%}" for c, n in top) or "—"
        mean_f1 = _mean(f1)
        stats.append({"level": g.level, "label": g.label, "mean_f1": mean_f1, "ci": ci,
                      "em_rate": _mean([float(r["exact_match"]) for r in scored])})
        body.append([f"Level {g.level}", g.label, f"{len(scored)}" + (f" (+{len(g.rows) - len(scored)})" if len(g.rows) > len(scored) else ""),
                     f"{_num(mean_f1)} [{_num(ci[0])}, {_num(ci[1])}]" if ci else "—",
                     _pct(stats[-1]["em_rate"]), _pct(_mean([float(r["first_correct"]) for r in scored])),
                     _num(_mean([r["ndcg"] for r in scored])),
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
        cells = [f"Level {g.level}", g.label, _pct(_mean([r["source_coverage"] or 0.0 for r in rows]))]
        for s in (*sources, "directory"):
            required = [r for r in rows if s in (r["sources_required"] or [])] if s != "directory" else \
                [r for r in rows if r["level"] == 3]
            cells.append(_pct(_mean([float(s in (r["sources_read"] or [])) for r in required])) if required else "")
        body.append(cells)
    return header, body


def efficiency_table(groups: list[Group], prices: dict, models: dict[str, str | None]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Model", "Tool calls", "Scripted solver's calls", "Extra calls", "Tool errors", "Steps",
              "Prompt tokens", "Completion tokens", "Cost per episode (US$)", "Seconds per episode"]
    body = []
    for g in groups:
        rows = g.rows
        prompt = _mean([float(r["prompt_tokens"] or 0) for r in rows])
        completion = _mean([float(r["completion_tokens"] or 0) for r in rows])
        price = prices.get(models.get(g.label) or "")
        cost = (prompt * price[0] + completion * price[1]) / 1e6 if price and prompt is not None else None
        body.append([f"Level {g.level}", g.label, _num(_mean([float(r["tool_calls"]) for r in rows]), 1),
                     _num(_mean([float(r["reference_tool_calls"]) for r in rows if r["reference_tool_calls"] is not None]), 1),
                     _num(_mean([float(r["extra_tool_calls"]) for r in rows if r["extra_tool_calls"] is not None]), 1),
                     _num(_mean([float(r["tool_errors"]) for r in rows]), 1), _num(_mean([float(r["steps"] or 0) for r in rows]), 1),
                     f"{prompt:.0f}", f"{completion:.0f}", "—" if cost is None else f"{cost:.4f}",
                     _num(_mean([float(r["latency_s"] or 0) for r in rows]), 2)])
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


def make_report(run_dirs: list[Path], out: Path | None = None, *, prices: dict | None = None) -> Path:
    """Write report.md, report.html and the PNG plots for the runs; returns the directory."""
    if not run_dirs:
        raise UserError("give at least one run directory")
    runs = [load_run(p) for p in run_dirs]
    prices = prices or {}
    out = Path(out) if out else Path("reports") / ("-vs-".join(r.meta["run_id"] for r in runs)[:120])
    out.mkdir(parents=True, exist_ok=True)
    labels = _labels(runs)
    models = {labels[r.meta["run_id"]]: r.meta.get("model") for r in runs}
    groups = groups_of(runs)

    results_h, results_b, stats = results_table(groups)
    outcomes_h, outcomes_b, shares = causes_table(groups)
    detail_h, detail_b = detail_causes_table(groups)
    coverage_h, coverage_b = coverage_table(groups)
    eff_h, eff_b = efficiency_table(groups, prices, models)
    infra_h, infra_b = infra_table(groups)
    runs_h = ["Run", "Agent", "Model", "Endpoint host", "Episodes", "Infra errors", "Build", "Grader", "Created"]
    runs_b = [[r.meta["run_id"], r.meta.get("agent") or "", r.meta.get("model") or "—",
               r.meta.get("base_url_host") or "—", str(r.runs.height),
               str((r.meta.get("episodes") or {}).get("infrastructure_errors", 0)),
               (r.meta.get("build") or {}).get("content_sha256", "")[:12], str(r.meta.get("grader_version")),
               str(r.meta.get("created_at", ""))] for r in runs]
    plot_f1(stats, out / "f1_by_level.png")
    plot_causes(shares, out / "failure_causes.png")

    sections = [
        ("Runs", runs_h, runs_b, None),
        ("Results", results_h, results_b,
         "Avg F1 and EM rate count scored episodes only; infrastructure errors (the endpoint failed after "
         "every retry) are listed apart, as (+n) after the episode count. Primary failure causes: the "
         "cause that explains the most wrong candidates of a missed episode, with its stage "
         "(decomposition/acquisition: that source was never read; integration: read, still violated), as "
         "a share of the scored episodes."),
        ("Outcomes", outcomes_h, outcomes_b, "Episodes by outcome: an exact match, or the source of the primary "
                                             "failure cause."),
        ("Failure causes in detail", detail_h, detail_b, None),
        ("Source coverage", coverage_h, coverage_b, "Share of episodes that read each source their level "
                                                    "requires (a tool of that source answered without error)."),
        ("Efficiency, tokens and cost", eff_h, eff_b, "Per episode. Extra calls: tool calls beyond those the "
                                                      "scripted solver makes on the same instance."),
        ("Infrastructure errors", infra_h, infra_b, None),
    ]
    stamp = dt.datetime.now().isoformat(timespec="seconds")
    md = [f"# MPCBench report\n\n{len(runs)} run(s), written {stamp}.\n"]
    for title, header, body, note in sections:
        md.append(f"## {title}\n")
        if note:
            md.append(note + "\n")
        md.append(md_table(header, body))
        if title == "Results":
            md.append("![F1 by level](f1_by_level.png)\n")
        if title == "Outcomes":
            md.append("![Outcomes and failure causes](failure_causes.png)\n")
    (out / "report.md").write_text("\n".join(md))

    def img(name: str, alt: str) -> str:
        data = base64.b64encode((out / name).read_bytes()).decode()
        return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'

    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>MPCBench report</title>"
             f"<style>{CSS}</style></head><body><h1>MPCBench report</h1>"
             f"<p class='note'>{len(runs)} run(s), written {html.escape(stamp)}.</p>"]
    for title, header, body, note in sections:
        parts.append(f"<h2>{html.escape(title)}</h2>")
        if note:
            parts.append(f"<p class='note'>{html.escape(note)}</p>")
        parts.append(html_table(header, body))
        if title == "Results":
            parts.append(img("f1_by_level.png", "F1 by level"))
        if title == "Outcomes":
            parts.append(img("failure_causes.png", "Outcomes and failure causes"))
    parts.append("</body></html>")
    (out / "report.html").write_text("".join(parts))
    return out
