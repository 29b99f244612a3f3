"""The per-level summary of a run that run.json keeps and the CLI prints."""

from __future__ import annotations

from ..episode.record import count_episodes, unscored


def summarize(runs: list[dict]) -> list[dict]:
    """Per level: episodes, mean F1 and EM rate over the scored ones, errors (infrastructure: the
    endpoint's; harness: ours), the scored episodes a model's limit ended (`context_exceeded`,
    `model_output_rejected`), calls and tokens."""
    out = []
    for level in sorted({r["level"] for r in runs}):
        rows = [r for r in runs if r["level"] == level]
        scored = [r for r in rows if not unscored(r)]
        n = len(scored)
        out.append({
            "level": level, "episodes": len(rows), "scored": n,
            "mean_f1": sum(r["f1"] for r in scored) / n if n else None,
            "em_rate": sum(bool(r["exact_match"]) for r in scored) / n if n else None,
            **count_episodes(rows),
            **({"task_success": sum(bool(r.get("task_success")) for r in scored) / n}
               if n and any(r.get("task") == "book" for r in scored) else {}),
            "mean_tool_calls": sum(r["tool_calls"] for r in rows) / len(rows),
            "mean_prompt_tokens": sum(r.get("prompt_tokens") or 0 for r in rows) / len(rows),
            "mean_completion_tokens": sum(r.get("completion_tokens") or 0 for r in rows) / len(rows),
            "cost_usd": None if any(r.get("cost_usd") is None for r in rows) else sum(r["cost_usd"] for r in rows),
        })
    return out
