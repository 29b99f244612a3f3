"""A candidate's key and the set scores of an answer's keys against the oracle's (docs/semantics.md,
"The answer" and "Scoring").

    >>> s = score_keys([("2026-03-02T09:00", None)], [("2026-03-02T09:00", None), ("2026-03-02T09:30", None)])
    >>> (s.precision, s.recall, round(s.f1, 3), s.exact_match, s.first_correct)
    (1.0, 0.5, 0.667, False, True)

A candidate's key is its start at levels 1-2 and (start, room_id) at level 3. Precision, recall
and F1 compare the set of predicted keys with the oracle's N keys (a repeated key counts once);
exact match iff the sets are equal. A candidate the parser flagged (unreadable, off the grid,
with a UTC offset, no room at level 3) is a wrong prediction of its own. Rank-aware scores:
`first_correct` (the first candidate is the oracle's first) and `ndcg` (graded: the oracle's
rank-1 candidate is worth N, its last one 1, so the right set in the wrong order scores < 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..episode.answers import Candidate
from ..levels import level_spec


Key = tuple


def candidate_key(level: int, candidate: Candidate, position: int) -> Key:
    """The candidate's key; a flagged candidate gets a key of its own that matches nothing."""
    if candidate.start is None or candidate.problem:
        return ("invalid", position)
    return (candidate.start, candidate.room_id if level_spec(level).rooms else None)


@dataclass(frozen=True)
class KeyScores:
    n_pred: int
    n_distinct: int
    n_correct: int
    n_gold: int
    precision: float
    recall: float
    f1: float
    exact_match: bool
    first_correct: bool
    ndcg: float


def score_keys(predicted: list[Key], gold: list[Key]) -> KeyScores:
    """Set scores of predicted keys (in the submitted order) against the gold keys (by rank)."""
    distinct = list(dict.fromkeys(predicted))
    rank = {key: i for i, key in enumerate(gold, start=1)}
    correct = sum(1 for key in distinct if key in rank)
    precision = correct / len(distinct) if distinct else 0.0
    recall = correct / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    n = len(gold)
    dcg = sum((n - rank[key] + 1) / math.log2(i + 1) for i, key in enumerate(distinct, start=1) if key in rank)
    ideal = sum((n - i + 1) / math.log2(i + 1) for i in range(1, n + 1))
    return KeyScores(n_pred=len(predicted), n_distinct=len(distinct), n_correct=correct, n_gold=n,
                     precision=precision, recall=recall, f1=f1, exact_match=bool(gold) and set(distinct) == set(gold),
                     first_correct=bool(predicted and gold) and predicted[0] == gold[0],
                     ndcg=dcg / ideal if ideal else 0.0)


def problem_kinds(level: int, candidate: Candidate) -> list[str]:
    """What the parser found wrong with a candidate, as constraint kinds of the source 'answer'."""
    problem = candidate.problem or ""
    kinds = []
    if candidate.start is None:
        kinds.append("unreadable")
    if "UTC offset" in problem:
        kinds.append("utc_offset")
    if "grid" in problem:
        kinds.append("off_grid")
    if level_spec(level).rooms and "room_id is missing" in problem:
        kinds.append("room_missing")
    if problem and not kinds:
        kinds.append("bad_candidate")
    return kinds
