"""Statistics for evals: intervals, exact tests, paired comparisons, clustered errors, power.

Pure functions over plain numbers. The unit of analysis is the item (a query, an eval case); K runs
of one item are within-item resamples and are averaged first (Miller, "Adding Error Bars to Evals",
arXiv 2411.00640). Every function documents its formula. ``confidence`` is two-sided throughout
(0.95 → a 95 % interval, z = 1.96).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from types import ModuleType
from typing import Literal

import numpy as np

_NORMAL = NormalDist()


def _scipy_stats() -> ModuleType:
    """scipy.stats, imported on first use (it costs about a second at start-up, and the
    common paths — Wilson intervals, z values — need only the standard library)."""
    from scipy import stats

    return stats


Side = Literal["above", "below"]


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its interval; ``value`` is None when undefined (e.g. 0/0)."""

    value: float | None
    low: float | None
    high: float | None
    n: int
    method: str


def z_value(confidence: float) -> float:
    """Two-sided normal quantile z₁₋α/2 for ``confidence`` = 1 − α."""
    _check_confidence(confidence)
    return _NORMAL.inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (no continuity correction).

    With p̂ = k/n and z = z₁₋α/2:
    centre = (p̂ + z²/2n) / (1 + z²/n),
    half   = z / (1 + z²/n) · √(p̂(1−p̂)/n + z²/4n²).
    n = 0 gives (0, 1): nothing is known.
    """
    _check_counts(successes, n)
    if n == 0:
        return (0.0, 1.0)
    z = z_value(confidence)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def rule_of_three(n: int) -> float:
    """Approximate one-sided 95 % upper bound on a rate after 0 successes in n trials: 3/n.

    It comes from (1 − p)ⁿ = 0.05 ⇒ p = −ln(0.05)/n ≈ 2.996/n. n = 0 gives 1.
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    return 1.0 if n == 0 else min(1.0, 3.0 / n)


def clopper_pearson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval: the Beta quantiles

    low = Beta⁻¹(α/2; k, n−k+1) (0 when k = 0), high = Beta⁻¹(1−α/2; k+1, n−k) (1 when k = n).
    Coverage is at least ``confidence`` for every true p. n = 0 gives (0, 1).
    """
    _check_counts(successes, n)
    _check_confidence(confidence)
    if n == 0:
        return (0.0, 1.0)
    alpha = 1.0 - confidence
    low = (
        0.0
        if successes == 0
        else float(_scipy_stats().beta.ppf(alpha / 2, successes, n - successes + 1))
    )
    high = (
        1.0
        if successes == n
        else float(_scipy_stats().beta.ppf(1 - alpha / 2, successes + 1, n - successes))
    )
    return (low, high)


def binomial_test(
    successes: int,
    n: int,
    p: float = 0.5,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
) -> float:
    """Exact binomial test p-value of H₀: rate = p (two-sided: sum of the probabilities of every
    outcome no more likely than the observed one, as in scipy.stats.binomtest)."""
    _check_counts(successes, n)
    if n == 0:
        return 1.0
    return float(_scipy_stats().binomtest(successes, n, p, alternative=alternative).pvalue)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar test for paired pass/fail outcomes.

    b = items passing only under A, c = items passing only under B (the discordant pairs). Under
    H₀ each discordant pair is a fair coin, so p = binomial two-sided test of min(b, c) out of b + c
    at 0.5, i.e. min(1, 2·P(X ≤ min(b, c))) for X ~ Bin(b+c, ½). No discordant pair gives 1.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be >= 0")
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * float(_scipy_stats().binom.cdf(min(b, c), n, 0.5)))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order.

    Sort ascending p₍₁₎ ≤ … ≤ p₍ₘ₎; adjusted p₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎).
    Rejecting where adjusted p ≤ α controls the family-wise error rate at α.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(pvalues[index])))
        adjusted[index] = running
    return adjusted


def paired_bootstrap_ci(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = 0.95,
    n_resamples: int = 5000,
    seed: int = 0,
) -> Estimate:
    """Percentile bootstrap interval of mean(a − b) over paired items.

    Items (pairs) are resampled with replacement ``n_resamples`` times with a seeded generator,
    so the same inputs and seed give the same interval.
    """
    _check_confidence(confidence)
    if len(a) != len(b):
        raise ValueError("a and b must be paired (same length)")
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    n = len(diff)
    if n == 0:
        return Estimate(None, None, None, 0, "paired-bootstrap")
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    chunk = max(1, 2_000_000 // n)
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = diff[idx].mean(axis=1)
    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return Estimate(float(diff.mean()), float(low), float(high), n, "paired-bootstrap")


def clustered_se(values: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """Cluster-robust standard error of the mean (Miller 2024, eq. for clustered evals).

    SE = √( Σ_c ( Σ_{i∈c} (xᵢ − x̄) )² ) / n. Within-cluster cross terms add to the variance when
    items of one family move together. With one item per cluster it reduces to the plug-in
    √(Σ(xᵢ − x̄)²)/n (no n−1 correction), as in the paper.
    """
    x = np.asarray(values, dtype=float)
    if len(x) != len(clusters):
        raise ValueError("values and clusters must have the same length")
    n = len(x)
    if n == 0:
        return float("nan")
    resid = x - x.mean()
    sums: dict[Hashable, float] = {}
    for r, c in zip(resid, clusters, strict=True):
        sums[c] = sums.get(c, 0.0) + float(r)
    return math.sqrt(sum(s * s for s in sums.values())) / n


@dataclass(frozen=True)
class MeanSE:
    """Mean over items with its standard error and normal-approximation interval."""

    mean: float
    se: float
    low: float
    high: float
    n: int


def item_mean_se(
    runs_per_item: Sequence[Sequence[float]],
    *,
    clusters: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
) -> MeanSE:
    """Mean ± SE where each item is first averaged over its K runs.

    x̄ᵢ = mean of item i's runs; mean = (1/n)Σx̄ᵢ; SE = sd(x̄ᵢ, ddof=1)/√n, or the clustered SE when
    ``clusters`` is given; interval = mean ± z·SE. Items with no run are skipped.
    """
    kept = [(float(np.mean(r)), i) for i, r in enumerate(runs_per_item) if len(r) > 0]
    means = np.asarray([m for m, _ in kept], dtype=float)
    n = len(means)
    if n == 0:
        nan = float("nan")
        return MeanSE(nan, nan, nan, nan, 0)
    if clusters is not None:
        se = clustered_se(means.tolist(), [clusters[i] for _, i in kept])
    else:
        se = float(np.std(means, ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    mean = float(means.mean())
    z = z_value(confidence)
    return MeanSE(mean, se, mean - z * se, mean + z * se, n)


def sample_size(delta: float, omega: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Items needed to detect a mean difference δ: n = ⌈(z₁₋α/2 + z₁₋β)² · ω² / δ²⌉.

    ω is the standard deviation of the per-item score (or of the paired per-item difference).
    """
    if delta == 0:
        raise ValueError("delta must be non-zero")
    z_a = _NORMAL.inv_cdf(1 - alpha / 2)
    z_b = _NORMAL.inv_cdf(power)
    return math.ceil((z_a + z_b) ** 2 * omega**2 / delta**2)


