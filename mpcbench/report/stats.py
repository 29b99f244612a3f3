"""The report's statistics, as pure functions over plain lists (deterministic: a fixed seed).

Bootstrap intervals resample clusters when given them (the instance of each episode, so that
repeated trials of one instance are not counted as independent evidence), else single values.
Repeated trials use tau-bench's pass^k (every one of k trials succeeds) and pass@k (at least
one does), estimated without bias from n trials with c successes per instance.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Hashable, Sequence

if TYPE_CHECKING:
    import numpy as np

BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 0
MDE_Z = 2.8  # 1.96 (two-sided 5%) + 0.84 (80% power)


def mean(values: Sequence[float]) -> float | None:
    """The mean, or None for no values.

    >>> mean([1, 2]), mean([])
    (1.5, None)
    """
    return sum(values) / len(values) if values else None


def bootstrap_means(values: Sequence[float], clusters: Sequence[Hashable] | None = None, *,
                    samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> list[float]:
    """Sorted means of `samples` resamples: of the values, or of whole clusters (values that share
    a cluster key are drawn together; the mean is over all values drawn). Resample j draws the
    clusters `random.Random(seed).randrange(n)` gives, n at a time (`_draws`), and adds their sums
    up left to right."""
    import numpy as np   # a tenth of a second to import: only a report pays it, not every command

    groups: dict = {}
    for i, v in enumerate(values):
        groups.setdefault(i if clusters is None else clusters[i], []).append(v)
    picks = list(groups.values())
    n = len(picks)
    drawn = _draws(seed, n, samples * n).reshape(samples, n)
    sums = np.array([sum(g) for g in picks], dtype=np.float64)
    total = np.zeros(samples)
    for column in drawn.T:
        total += sums[column]
    sizes = np.array([len(g) for g in picks])[drawn].sum(axis=1)
    return sorted((total / sizes).tolist())


def _draws(seed: int, n: int, count: int) -> np.ndarray:
    """The first `count` numbers of `random.Random(seed).randrange(n)`, in order, at NumPy's speed:
    randrange takes the top n.bit_length() bits of the next 32-bit output of the Mersenne Twister
    that NumPy's RandomState also runs, and draws again while they are n or more.

    >>> rng = random.Random(7); _draws(7, 5, 6).tolist() == [rng.randrange(5) for _ in range(6)]
    True
    """
    import numpy as np

    if not 0 < n < 2**32:
        raise ValueError(f"cannot draw from {n} clusters")
    _, state, _ = random.Random(seed).getstate()
    twister = np.random.RandomState()
    twister.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1], 0, 0.0))
    shift = np.uint32(32 - n.bit_length())
    kept: list[np.ndarray] = []
    got = 0
    while got < count:   # about half the draws are kept at worst
        top = twister.randint(0, 2**32, size=2 * (count - got) + 64, dtype=np.uint32) >> shift
        kept.append(top[top < n])
        got += len(kept[-1])
    return np.concatenate(kept)[:count].astype(np.intp)


def bootstrap_ci(values: Sequence[float], clusters: Sequence[Hashable] | None = None, *,
                 samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED,
                 level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean.

    >>> bootstrap_ci([0.5, 0.5, 0.5])
    (0.5, 0.5)
    >>> lo, hi = bootstrap_ci([0.0, 1.0] * 20); lo < 0.5 < hi
    True
    >>> bootstrap_ci([]) is None
    True
    """
    if not values:
        return None
    means = bootstrap_means(values, clusters, samples=samples, seed=seed)
    return (means[int((1 - level) / 2 * samples)], means[min(int((1 + level) / 2 * samples), samples - 1)])


