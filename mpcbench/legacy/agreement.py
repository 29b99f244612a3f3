"""Correlation and agreement statistics for the judge audit, as pure functions over plain lists.

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40]), spearman([1, 2, 3, 4], [4, 3, 2, 1])
    (1.0, -1.0)
    >>> cohen_kappa([1, 1, 0, 0], [1, 1, 0, 0])
    1.0
    >>> round(krippendorff_alpha([[1, 1], [2, 2], [3, 4]], "interval"), 3)
    0.878

Krippendorff's alpha follows Krippendorff (2011), "Computing Krippendorff's alpha-reliability":
a coincidence matrix over the pairable values of each unit (None: missing), then
alpha = 1 - D_o / D_e with the metric's squared difference (nominal, ordinal or interval).
Every function returns None where the statistic is undefined (too few values, no variance).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Sequence

METRICS = ("nominal", "ordinal", "interval")


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they span.

    >>> ranks([10, 30, 20, 20])
    [1.0, 4.0, 2.5, 2.5]
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    n = len(x)
    if n < 2:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx, syy = sum((a - mx) ** 2 for a in x), sum((b - my) ** 2 for b in y)
    return None if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation: Pearson's on the (tie-averaged) ranks."""
    return pearson(ranks(x), ranks(y))


def cohen_kappa(a: Sequence, b: Sequence, weights: str | None = None) -> float | None:
    """Cohen's kappa of two raters over the same items; weights="quadratic" for ordinal numbers.

    >>> a = ["y"] * 25 + ["n"] * 25
    >>> b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    >>> round(cohen_kappa(a, b), 3)
    0.4
    """
    if len(a) != len(b):
        raise ValueError("the raters rated different numbers of items")
    n = len(a)
    if n == 0:
        return None
    cats = sorted(set(a) | set(b))
    if weights == "quadratic":
        lo, hi = min(cats), max(cats)
        w = lambda p, q: 0.0 if hi == lo else ((p - q) / (hi - lo)) ** 2  # noqa: E731
    elif weights is None:
        w = lambda p, q: 0.0 if p == q else 1.0  # noqa: E731
    else:
        raise ValueError(f"weights must be None or 'quadratic', not {weights!r}")
    observed = sum(w(p, q) for p, q in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[p] * cb[q] * w(p, q) for p in cats for q in cats) / (n * n)
    return None if expected == 0 else 1 - observed / expected


def krippendorff_alpha(units: Sequence[Sequence[float | None]], metric: str = "interval") -> float | None:
    """Krippendorff's alpha over units (one list of the raters' values per unit; None: missing).
    Units with fewer than two values are not pairable and are left out."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}")
    coincidences: defaultdict[tuple[float, float], float] = defaultdict(float)   # fractional counts
    for unit in units:
        values = [v for v in unit if v is not None]
        m = len(values)
        if m < 2:
            continue
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    coincidences[(c, k)] += 1 / (m - 1)
    totals: defaultdict[float, float] = defaultdict(float)
    for (c, _), count in coincidences.items():
        totals[c] += count
    n = sum(totals.values())
    if n <= 1:
        return None
    values = sorted(totals)

    def delta(c, k) -> float:
        if metric == "nominal":
            return 0.0 if c == k else 1.0
        if metric == "interval":
            return (c - k) ** 2
        lo, hi = sorted((values.index(c), values.index(k)))
        return (sum(totals[g] for g in values[lo:hi + 1]) - (totals[c] + totals[k]) / 2) ** 2

    observed = sum(count * delta(c, k) for (c, k), count in coincidences.items())
    expected = sum(totals[c] * totals[k] * delta(c, k) for c in values for k in values) / (n - 1)
    return None if expected == 0 else 1 - observed / expected


def rate(hits: int, total: int) -> float | None:
    """hits / total, or None when there is nothing to count."""
    return hits / total if total else None
