"""Exact power of the gate's paired design, its minimum detectable effect, and the runs plan.

The gate pairs base and head run by run: run k of query q under the base skill with run k of
the same query under the head skill. A pair is *regressed* when the base run passed and the head
run failed, *improved* for the reverse; the exact two-sided McNemar test on the discordant pairs
decides (`skillbench.stats.mcnemar_exact`). With per-query pass probabilities p_q for the base
and p'_q = max(p_q − δ, 0) for the head on the affected queries, one pair is regressed with
probability p(1 − p') and improved with (1 − p)p'; the pooled cell probabilities over the eval
set give the exact unconditional power of N pairs:

    power = Σ_d Bin(d; N, ψ) · P(Bin(d, π) ≥ r*(d)),

ψ the discordance probability, π the regressed share of discordant pairs and r*(d) the fewest
regressions of d discordant pairs the test rejects at `alpha`. Pooling treats the pairs as
identically distributed; the real count of discordant pairs (a Poisson-binomial sum) varies
less, so the power stated is, if anything, low. See docs/statistics.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from skillbench.limits import MAX_RUNS
from skillbench.stats import _scipy_stats

#: Effects searched for the minimum detectable effect: drops of 0.005 … 1 in a pass rate.
_EFFECT_STEP = 0.005


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    if not 0 < power < 1:
        raise ValueError("power must be in (0, 1)")


def cell_probabilities(
    rates: Sequence[float], effect: float, *, affected: float = 1.0
) -> tuple[float, float]:
    """(P(regressed pair), P(improved pair)) pooled over queries with base pass rates `rates`
    when a share `affected` of them (a random subset) drops by `effect` (clipped at 0)."""
    if not rates:
        raise ValueError("no rates")
    if not 0 < affected <= 1:
        raise ValueError("affected must be in (0, 1]")
    p = np.clip(np.asarray(rates, dtype=float), 0.0, 1.0)
    q = np.clip(p - effect, 0.0, 1.0)
    same = p * (1 - p)
    regressed = affected * p * (1 - q) + (1 - affected) * same
    improved = affected * (1 - p) * q + (1 - affected) * same
    return float(regressed.mean()), float(improved.mean())


def rejection_threshold(discordant: np.ndarray, alpha: float) -> np.ndarray:
    """r*(d): the fewest regressions among d discordant pairs for which the exact two-sided
    McNemar p-value is below `alpha` (d + 1 where none is)."""
    binom = _scipy_stats().binom
    d = np.asarray(discordant)
    # p = 2·P(X ≤ d − r) < alpha ⟺ d − r < ppf(alpha/2): the largest such d − r is ppf − 1
    k = binom.ppf(alpha / 2, d, 0.5)
    k = np.where(binom.cdf(k, d, 0.5) < alpha / 2, k + 1, k)  # ppf's edge: cdf(k) == alpha/2
    return (d - k + 1).astype(int)


def exact_power(pairs: int, regressed: float, improved: float, alpha: float = 0.05) -> float:
    """Probability that the exact two-sided McNemar test on `pairs` pairs finds a regression at
    `alpha`, each pair regressed / improved with the given probabilities."""
    if pairs <= 0:
        return 0.0
    psi = regressed + improved
    if psi <= 0:
        return 0.0
    binom = _scipy_stats().binom
    d = np.arange(pairs + 1)
    weights = binom.pmf(d, pairs, psi)
    r_star = rejection_threshold(d, alpha)
    tail = binom.sf(r_star - 1, d, regressed / psi)
    tail = np.where(r_star > d, 0.0, tail)
    return float(np.clip((weights * tail).sum(), 0.0, 1.0))


def _check_attenuation(attenuation: float) -> None:
    if not 0 < attenuation <= 1:
        raise ValueError("attenuation must be in (0, 1]")


def power_at(
    rates: Sequence[float],
    runs: int,
    effect: float,
    *,
    alpha: float = 0.05,
    affected: float = 1.0,
    attenuation: float = 1.0,
) -> float:
    """The gate's power with `runs` runs of each query whose base pass rates are `rates`.

    `attenuation` is the grader's J = TPR + TNR − 1 (`skillbench calibrate`): a true drop δ
    shows in the graded pass rates as J·δ, so the power is that of the observed J·δ."""
    _check_attenuation(attenuation)
    regressed, improved = cell_probabilities(rates, effect * attenuation, affected=affected)
    return exact_power(len(rates) * runs, regressed, improved, alpha)


def minimum_detectable_effect(
    rates: Sequence[float],
    runs: int,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    affected: float = 1.0,
    attenuation: float = 1.0,
) -> float | None:
    """The smallest true drop δ (a multiple of 0.005) in the pass rate of every affected query
    that the gate detects with probability ≥ `power` through a grader of attenuation J (the drop
    observed is J·δ); None when even δ = 1 is not detected."""
    _check(alpha, power)
    steps = round(1 / _EFFECT_STEP)
    lo, hi = 1, steps
    kw = {"alpha": alpha, "affected": affected, "attenuation": attenuation}
    if power_at(rates, runs, 1.0, **kw) < power:
        return None
    while lo < hi:  # power grows with the effect
        mid = (lo + hi) // 2
        if power_at(rates, runs, mid * _EFFECT_STEP, **kw) >= power:
            hi = mid
        else:
            lo = mid + 1
    return round(lo * _EFFECT_STEP, 3)


@dataclass(frozen=True)
class RunsPlan:
    """How many runs per query (and queries) the gate needs for an effect."""

    effect: float
    alpha: float
    power: float
    affected: float
    queries: int
    mean_rate: float
    pairs_needed: int | None
    runs: int | None
    queries_needed: int
    achieved_power: float
    enough: bool
    attenuation: float = 1.0

    def lines(self) -> list[str]:
        """The plan as sentences."""
        target = (
            f"a drop of {self.effect:g} in the pass rate of "
            + ("every query" if self.affected >= 1 else f"{self.affected:.0%} of the queries")
            + f", power {self.power:g}, alpha {self.alpha:g} for the pooled test (exact McNemar, "
            "paired runs)"
        )
        if self.pairs_needed is None:
            return [f"plan for {target}: not reachable with at most {MAX_RUNS} runs per query "
                    "and any number of queries"]  # fmt: skip
        lines = [f"plan for {target}:"]
        if self.enough:
            lines.append(
                f"  {self.runs} runs per query × {self.queries} queries = "
                f"{self.runs * self.queries if self.runs else 0} pairs "
                f"(power {self.achieved_power:.3f}); the gate makes 2 × that many runs"
            )
        else:
            lines.append(
                f"  not reachable with the {self.queries} queries of this eval set at "
                f"{MAX_RUNS} runs each (power {self.achieved_power:.3f}); it needs about "
                f"{self.queries_needed} queries like them at {MAX_RUNS} runs"
            )
        lines.append(f"  base pass rate across queries: mean {self.mean_rate:.2f}")
        if self.attenuation < 1:
            lines.append(
                f"  grader attenuation J = {self.attenuation:.3f} folded in: the drop seen "
                f"through the grader is {self.effect * self.attenuation:.3f}"
            )
        return lines


def plan_runs(
    rates: Sequence[float],
    effect: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    affected: float = 1.0,
    max_runs: int = MAX_RUNS,
    attenuation: float = 1.0,
) -> RunsPlan:
    """The fewest runs per query reaching `power` for a true `effect` with these base pass rates,
    seen through a grader of attenuation J (`effect`·J observed; ≈ 1/J² more runs); when
    `max_runs` is not enough, how many queries like these would be."""
    _check(alpha, power)
    if not 0 < effect <= 1:
        raise ValueError("effect must be in (0, 1]")
    _check_attenuation(attenuation)
    m = len(rates)
    regressed, improved = cell_probabilities(rates, effect * attenuation, affected=affected)
    mean_rate = float(np.mean(rates))

    def ok(pairs: int) -> bool:
        return exact_power(pairs, regressed, improved, alpha) >= power

    needed = _fewest_pairs(
        ok, limit=4 * max(m * max_runs, _normal_pairs(regressed, improved, alpha, power))
    )
    if needed is None:
        return RunsPlan(
            effect, alpha, power, affected, m, mean_rate, None, None, 0, 0.0, False, attenuation
        )
    runs = max(1, math.ceil(needed / m))
    while runs <= max_runs and not ok(m * runs):  # the exact test's power saw-tooths in N
        runs += 1
    enough = runs <= max_runs
    runs = min(runs, max_runs)
    queries = max(m, math.ceil(needed / max_runs))
    while not ok(queries * max_runs):
        queries += 1
    achieved = exact_power(m * runs, regressed, improved, alpha)
    return RunsPlan(
        effect, alpha, power, affected, m, mean_rate, needed, runs, queries, achieved, enough,
        attenuation,
    )  # fmt: skip


def _normal_pairs(regressed: float, improved: float, alpha: float, power: float) -> int:
    """The normal approximation of the pairs needed (Connor's), a bound for the exact search."""
    stats = _scipy_stats()
    diff = regressed - improved
    if diff <= 0:
        return 0
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return math.ceil(z * z * (regressed + improved) / (diff * diff))


def _fewest_pairs(check: Callable[[int], bool], *, limit: int) -> int | None:
    """The smallest N ≤ limit with check(N) on the power's rising envelope (doubling, then
    bisection), None when check(limit) fails."""
    hi = 1
    while not check(hi):
        if hi >= limit:
            return None
        hi = min(hi * 2, limit)
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if check(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def runs_to_flag(rate: float, drop: float, *, alpha: float, power: float) -> int | None:
    """Runs per side with which one query of base pass rate `rate` whose rate falls by `drop`
    is flagged by its own exact test at `alpha` with probability `power` (None above
    MAX_RUNS)."""
    plan = plan_runs([rate], min(max(drop, _EFFECT_STEP), 1.0), alpha=alpha, power=power)
    return plan.runs if plan.enough else None


def fewest_runs_alone(queries: int, alpha: float) -> int:
    """The fewest runs per side with which one query's own exact test can be significant at
    all among `queries` (Holm's strictest level alpha/queries): even with every run regressed,
    p = 2·0.5ⁿ must fall below it."""
    level = alpha / max(queries, 1)
    return max(1, math.floor(math.log2(2 / level)) + 1)


def alone_clause(runs: int, queries: int, alpha: float, unit: tuple[str, str]) -> str:
    """What the runs allow one query's own test (at `alpha`, Holm over `queries`): nothing
    below `fewest_runs_alone`, said with the smallest p the runs can give."""
    fewest = fewest_runs_alone(queries, alpha)
    if runs >= fewest:
        return ""
    return (
        f"; at {runs} runs no single {unit[0]} of {queries} can be flagged on its own test (its "
        f"smallest exact p, {2 * 0.5**runs:.3g}, cannot pass Holm at {alpha:g}; it needs ≥ "
        f"{fewest} runs)"
    )


def default_runs_power(
    runs: int, *, queries: int = 20, rate: float = 0.9, alpha: float = 0.05, power: float = 0.8
) -> str:
    """The gate's default runs with what they detect on a typical eval set (`queries` queries
    passing `rate` of their runs): the sentence `skillbench gate --help` states."""
    half = alpha / 2  # the pooled test's share (report.pooled_alpha)
    mde = minimum_detectable_effect([rate] * queries, runs, alpha=half, power=power)
    detects = (
        "cannot detect even a drop of 1 in every query's pass rate"
        if mde is None
        else f"detects a drop of ≥ {mde:g} in every query's pass rate"
    )
    fewest = fewest_runs_alone(queries, half)
    alone = (
        f"no single query can be flagged on its own test below {fewest} runs"
        if runs < fewest
        else f"a single query can be flagged on its own from {fewest} runs"
    )
    return (
        f"{runs} runs: on {queries} queries with a pass rate of {rate:g} the gate "
        f"{detects} with power {power:g} at alpha {alpha:g}; {alone}"
    )
