"""mpcbench.stats: bootstrap intervals (plain, clustered, paired), pass^k / pass@k, flip rate,
success within k turns, F1 per turn with carry-forward, MDE."""

from __future__ import annotations

import doctest
import math
import random

import pytest

from mpcbench.report import stats
from mpcbench.report.stats import bootstrap_ci, bootstrap_se, flip_rate, mde, mean_by_turn, paired_diff_ci, pass_at_k, pass_hat_k, success_at


def test_docstring_examples():
    assert doctest.testmod(stats).failed == 0


def test_pass_hat_k_and_pass_at_k_by_hand():
    two_of_four = [[True, False, True, False]]
    assert pass_hat_k(two_of_four, 1) == 0.5
    assert pass_hat_k(two_of_four, 2) == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert pass_at_k(two_of_four, 2) == pytest.approx(5 / 6)   # 1 - C(2,2)/C(4,2)
    assert pass_hat_k(two_of_four, 4) == 0.0 and pass_at_k(two_of_four, 4) == 1.0
    # four instances, one with only three scored trials: it is left out at k = 4
    outcomes = [[True, True, False, False], [True] * 4, [False] * 3, [True, False, True, True]]
    assert pass_hat_k(outcomes, 1) == pytest.approx((0.5 + 1 + 0 + 0.75) / 4)
    assert pass_hat_k(outcomes, 2) == pytest.approx((1 / 6 + 1 + 0 + 3 / 6) / 4)
    assert pass_hat_k(outcomes, 3) == pytest.approx((0 + 1 + 0 + 1 / 4) / 4)
    assert pass_hat_k(outcomes, 4) == pytest.approx(1 / 3)  # (0 + 1 + 0) / 3: the 3-trial instance is out
    assert pass_at_k(outcomes, 1) == pass_hat_k(outcomes, 1)
    assert pass_at_k(outcomes, 2) == pytest.approx((5 / 6 + 1 + 0 + 1) / 4)
    assert pass_at_k(outcomes, 4) == 1.0
    assert pass_hat_k(outcomes, 5) is None and pass_at_k([], 1) is None


def test_flip_rate():
    assert flip_rate([[True, False], [True, True], [False, False], [False, True, True]]) == 0.5
    assert flip_rate([[True], [False]]) is None  # one trial each: nothing can flip
    assert flip_rate([[True, True, True]]) == 0.0


def test_success_at_k_and_f1_by_turn():
    solved = [1, 2, 2, None, 3, None]
    assert [success_at(solved, k) for k in (1, 2, 3, 4)] == [1 / 6, 3 / 6, 4 / 6, 4 / 6]
    assert success_at([], 1) is None
    # solved at turn 1 and stopped: its F1 of 1.0 stands at turns 2 and 3
    episodes = [{1: 1.0}, {1: 0.0, 2: 1.0}, {1: 0.0, 2: 0.2, 3: 0.4}]
    assert mean_by_turn(episodes, 3) == pytest.approx([1 / 3, 2.2 / 3, 2.4 / 3])


def resampled_means(values, clusters, samples, seed):
    """The bootstrap written out in plain Python, cluster by cluster: resample j draws n clusters
    with `random.Random(seed).randrange(n)` and adds them up left to right."""
    groups: dict = {}
    for i, v in enumerate(values):
        groups.setdefault(i if clusters is None else clusters[i], []).append(v)
    picks, rng = list(groups.values()), random.Random(seed)
    means = []
    for _ in range(samples):
        drawn = [picks[rng.randrange(len(picks))] for _ in picks]
        total = 0.0
        for g in drawn:
            total += sum(g)
        means.append(total / sum(len(g) for g in drawn))
    return sorted(means)


