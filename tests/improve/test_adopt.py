"""The adoption rule: the best round replaces the original only when it beats it on the
selection split by a one-sided exact McNemar test."""

from __future__ import annotations

import pytest

from skillbench.errors import InputError
from skillbench.improve.adopt import decide_adoption, selection_pairs
from skillbench.improve.overfit import chosen_iteration
from skillbench.improve.verdict import improve_verdict
from skillbench.schemas.loop import LoopIteration, LoopQueryResult, LoopSummary
from skillbench.stats import mcnemar_one_sided


def _iteration(round_no: int, selection: list[bool], test: list[bool]) -> LoopIteration:
    results = [
        LoopQueryResult(
            query=f"{split} {i}",
            split=split,
            should_trigger=True,
            trigger_rate=1.0 if ok else 0.0,
            triggers=int(ok),
            runs=1,
            passed=ok,
        )
        for split, outcomes in (("selection", selection), ("test", test))
        for i, ok in enumerate(outcomes)
    ]
    return LoopIteration(
        round=round_no,
        description=f"round {round_no}",
        full_pass_rate=0.5,
        selection_passed=sum(selection),
        selection_total=len(selection),
        test_passed=sum(test),
        test_total=len(test),
        results=results,
    )


def test_one_sided_exact_mcnemar() -> None:
    assert mcnemar_one_sided(0, 5) == pytest.approx(1 / 32)
    assert mcnemar_one_sided(0, 1) == pytest.approx(0.5)
    assert mcnemar_one_sided(2, 2) == pytest.approx(11 / 16)
    assert mcnemar_one_sided(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_one_sided(-1, 2)


def test_a_one_query_gain_on_selection_is_noise_and_the_original_is_kept() -> None:
    original = _iteration(1, [True, True, True, False, False], [True] * 5)
    best = _iteration(2, [True, True, True, True, False], [True, True, True, True, False])
    adoption = decide_adoption(original, best)
    assert not adoption.adopted and adoption.chosen_round == 1 and adoption.best_round == 2
    assert (adoption.improved, adoption.regressed) == (1, 0)
    assert adoption.p_value == pytest.approx(0.5)
    assert "the original is kept" in adoption.reason and "McNemar" in adoption.rule


def test_a_clear_gain_is_adopted() -> None:
    original = _iteration(1, [False] * 6, [False] * 3)
    best = _iteration(3, [True] * 6, [True] * 3)
    adoption = decide_adoption(original, best)
    assert adoption.adopted and adoption.chosen_round == 3
    assert adoption.p_value == pytest.approx(1 / 64)
    assert not decide_adoption(original, best, alpha=0.01).adopted  # 1/64 > 0.01


def test_same_round_missing_results_and_bad_alpha() -> None:
    original = _iteration(1, [True, False], [True])
    assert decide_adoption(original, original).reason.startswith("the original was the best")
    bare = original.model_copy(update={"results": None})
    assert selection_pairs(bare, original) is None
    assert not decide_adoption(bare, _iteration(2, [True, True], [True])).adopted
    with pytest.raises(InputError):
        decide_adoption(original, original, alpha=1.5)


def _summary(best: LoopIteration, original: LoopIteration) -> LoopSummary:
    return LoopSummary(
        skill_name="s",
        original_description=original.description,
        iterations=[original, best],
        best_iteration=best,
        final_description=best.description,
        total_rounds=2,
        adoption=decide_adoption(original, best),
    )


def test_improve_verdict_says_kept_or_adopted_with_the_test_figures() -> None:
    original = _iteration(1, [True, True, True, False, False], [True] * 5)
    noisy = _iteration(2, [True, True, True, True, False], [True, True, True, True, False])
    kept = improve_verdict(_summary(noisy, original))
    assert kept.ok is None and kept.line.startswith("kept the original: round 2 led on selection")
    assert "p = 0.5 ≥ 0.05" in kept.line and kept.line.endswith("test 5/5")
    assert chosen_iteration(_summary(noisy, original)).round == 1
    bad = _iteration(1, [False] * 6, [True, True, True])
    clear = _iteration(3, [True] * 6, [True, False, False])
    adopted = improve_verdict(_summary(clear, bad))
    assert adopted.ok is False and "adopted round 3" in adopted.line
    assert "worse on the held-out test queries" in adopted.line and len(adopted.failures) == 2


def test_the_smallest_attainable_p_and_the_selection_size_it_needs() -> None:
    from skillbench.improve.adopt import min_p_value, min_selection_size
    from skillbench.stats import mcnemar_one_sided

    for n in range(1, 9):  # every selection query a discordant pair in the best round's favour
        assert min_p_value(n) == pytest.approx(mcnemar_one_sided(0, n))
    assert min_selection_size(0.05) == 5 and min_selection_size(0.01) == 7
    assert min_p_value(4) >= 0.05 > min_p_value(5)


def test_a_selection_split_too_small_to_ever_adopt_is_said_with_a_split_that_can() -> None:
    from skillbench.improve.adopt import adoption_warning, suggest_fractions
    from skillbench.improve.splits import stratified_split
    from skillbench.trigger.evalset import EvalQuery

    queries = [EvalQuery(f"q{i}", i < 6, None) for i in range(12)]
    assert len(stratified_split(queries).selection) == 2  # the default split of 12 queries
    warning = adoption_warning(2, 12, (0.6, 0.2, 0.2))
    assert warning is not None
    assert "p would be 0.25 ≥ 0.05" in warning and "at least 5 selection queries" in warning
    suggested = suggest_fractions(12, (0.6, 0.2, 0.2))
    assert suggested is not None and f"--split {','.join(f'{f:g}' for f in suggested)}" in warning
    for seed in range(20):  # the suggested split really can adopt, whatever the seed
        assert len(stratified_split(queries, suggested, seed=seed).selection) >= 5
    assert adoption_warning(5, 12, (0.45, 0.4, 0.15)) is None
    too_few = adoption_warning(2, 8, (0.6, 0.2, 0.2))
    assert too_few is not None and "add at least 1 query" in too_few


def test_the_adoption_record_says_when_no_round_could_have_been_adopted() -> None:
    original = _iteration(1, [False, False], [True])
    best = _iteration(2, [True, True], [True])
    adoption = decide_adoption(original, best)
    assert not adoption.adopted and adoption.p_value == pytest.approx(0.25)
    assert adoption.selection_size == 2 and adoption.min_p_value == pytest.approx(0.25)
    assert adoption.min_selection_size == 5
    assert "no round could have been adopted" in adoption.reason