def power_of(n: int, delta: float, omega: float, *, alpha: float = 0.05) -> float:
    """Approximate power of n items to detect δ: Φ(√n·|δ|/ω − z₁₋α/2) (inverse of sample_size)."""
    if omega <= 0 or n <= 0:
        return float("nan")
    z_a = _NORMAL.inv_cdf(1 - alpha / 2)
    return _NORMAL.cdf(math.sqrt(n) * abs(delta) / omega - z_a)


def proportion(successes: int, n: int, confidence: float = 0.95) -> Estimate:
    """k/n with its Wilson interval; value None (interval 0–1) when n = 0."""
    low, high = wilson_interval(successes, n, confidence)
    value = successes / n if n else None
    return Estimate(value, low, high, n, "wilson")


@dataclass(frozen=True)
class ClassificationMetrics:
    """Precision, recall, F1 and accuracy of query-level decisions, each with an interval."""

    precision: Estimate
    recall: Estimate
    f1: Estimate
    accuracy: Estimate


def classification_metrics(
    tp: int,
    fp: int,
    fn: int,
    tn: int,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    n_resamples: int = 2000,
) -> ClassificationMetrics:
    """Metrics from confusion counts.

    precision = TP/(TP+FP), recall = TP/(TP+FN), accuracy = (TP+TN)/n, each with a Wilson interval
    over its own denominator. F1 = 2TP/(2TP+FP+FN) with a percentile bootstrap over queries: the n
    queries are resampled with replacement (a multinomial draw over the four cells with the observed
    proportions, seeded); replicates where F1 is undefined (2TP+FP+FN = 0) are dropped.
    """
    for count in (tp, fp, fn, tn):
        if count < 0:
            raise ValueError("counts must be >= 0")
    n = tp + fp + fn + tn
    precision = proportion(tp, tp + fp, confidence)
    recall = proportion(tp, tp + fn, confidence)
    accuracy = proportion(tp + tn, n, confidence)
    denom = 2 * tp + fp + fn
    f1_value = 2 * tp / denom if denom else None
    low: float | None = None
    high: float | None = None
    if f1_value is not None:
        rng = np.random.default_rng(seed)
        draws = rng.multinomial(n, np.array([tp, fp, fn, tn], dtype=float) / n, size=n_resamples)
        d = 2 * draws[:, 0] + draws[:, 1] + draws[:, 2]
        ok = d > 0
        f1s = 2 * draws[ok, 0] / d[ok]
        alpha = 1.0 - confidence
        low, high = (float(v) for v in np.quantile(f1s, [alpha / 2, 1 - alpha / 2]))
    f1 = Estimate(f1_value, low, high, n, "bootstrap")
    return ClassificationMetrics(precision, recall, f1, accuracy)