@pytest.mark.parametrize("n", [1, 2, 3, 16, 17, 100, 129, 350])
def test_the_bootstrap_draws_what_plain_python_draws(n):
    """bootstrap_means draws its resamples with NumPy: the same means, bit for bit, as drawing
    them one by one, plain and clustered (the cluster count sets how many draws are rejected)."""
    rng = random.Random(n)
    values = [rng.choice([0.0, 0.5, 1.0, rng.random()]) for _ in range(n)]
    clusters = [f"i{rng.randrange(max(1, n // 3))}" for _ in range(n)]
    for grouped, seed, samples in ((None, 0, 2000), (clusters, 0, 2000), (clusters, 12345, 37)):
        assert stats.bootstrap_means(values, grouped, samples=samples, seed=seed) == \
            resampled_means(values, grouped, samples, seed)


def test_bootstrap_interval():
    values = [0.0, 0.5, 1.0, 1.0, 0.25, 0.75] * 5
    lo, hi = bootstrap_ci(values)
    mean = sum(values) / len(values)
    assert lo < mean < hi and 0 <= lo and hi <= 1
    assert bootstrap_ci(values) == (lo, hi)  # seeded
    assert bootstrap_ci([]) is None and bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([1.0] * 10) == (1.0, 1.0)


def test_clustered_bootstrap_counts_instances_not_trials():
    rng = random.Random(1)
    per_instance = [rng.random() for _ in range(12)]
    values = [v for v in per_instance for _ in range(5)]  # 5 identical trials per instance
    clusters = [i for i in range(12) for _ in range(5)]
    lo, hi = bootstrap_ci(values)
    clo, chi = bootstrap_ci(values, clusters)
    assert (chi - clo) > 1.5 * (hi - lo)  # 12 instances, not 60 independent episodes
    assert (clo, chi) == bootstrap_ci(per_instance)  # equal-size clusters of equal values: the per-instance bootstrap
    assert bootstrap_se(values, clusters) > 1.5 * bootstrap_se(values)


def test_bootstrap_se_and_mde():
    values = [0.0, 1.0] * 200
    assert bootstrap_se(values) == pytest.approx(math.sqrt(0.25 / 400), rel=0.1)
    assert bootstrap_se(values) == bootstrap_se(values)  # seeded
    assert bootstrap_se([]) is None
    assert mde(0.05) == pytest.approx(2.8 * math.sqrt(2) * 0.05)


def _paired(n_instances: int, trials: int, shift: float, noise: float, seed: int):
    rng = random.Random(seed)
    a, b, clusters = [], [], []
    for i in range(n_instances):
        difficulty = rng.random()
        for _ in range(trials):
            x = min(1.0, max(0.0, difficulty + rng.uniform(-0.1, 0.1)))
            a.append(x)
            b.append(x + shift + rng.uniform(-noise, noise))
            clusters.append(i)
    return a, b, clusters


def test_paired_difference_interval():
    a, b, clusters = _paired(40, 3, shift=0.1, noise=0.15, seed=2)
    diff, lo, hi = paired_diff_ci(a, b, clusters)
    assert diff == pytest.approx(sum(b) / len(b) - sum(a) / len(a))
    assert lo < 0.1 < hi and lo < diff < hi  # contains the true difference
    # strictly better on every pair, by a little: the interval excludes 0
    a, b, clusters = _paired(30, 2, shift=0.02, noise=0.01, seed=3)
    assert all(y > x for x, y in zip(a, b))
    diff, lo, hi = paired_diff_ci(a, b, clusters)
    assert 0 < lo < diff < hi
    # no real difference: the interval contains 0
    a, b, clusters = _paired(30, 2, shift=0.0, noise=0.2, seed=4)
    _, lo, hi = paired_diff_ci(a, b, clusters)
    assert lo < 0 < hi
    # pairing matters: an unpaired view of the same +0.02 shift cannot tell it from noise
    a, b, clusters = _paired(30, 2, shift=0.02, noise=0.01, seed=3)
    assert bootstrap_ci(a)[1] > bootstrap_ci(b)[0]  # the two marginal intervals overlap
    assert paired_diff_ci([], []) is None
    with pytest.raises(ValueError):
        paired_diff_ci([0.1, 0.2], [0.3])
