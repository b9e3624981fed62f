"""skillbench.stats against textbook values (Newcombe 1998) and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from skillbench import stats

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I.
NEWCOMBE = [
    # k, n, Wilson (method 3), Clopper-Pearson exact (method 5)
    (81, 263, (0.2553, 0.3662), (0.2527, 0.3676)),
    (15, 148, (0.0624, 0.1605), (0.0578, 0.1617)),
    (0, 20, (0.0, 0.1611), (0.0, 0.1684)),
    (1, 29, (0.0061, 0.1718), (0.0009, 0.1776)),
]


@pytest.mark.parametrize(("k", "n", "wilson", "exact"), NEWCOMBE)
def test_intervals_match_newcombe(
    k: int, n: int, wilson: tuple[float, float], exact: tuple[float, float]
) -> None:
    assert stats.wilson_interval(k, n) == pytest.approx(wilson, abs=1e-4)
    assert stats.clopper_pearson(k, n) == pytest.approx(exact, abs=1e-4)


@pytest.mark.parametrize(("k", "n"), [(0, 1), (3, 3), (2, 3), (7, 50), (50, 50)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_intervals_match_scipy(k: int, n: int, confidence: float) -> None:
    res = binomtest(k, n)
    w = res.proportion_ci(confidence_level=confidence, method="wilson")
    e = res.proportion_ci(confidence_level=confidence, method="exact")
    assert stats.wilson_interval(k, n, confidence) == pytest.approx((w.low, w.high), abs=1e-9)
    assert stats.clopper_pearson(k, n, confidence) == pytest.approx((e.low, e.high), abs=1e-9)


def test_empty_and_invalid_counts() -> None:
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    assert stats.clopper_pearson(0, 0) == (0.0, 1.0)
    assert stats.proportion(0, 0).value is None
    with pytest.raises(ValueError):
        stats.wilson_interval(4, 3)
    with pytest.raises(ValueError):
        stats.wilson_interval(1, 3, confidence=1.0)


def test_rule_of_three() -> None:
    assert stats.rule_of_three(30) == pytest.approx(0.1)
    assert stats.rule_of_three(0) == 1.0
    # close to the exact one-sided 95 % bound 1 - 0.05**(1/n)
    assert stats.rule_of_three(100) == pytest.approx(1 - 0.05 ** (1 / 100), rel=0.02)


def test_binomial_and_mcnemar_exact() -> None:
    assert stats.binomial_test(9, 10) == pytest.approx(22 / 1024)  # 2·P(X≥9)
    assert stats.binomial_test(9, 10, alternative="greater") == pytest.approx(11 / 1024)
    # McNemar: b=1, c=9 discordant → 2·P(X ≤ 1 | 10, ½) = 2·11/1024
    assert stats.mcnemar_exact(1, 9) == pytest.approx(0.021484375)
    assert stats.mcnemar_exact(9, 1) == stats.mcnemar_exact(1, 9)
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(5, 5) == 1.0


def test_holm() -> None:
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert stats.holm([]) == []


def test_paired_bootstrap_is_seeded_and_sane() -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(0.7, 0.1, 40)
    b = a - 0.2 + rng.normal(0, 0.05, 40)
    one = stats.paired_bootstrap_ci(a, b, seed=3)
    assert one == stats.paired_bootstrap_ci(a, b, seed=3)
    assert one.value == pytest.approx(float(np.mean(a - b)))
    assert one.low is not None and one.high is not None
    assert one.low < one.value < one.high and one.low > 0.15
    constant = stats.paired_bootstrap_ci([1, 1, 1], [0, 0, 0])
    assert (constant.low, constant.high) == (1.0, 1.0)
    with pytest.raises(ValueError):
        stats.paired_bootstrap_ci([1], [1, 2])


def test_clustered_se_hand_computed() -> None:
    # families that move together: residuals +½,+½ and −½,−½ → √(1² + 1²)/4
    assert stats.clustered_se([1, 1, 0, 0], ["a", "a", "b", "b"]) == pytest.approx(math.sqrt(2) / 4)
    # singleton clusters reduce to the plug-in √(Σr²)/n = √(4·¼)/4
    assert stats.clustered_se([1, 1, 0, 0], [1, 2, 3, 4]) == pytest.approx(0.25)
    # anti-correlated within clusters cancel
    assert stats.clustered_se([1, 0, 1, 0], ["a", "a", "b", "b"]) == pytest.approx(0.0)


def test_item_mean_se_averages_runs_first() -> None:
    result = stats.item_mean_se([[1, 1, 0], [0, 0, 0], [1, 1, 1]])
    means = [2 / 3, 0, 1]
    assert result.mean == pytest.approx(np.mean(means))
    assert result.se == pytest.approx(np.std(means, ddof=1) / math.sqrt(3))
    assert result.n == 3
    assert result.high - result.mean == pytest.approx(1.959964 * result.se, rel=1e-5)
    clustered = stats.item_mean_se([[1], [1], [0], [0]], clusters=["a", "a", "b", "b"])
    assert clustered.se == pytest.approx(math.sqrt(2) / 4)


def test_sample_size_and_power() -> None:
    # (1.959964 + 0.841621)² · 0.5² / 0.1² = 196.2 → 197
    assert stats.sample_size(0.1, 0.5) == 197
    assert stats.power_of(197, 0.1, 0.5) == pytest.approx(0.8, abs=0.01)


def test_classification_metrics() -> None:
    m = stats.classification_metrics(tp=8, fp=2, fn=4, tn=6)
    assert m.precision.value == pytest.approx(0.8)
    assert (m.precision.low, m.precision.high) == pytest.approx(stats.wilson_interval(8, 10))
    assert m.recall.value == pytest.approx(8 / 12) and m.recall.n == 12
    assert m.accuracy.value == pytest.approx(14 / 20)
    assert m.f1.value == pytest.approx(16 / 22)
    assert m.f1.low is not None and m.f1.high is not None
    assert m.f1.low < m.f1.value < m.f1.high
    assert m == stats.classification_metrics(tp=8, fp=2, fn=4, tn=6)  # seeded
    none = stats.classification_metrics(tp=0, fp=0, fn=0, tn=5)
    assert none.precision.value is None and none.f1.value is None and none.f1.low is None


def test_sequential_rule_looks_and_decisions() -> None:
    rule = stats.SequentialRule(threshold=0.5, confidence=0.95, max_runs=10)
    assert rule.looks() == [3, 4, 5, 6, 7, 8, 9, 10]
    assert rule.next_wave(0) == 3 and rule.next_wave(3) == 1 and rule.next_wave(10) == 0
    assert rule.settled(3, 3) is None  # 3/3 is not enough
    assert rule.settled(5, 5) == "above"  # 5 of 10 already reached
    assert rule.settled(0, 6) == "below"  # at most 4 of 10 reachable
    assert rule.settled(2, 4) is None
    wide = stats.SequentialRule(max_runs=100)
    assert wide.settled(6, 6) == "above"  # Clopper-Pearson low = 0.025^(1/6) = 0.54
    assert wide.settled(5, 5) is None


@pytest.mark.parametrize("p", [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0])
def test_sequential_rule_default_keeps_fixed_design_decisions(p: float) -> None:
    oc = stats.operating_characteristics(stats.SequentialRule(), p)
    assert oc.p_above + oc.p_below == pytest.approx(1.0)
    assert oc.p_above == pytest.approx(oc.fixed_p_above, abs=1e-12)
    assert oc.expected_runs <= 10


def test_sequential_rule_saves_runs_on_clear_cut_queries() -> None:
    assert stats.operating_characteristics(stats.SequentialRule(), 1.0).expected_runs == 5
    assert stats.operating_characteristics(stats.SequentialRule(), 0.0).expected_runs == 6
    # with a long cap the confidence stop can differ from the fixed design, but only slightly
    oc = stats.operating_characteristics(stats.SequentialRule(max_runs=30), 0.6)
    assert abs(oc.p_above - oc.fixed_p_above) < 0.01
    assert oc.expected_runs < 25
