"""Cohen's κ and its bootstrap interval."""

from __future__ import annotations

import pytest

from skillbench.stats import cohen_kappa, kappa_bootstrap_ci


def test_kappa_textbook_value() -> None:
    # 2×2 table: both yes 20, A yes/B no 5, A no/B yes 10, both no 15 (n = 50)
    a = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    # p_o = 0.7, p_a = 0.5, p_b = 0.6, p_e = 0.3 + 0.2 = 0.5 → κ = 0.4
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_kappa_perfect_opposite_and_undefined() -> None:
    assert cohen_kappa([True, False, True], [True, False, True]) == pytest.approx(1.0)
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    assert cohen_kappa([True, True], [True, True]) is None  # chance agreement is 1
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa([True], [])


def test_bootstrap_interval_brackets_the_value_and_reproduces() -> None:
    a = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    est = kappa_bootstrap_ci(a, b, seed=3)
    assert est.value == pytest.approx(0.4)
    assert est.low is not None and est.high is not None
    assert est.low < 0.4 < est.high
    assert 0.1 < est.high - est.low < 0.8
    assert kappa_bootstrap_ci(a, b, seed=3) == est
    assert est.n == 50 and est.method == "bootstrap"


def test_bootstrap_when_every_resample_is_undefined() -> None:
    est = kappa_bootstrap_ci([True] * 5, [True] * 5)
    assert est.value is None and est.low is None and est.n == 5
