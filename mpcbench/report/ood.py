"""The report's in-distribution against ood table (issue 32): one agent's (or model's) runs on
builds in the public wording (dev, train, test) beside its runs on an `ood` build, per level.

    header, body = ood_table(runs)    # body is [] unless some agent has runs of both kinds

The gap (ood minus in-distribution, in mean F1 and EM rate) is what its score owed to the
public phrasings; a `test` and an `ood` build of one secret hold the same instances, so that
pair differs in wording only.
"""

from __future__ import annotations

from ..episode.record import unscored
from .load import Run
from .stats import bootstrap_ci


def split_of(run: Run) -> str:
    return (run.meta.get("split") or {}).get("name") or "dev"


def _who(run: Run) -> tuple[str, str, str]:
    return (run.meta.get("model") or run.meta.get("agent") or "", run.mode, run.options.get("protocol") or "native")


def _scored(runs: list[Run], level: int) -> list[dict]:
    return [r for run in runs for r in run.runs.to_dicts() if r["level"] == level and not unscored(r)]


def _cell(rows: list[dict]) -> tuple[float, str]:
    """Mean F1 of some scored episodes, and it written with its bootstrap interval and EM rate."""
    f1 = [r["f1"] or 0.0 for r in rows]
    ci = bootstrap_ci(f1, [r["instance_id"] for r in rows])
    average, em = sum(f1) / len(f1), sum(bool(r["exact_match"]) for r in rows) / len(rows)
    return average, f"{average:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "") + f", EM {em:.0%} (n={len(rows)})"


def ood_table(runs: list[Run]) -> tuple[list[str], list[list[str]]]:
    header = ["Level", "Agent / model", "In-distribution runs", "In-distribution F1", "ood F1", "ΔF1 (ood − in)"]
    body = []
    for who in sorted({_who(r) for r in runs}):
        mine = [r for r in runs if _who(r) == who]
        inside, ood = [r for r in mine if split_of(r) != "ood"], [r for r in mine if split_of(r) == "ood"]
        if not inside or not ood:
            continue
        levels = sorted({level for r in mine for level in r.runs["level"].to_list()})
        for level in levels:
            rows_in, rows_ood = _scored(inside, level), _scored(ood, level)
            if not rows_in or not rows_ood:
                continue
            (f_in, text_in), (f_ood, text_ood) = _cell(rows_in), _cell(rows_ood)
            body.append([f"Level {level}", who[0] if who[1:] == ("tools", "native") else " · ".join(who),
                         ", ".join(sorted({split_of(r) for r in inside})), text_in, text_ood,
                         f"{f_ood - f_in:+.2f}"])
    return header, body
