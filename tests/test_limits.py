"""skillbench.limits: finite numbers within the documented caps, errors naming the option."""

from __future__ import annotations

import math

import pytest

from skillbench import limits
from skillbench.errors import InputError


@pytest.mark.parametrize("value", [0, limits.MAX_RUNS + 1, True, 2.0, "3"])
def test_check_int_refuses(value: object) -> None:
    with pytest.raises(InputError, match=r"^--runs: must be an integer from 1 to 100"):
        limits.check_int(value, "--runs", 1, limits.MAX_RUNS)


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, 0.0, limits.MAX_TIMEOUT_SECONDS + 1])
def test_check_timeout_refuses(value: float) -> None:
    with pytest.raises(InputError, match=r"^--timeout: must be a finite number"):
        limits.check_timeout(value)


def test_accepted_values_pass_through() -> None:
    assert limits.check_int(3, "--runs", 1, limits.MAX_RUNS) == 3
    assert limits.check_timeout(None) is None
    assert limits.check_timeout(120) == 120.0
    assert limits.check_float(0.0, "--threshold", 0.0, 1.0) == 0.0