@dataclass(frozen=True)
class SequentialRule:
    """Adaptive number of runs for one query (``--runs auto``).

    Runs are made in waves: ``first_wave`` runs, then ``wave_size`` more at a time, up to
    ``max_runs``. After each wave sampling stops when either

    (a) curtailment: the decision a fixed design of ``max_runs`` runs would reach can no longer
        change whatever the remaining runs do (min possible rate k/(c+r) ≥ t, or max possible rate
        (k+r)/(c+r) < t, with k triggers, c completed and r runs left) — this never changes the
        decision, it only skips runs; or
    (b) the exact Clopper–Pearson interval at ``confidence`` over the completed runs lies entirely
        on one side of the threshold (low ≥ t: "above"; high < t: "below"); the observed rate is
        then on that side too.

    Otherwise the query runs to ``max_runs`` and is decided by its observed rate, as a fixed design.

    Error control, honestly: (a) is exact. (b) has exact coverage at each look, but the looks are
    repeated, so the chance that (b) stops on a side the fixed design would not have reached is
    not bounded by α/2; a union bound gives (number of looks)·α/2. With the defaults (threshold
    0.5, max_runs 10, 95 %) every (b) stop is also an (a) stop, so the decisions have exactly the
    distribution of the fixed 10-run design. ``operating_characteristics`` computes the exact
    stopping probabilities for any rule and true rate, so the actual error can be reported.
    """

    threshold: float = 0.5
    confidence: float = 0.95
    max_runs: int = 10
    first_wave: int = 3
    wave_size: int = 1

    def __post_init__(self) -> None:
        _check_confidence(self.confidence)
        if self.max_runs < 1 or self.first_wave < 1 or self.wave_size < 1:
            raise ValueError("max_runs, first_wave and wave_size must be >= 1")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError("threshold must be within [0, 1]")

    def looks(self) -> list[int]:
        """The run counts after which the rule looks at the data (ends with max_runs)."""
        points = [min(self.first_wave, self.max_runs)]
        while points[-1] < self.max_runs:
            points.append(min(self.max_runs, points[-1] + self.wave_size))
        return points

    def next_wave(self, attempted: int) -> int:
        """How many more runs to start after ``attempted`` runs (0 once max_runs is reached)."""
        for point in self.looks():
            if point > attempted:
                return point - attempted
        return 0

    def settled(self, successes: int, completed: int, attempted: int | None = None) -> Side | None:
        """The side of the threshold the decision is settled on, or None while undecided.

        ``attempted`` counts every run started (completed + errored); runs left = max_runs − it.
        """
        attempted = completed if attempted is None else attempted
        left = max(0, self.max_runs - attempted)
        if completed + left > 0:
            if successes / (completed + left) >= self.threshold:
                return "above"
            if (successes + left) / (completed + left) < self.threshold:
                return "below"
        if completed == 0:
            return None
        low, high = clopper_pearson(successes, completed, self.confidence)
        if low >= self.threshold:
            return "above"
        if high < self.threshold:
            return "below"
        return None


@dataclass(frozen=True)
class OperatingCharacteristics:
    """Exact behaviour of a SequentialRule for one true rate p (no errored runs)."""

    p_above: float
    p_below: float
    expected_runs: float
    fixed_p_above: float


def operating_characteristics(rule: SequentialRule, p: float) -> OperatingCharacteristics:
    """Exact probabilities (dynamic programming over the binomial paths) that the rule ends above or
    below the threshold, its expected number of runs, and for comparison the probability that a
    fixed design of ``max_runs`` runs ends above (observed rate ≥ threshold)."""
    alive = np.zeros(rule.max_runs + 1)
    alive[0] = 1.0
    done_runs = 0
    p_above = p_below = expected = 0.0
    for point in rule.looks():
        step = point - done_runs
        grown = np.zeros(rule.max_runs + 1)
        pmf = _scipy_stats().binom.pmf(np.arange(step + 1), step, p)
        for k in np.nonzero(alive)[0]:
            grown[k : k + step + 1] += alive[k] * pmf
        alive, done_runs = grown, point
        for k in np.nonzero(alive)[0]:
            side = rule.settled(int(k), point)
            if side is None and point == rule.max_runs:
                side = "above" if k / point >= rule.threshold else "below"
            if side is not None:
                p_above += alive[k] if side == "above" else 0.0
                p_below += alive[k] if side == "below" else 0.0
                expected += alive[k] * point
                alive[k] = 0.0
    ks = np.arange(rule.max_runs + 1)
    fixed = float(
        _scipy_stats().binom.pmf(ks, rule.max_runs, p)[ks / rule.max_runs >= rule.threshold].sum()
    )
    return OperatingCharacteristics(float(p_above), float(p_below), float(expected), fixed)


def _check_counts(successes: int, n: int) -> None:
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")


def mcnemar_one_sided(regressed: int, improved: int) -> float:
    """Exact one-sided McNemar p-value of H₁: the new version passes more items than the old.

    `improved` = items passing only under the new version, `regressed` = only under the old;
    p = P(X ≥ improved) for X ~ Bin(improved + regressed, ½). No discordant pair gives 1.
    """
    if regressed < 0 or improved < 0:
        raise ValueError("discordant counts must be >= 0")
    n = regressed + improved
    if n == 0:
        return 1.0
    return float(_scipy_stats().binom.sf(improved - 1, n, 0.5))
