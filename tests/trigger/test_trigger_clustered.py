"""The clustered pass-rate interval: present only with families, wider when families move together."""

from __future__ import annotations

from skillbench import stats
from skillbench.schemas.trigger import TriggerResult
from skillbench.trigger.report import clustered_pass_rate


def _result(i: int, passed: bool, family: str | None) -> TriggerResult:
    triggers = 3 if passed else 0
    return TriggerResult.model_validate(
        {
            "query": f"query {i}",
            "should_trigger": True,
            "triggers": triggers,
            "runs": 3,
            "errors": 0,
            "trigger_rate": triggers / 3,
            "pass": passed,
            "family": family,
        }
    )


def test_absent_without_families_or_with_singleton_families() -> None:
    plain = [_result(i, i % 2 == 0, None) for i in range(8)]
    assert clustered_pass_rate(plain, 0.95) is None
    singletons = [_result(i, i % 2 == 0, f"f{i}") for i in range(8)]
    assert clustered_pass_rate(singletons, 0.95) is None


def test_families_that_fail_together_widen_the_interval() -> None:
    # 4 families of 3: two pass entirely, two fail entirely (perfect within-family correlation)
    together = [_result(i, (i // 3) % 2 == 0, f"f{i // 3}") for i in range(12)]
    # the same 6/12 passes, but each family mixes passes and fails
    mixed = [_result(i, i % 2 == 0, f"f{i // 3}") for i in range(12)]
    wide = clustered_pass_rate(together, 0.95)
    narrow = clustered_pass_rate(mixed, 0.95)
    assert wide is not None and narrow is not None
    assert wide.value == narrow.value == 0.5
    assert (wide.high - wide.low) > (narrow.high - narrow.low)  # type: ignore[operator]
    independent = 2 * stats.z_value(0.95) * (0.25 / 12) ** 0.5
    assert (wide.high - wide.low) > independent  # type: ignore[operator]
    assert wide.method.startswith("clustered-se (4 families)")


def test_settled_is_the_literal_interval_test_and_flaky_needs_disagreement() -> None:
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.report import QueryTally, build_result

    def result(triggers: int, runs: int) -> TriggerResult:
        tally = QueryTally(EvalQuery(text="q", should_trigger=True))
        tally.completed, tally.triggers = runs, triggers
        return build_result(tally, threshold=0.5, confidence=0.95)

    unanimous_short = result(3, 3)  # Wilson [0.44, 1.0] straddles 0.5
    assert unanimous_short.settled is False and unanimous_short.flaky is False
    mixed = result(2, 3)
    assert mixed.settled is False and mixed.flaky is True
    unanimous_long = result(10, 10)  # Wilson [0.72, 1.0]
    assert unanimous_long.settled is True and unanimous_long.flaky is False
