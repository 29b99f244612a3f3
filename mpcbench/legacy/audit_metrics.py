"""The judge audit's figures, from judge_scores.parquet's rows (plain functions over dicts).

A judge *passes* an episode when its answer_requirements_satisfaction score is at least
PASS (4 of 5). Against the oracle:

- spearman_f1 / spearman_em: rank correlation of the judge's score with F1 and with exact
  match (0/1); grounding_spearman_f1: the same for source_grounded_reasoning.
- confusion: judge pass / fail against exact match / not.
- false_pass_rate: of the episodes whose answer breaks a constraint (a candidate the violation
  views reject), the share the judge passes; false_pass_constraints: how often each constraint
  kind is broken in those false passes. false_pass_not_em: the same over every episode that is
  not an exact match (also ranking errors and too few candidates).
- false_fail_rate: of the exact matches, the share the judge fails.

Agreement: judge vs judge (pairs of judge models on the same episodes, trial 1): Cohen's kappa
of pass/fail and quadratic-weighted kappa of the scores, and Krippendorff's alpha (interval)
over all judges; trial vs trial (one judge asked again): alpha over its trials and the share of
episodes whose pass/fail flips. Judge failures are left out of every figure and counted.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from .agreement import cohen_kappa, krippendorff_alpha, rate, spearman

PASS = 4


def _episode(row: dict) -> tuple:
    return (row["run_id"], row["instance_id"], row["trial"])


def _ok(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["judge_status"] == "ok"]


def judge_metrics(rows: list[dict], judge_model: str) -> dict:
    """The figures of one judge model against the oracle (its first trial)."""
    mine = [r for r in rows if r["judge_model"] == judge_model and r["judge_trial"] == 1]
    ok = _ok(mine)
    sat = [r["satisfaction"] for r in ok]
    passed = [r for r in ok if r["satisfaction"] >= PASS]
    broken = [r for r in ok if r["breaks_constraint"]]
    false_passes = [r for r in broken if r["satisfaction"] >= PASS]
    not_em = [r for r in ok if not r["exact_match"]]
    em = [r for r in ok if r["exact_match"]]
    return {
        "judge_model": judge_model, "episodes": len(mine), "scored": len(ok), "judge_failures": len(mine) - len(ok),
        "failure_statuses": dict(Counter(r["judge_status"] for r in mine if r["judge_status"] != "ok")),
        "mean_satisfaction": sum(sat) / len(sat) if sat else None,
        "spearman_f1": spearman(sat, [r["f1"] for r in ok]),
        "spearman_em": spearman(sat, [float(r["exact_match"]) for r in ok]),
        "grounding_spearman_f1": spearman([r["grounding"] for r in ok], [r["f1"] for r in ok]),
        "confusion": {"pass_em": sum(r["exact_match"] for r in passed), "pass_not_em": sum(not r["exact_match"] for r in passed),
                      "fail_em": len(em) - sum(r["exact_match"] for r in passed),
                      "fail_not_em": len(not_em) - sum(not r["exact_match"] for r in passed)},
        "breaks_constraint": len(broken),
        "false_pass_rate": rate(len(false_passes), len(broken)),
        "false_pass_constraints": dict(sorted(Counter(v for r in false_passes for v in r["violations"]).items(),
                                              key=lambda kv: (-kv[1], kv[0]))),
        "false_pass_not_em": rate(sum(r["satisfaction"] >= PASS for r in not_em), len(not_em)),
        "false_fail_rate": rate(sum(r["satisfaction"] < PASS for r in em), len(em)),
    }


def judge_agreement(rows: list[dict]) -> dict | None:
    """Agreement between judge models on the episodes each scored (trial 1); None with one judge."""
    judges = sorted({r["judge_model"] for r in rows})
    if len(judges) < 2:
        return None
    score = {(r["judge_model"], _episode(r)): r["satisfaction"] for r in _ok(rows) if r["judge_trial"] == 1}
    episodes = sorted({_episode(r) for r in rows})
    pairs = []
    for a, b in combinations(judges, 2):
        both = [e for e in episodes if (a, e) in score and (b, e) in score]
        sa, sb = [score[(a, e)] for e in both], [score[(b, e)] for e in both]
        pairs.append({"judges": (a, b), "episodes": len(both),
                      "kappa_pass": cohen_kappa([s >= PASS for s in sa], [s >= PASS for s in sb]),
                      "kappa_scores_quadratic": cohen_kappa(sa, sb, weights="quadratic")})
    alpha = krippendorff_alpha([[score.get((j, e)) for j in judges] for e in episodes], "interval")
    return {"judges": judges, "pairs": pairs, "alpha_interval": alpha}


def trial_agreement(rows: list[dict]) -> list[dict]:
    """For each judge asked more than once: agreement of its trials on the same episodes."""
    out = []
    for judge_model in sorted({r["judge_model"] for r in rows}):
        mine = _ok([r for r in rows if r["judge_model"] == judge_model])
        trials = sorted({r["judge_trial"] for r in rows if r["judge_model"] == judge_model})
        if len(trials) < 2:
            continue
        by_episode: dict[tuple, dict[int, int]] = {}
        for r in mine:
            by_episode.setdefault(_episode(r), {})[r["judge_trial"]] = r["satisfaction"]
        units = [[scores.get(t) for t in trials] for _, scores in sorted(by_episode.items())]
        judged = [u for u in units if sum(v is not None for v in u) >= 2]
        flips = sum(len({v >= PASS for v in u if v is not None}) > 1 for u in judged)
        out.append({"judge_model": judge_model, "trials": len(trials), "episodes": len(judged),
                    "alpha_interval": krippendorff_alpha(units, "interval"), "pass_flip_rate": rate(flips, len(judged))})
    return out