def bootstrap_se(values: Sequence[float], clusters: Sequence[Hashable] | None = None, *,
                 samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> float | None:
    """Bootstrap standard error of the mean (the standard deviation of the resampled means).

    >>> bootstrap_se([0.5] * 5)
    0.0
    >>> round(bootstrap_se([0.0, 1.0] * 50), 2)  # analytic: sqrt(0.25 / 100) = 0.05
    0.05
    """
    if not values:
        return None
    means = bootstrap_means(values, clusters, samples=samples, seed=seed)
    m = sum(means) / len(means)
    return math.sqrt(sum((x - m) ** 2 for x in means) / (len(means) - 1))


def paired_diff_ci(a: Sequence[float], b: Sequence[float], clusters: Sequence[Hashable] | None = None, *,
                   samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED,
                   level: float = 0.95) -> tuple[float, float, float] | None:
    """Mean of b - a over pairs (a[i], b[i]) and its paired bootstrap interval: (diff, lo, hi).

    >>> [round(x, 6) for x in paired_diff_ci([0.2, 0.4, 0.6], [0.5, 0.7, 0.9])]  # b = a + 0.3 on every pair
    [0.3, 0.3, 0.3]
    """
    if not a:
        return None
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    average, interval = mean(diffs), bootstrap_ci(diffs, clusters, samples=samples, seed=seed, level=level)
    if average is None or interval is None:   # only without pairs
        return None
    return (average, *interval)


def mde(se: float, z: float = MDE_Z) -> float:
    """Smallest difference between two means with this standard error that a two-sided 5% test
    detects with 80% power: z * sqrt(2) * SE.

    >>> round(mde(0.05), 3)
    0.198
    """
    return z * math.sqrt(2) * se


def success_at(solved_turns: Sequence[int | None], k: int) -> float | None:
    """Share of episodes solved within a budget of k turns (solved_turn <= k; None: never solved).

    >>> success_at([1, 2, None, 3], 1), success_at([1, 2, None, 3], 2), success_at([1, 2, None, 3], 3)
    (0.25, 0.5, 0.75)
    """
    return mean([float(s is not None and s <= k) for s in solved_turns])


def mean_by_turn(episodes: Sequence[dict[int, float]], turns: int) -> list[float | None]:
    """Mean value at turns 1..turns over episodes given as {turn: value}; an episode that stopped
    before a turn counts with its last value (its answer stands).

    >>> mean_by_turn([{1: 1.0}, {1: 0.0, 2: 0.5}], 3)
    [0.5, 0.75, 0.75]
    """
    out = []
    for t in range(1, turns + 1):
        values = []
        for ep in episodes:
            seen = [k for k in ep if k <= t]
            if seen:
                values.append(ep[max(seen)])
        out.append(mean(values))
    return out


def pass_hat_k(outcomes: Sequence[Sequence[bool]], k: int) -> float | None:
    """tau-bench pass^k: the chance that k trials of an instance all succeed, C(c,k)/C(n,k),
    averaged over instances (outcomes: one list of trial successes per instance; instances with
    fewer than k trials are left out).

    >>> trials = [[True, True, False, False]]
    >>> pass_hat_k(trials, 1), round(pass_hat_k(trials, 2), 4), pass_hat_k(trials, 3), pass_hat_k(trials, 5)
    (0.5, 0.1667, 0.0, None)
    """
    return mean([math.comb(sum(o), k) / math.comb(len(o), k) for o in outcomes if len(o) >= k])


def pass_at_k(outcomes: Sequence[Sequence[bool]], k: int) -> float | None:
    """pass@k: the chance that at least one of k trials succeeds, 1 - C(n-c,k)/C(n,k), averaged
    over instances with at least k trials.

    >>> trials = [[True, True, False, False]]
    >>> pass_at_k(trials, 1), round(pass_at_k(trials, 2), 4), pass_at_k(trials, 3)
    (0.5, 0.8333, 1.0)
    """
    return mean([1 - math.comb(len(o) - sum(o), k) / math.comb(len(o), k) for o in outcomes if len(o) >= k])


def flip_rate(outcomes: Sequence[Sequence[bool]]) -> float | None:
    """Share of instances (with two or more trials) whose trials disagree.

    >>> flip_rate([[True, False], [True, True], [False, False, False], [True]])
    0.3333333333333333
    """
    return mean([float(len(set(o)) > 1) for o in outcomes if len(o) >= 2])


def least_squares(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float] | None:
    """(slope, r²) of the least-squares line through the points (MINT's per-turn slope); None
    for fewer than two points or no spread in x. r² is 1.0 when y does not vary.

    >>> least_squares([1, 2, 3], [0.2, 0.4, 0.6])
    (0.2, 1.0)
    """
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    slope = sxy / sxx
    return round(slope, 12), 1.0 if syy == 0 else round(sxy * sxy / (sxx * syy), 12)
