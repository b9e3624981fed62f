"""The gate's exact power, minimum detectable effect and runs plan (skillbench.gate.power)."""

from __future__ import annotations

import contextlib
import itertools
import math

import numpy as np
import pytest

from skillbench.gate.power import (
    cell_probabilities,
    exact_power,
    minimum_detectable_effect,
    plan_runs,
    power_at,
    rejection_threshold,
)
from skillbench.stats import mcnemar_exact


def mcnemar_p(b: int, c: int) -> float:
    """The exact two-sided McNemar p-value by counting (no scipy)."""
    b, c = int(b), int(c)
    d = b + c
    return min(1.0, 2 * sum(math.comb(d, k) for k in range(min(b, c) + 1)) / 2**d) if d else 1.0


def test_rejection_threshold_is_the_exact_mcnemar_boundary() -> None:
    d = np.arange(0, 70)
    assert mcnemar_p(9, 2) == pytest.approx(mcnemar_exact(9, 2))
    for alpha in (0.01, 0.05, 0.1):
        for dd, r in zip(d, rejection_threshold(d, alpha), strict=True):
            rejecting = [x for x in range(dd + 1) if x > dd - x and mcnemar_p(x, dd - x) < alpha]
            assert r == (rejecting[0] if rejecting else dd + 1), (alpha, dd)


def brute_force_power(pairs: int, regressed: float, improved: float, alpha: float) -> float:
    """Enumerate every outcome of `pairs` trinomial pairs (regressed / improved / same)."""
    same = 1 - regressed - improved
    total = 0.0
    for r, i in itertools.product(range(pairs + 1), repeat=2):
        if r + i > pairs:
            continue
        ways = math.comb(pairs, r) * math.comb(pairs - r, i)
        prob = ways * regressed**r * improved**i * same ** (pairs - r - i)
        if r > i and mcnemar_p(r, i) < alpha:
            total += prob
    return total


@pytest.mark.parametrize("pairs", [1, 6, 15, 30])
def test_exact_power_equals_enumeration(pairs: int) -> None:
    for regressed, improved in ((0.3, 0.05), (0.2, 0.2), (0.5, 0.0)):
        expected = brute_force_power(pairs, regressed, improved, 0.05)
        assert exact_power(pairs, regressed, improved, 0.05) == pytest.approx(expected, abs=1e-9)


def test_no_effect_has_power_at_most_half_alpha() -> None:
    """Under no change the one-direction rejection rate is the test's size: ≤ alpha / 2."""
    rates = [0.3, 0.5, 0.7, 0.9]
    for runs in (5, 20, 60):
        assert power_at(rates, runs, 0.0) <= 0.025 + 1e-12


def test_cells_of_a_drop_on_a_share_of_queries() -> None:
    regressed, improved = cell_probabilities([0.8, 0.8], 0.3, affected=0.5)
    same = 0.8 * 0.2
    assert regressed == pytest.approx(0.5 * 0.8 * 0.5 + 0.5 * same)
    assert improved == pytest.approx(0.5 * 0.2 * 0.5 + 0.5 * same)
    # a drop past 0 is clipped: a query at 0.1 can lose 0.1 only
    assert cell_probabilities([0.1], 0.5) == pytest.approx((0.1, 0.0))


def test_mde_shrinks_with_runs_and_is_detected_at_the_power() -> None:
    rates = [0.6, 0.7, 0.8, 0.9] * 5
    mdes = [minimum_detectable_effect(rates, n) for n in (4, 10, 40)]
    assert all(m is not None for m in mdes)
    assert mdes[0] > mdes[1] > mdes[2]  # type: ignore[operator]
    m = mdes[1]
    assert power_at(rates, 10, m) >= 0.8 > power_at(rates, 10, m - 0.005)  # type: ignore[operator]


def test_mde_none_when_nothing_is_detectable() -> None:
    assert minimum_detectable_effect([0.9], 1) is None  # one pair can never reach p < 0.05


def test_plan_is_the_fewest_runs_reaching_the_power() -> None:
    rates = [0.6, 0.75, 0.9, 0.8] * 5
    plan = plan_runs(rates, 0.3, power=0.9, affected=0.2)
    assert plan.enough and plan.runs is not None
    assert power_at(rates, plan.runs, 0.3, affected=0.2) >= 0.9
    assert power_at(rates, plan.runs - 1, 0.3, affected=0.2) < 0.9
    assert "runs per query" in " ".join(plan.lines())


def test_plan_names_the_queries_needed_when_runs_are_not_enough() -> None:
    plan = plan_runs([0.5, 0.6], 0.05, power=0.9)
    assert not plan.enough and plan.runs == 100
    assert plan.queries_needed > 2
    assert power_at([0.55] * plan.queries_needed, 100, 0.05) >= 0.9
    assert power_at([0.55] * (plan.queries_needed - 1), 100, 0.05) < 0.9
    assert "not reachable" in " ".join(plan.lines())


def test_the_fewest_runs_a_query_needs_alone_is_where_its_exact_p_passes_holm() -> None:
    from skillbench.gate.power import fewest_runs_alone
    from skillbench.stats import mcnemar_exact

    for queries in (1, 5, 12, 13, 14, 40):
        n = fewest_runs_alone(queries, 0.025)
        assert mcnemar_exact(n, 0) < 0.025 / queries <= mcnemar_exact(n - 1, 0)
    assert fewest_runs_alone(12, 0.025) == 10 and fewest_runs_alone(13, 0.025) == 11


def test_the_gate_help_states_its_default_runs_with_their_power(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from skillbench.cli import gate_cmd, main
    from skillbench.gate.power import default_runs_power
    from skillbench.gate.run import DEFAULT_RUNS, GateOptions

    assert GateOptions().runs == DEFAULT_RUNS
    assert default_runs_power(DEFAULT_RUNS) == gate_cmd.RUNS_POWER  # the stated figures are true
    with contextlib.suppress(SystemExit):
        main(["gate", "--help"])
    assert " ".join(gate_cmd.RUNS_POWER.split()) in " ".join(capsys.readouterr().out.split())


def test_grader_attenuation_shrinks_the_drop_seen_and_raises_the_runs_needed() -> None:
    from skillbench.gate.power import power_at

    rates = [0.8, 0.7, 0.9, 0.6]
    # a true drop of 0.3 through a grader with J = 0.5 is an observed drop of 0.15
    assert power_at(rates, 10, 0.3, attenuation=0.5) == power_at(rates, 10, 0.15)
    plain = plan_runs(rates, 0.3, alpha=0.025)
    weak = plan_runs(rates, 0.3, alpha=0.025, attenuation=0.7)
    assert weak.runs is not None and plain.runs is not None
    # ≈ 1/J² ≈ 2 × the pairs (the exact test saw-tooths; allow the rounding of runs per query)
    assert 1.6 * plain.runs <= weak.runs <= 2.6 * plain.runs
    assert any("attenuation J = 0.700" in line for line in weak.lines())
    mde = minimum_detectable_effect(rates, 20, alpha=0.025)
    weak_mde = minimum_detectable_effect(rates, 20, alpha=0.025, attenuation=0.5)
    assert mde is not None and weak_mde is not None and weak_mde > mde
    with pytest.raises(ValueError):
        power_at(rates, 10, 0.3, attenuation=0.0)
