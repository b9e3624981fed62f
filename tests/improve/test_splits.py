"""Seeded, stratified train / selection / test splits."""

from __future__ import annotations

import pytest
from improve_fakes import sample_queries

from skillbench.errors import InputError
from skillbench.improve.splits import (
    SPLIT_NAMES,
    Split,
    parse_fractions,
    split_from_record,
    split_record,
    split_sizes,
    stratified_split,
)
from skillbench.trigger.evalset import EvalQuery, load_eval_set


def test_every_split_has_a_positive_and_a_negative_and_covers_the_set() -> None:
    queries = sample_queries()
    split = stratified_split(queries, seed=7)
    label = {q.text: q.should_trigger for q in queries}
    members = [t for name in SPLIT_NAMES for t in split.members(name)]
    assert sorted(members) == sorted(label)  # disjoint and complete
    for name in SPLIT_NAMES:
        classes = {label[t] for t in split.members(name)}
        assert classes == {True, False}, name
    assert (len(split.train), len(split.selection), len(split.test)) == (12, 4, 4)


def test_same_seed_same_split_other_seed_other_split() -> None:
    queries = sample_queries()
    assert stratified_split(queries, seed=1) == stratified_split(queries, seed=1)
    assert stratified_split(queries, seed=1).train != stratified_split(queries, seed=2).train


def test_families_spread_over_splits_on_the_sample_set() -> None:
    queries = load_eval_set("data/evals/sql-query-reviewer.trigger.json")
    split = stratified_split(queries, seed=0)
    family = {q.text: q.family for q in queries}
    db_ops = [t for t in family if family[t] == "db-ops"]
    assert len({split.split_of(t) for t in db_ops}) >= 2


def test_too_few_of_a_class_is_a_clear_error_not_an_empty_split() -> None:
    queries = [EvalQuery(f"p{i}", True) for i in range(5)] + [
        EvalQuery("n1", False),
        EvalQuery("n2", False),
    ]
    with pytest.raises(InputError) as err:
        stratified_split(queries, source="evals.json")
    assert "negative" in str(err.value) and err.value.field == "should_trigger"


def test_duplicate_text_is_an_input_error() -> None:
    queries = [*sample_queries(), sample_queries()[0]]
    with pytest.raises(InputError, match="more than once"):
        stratified_split(queries)


@pytest.mark.parametrize("text", ["0.6,0.4", "a,b,c", "0.5,0.5,0.5", "1,0,0", "0.8,-0.1,0.3"])
def test_bad_fractions(text: str) -> None:
    with pytest.raises(InputError):
        parse_fractions(text)


def test_custom_fractions_and_record_round_trip() -> None:
    queries = sample_queries()
    split = stratified_split(queries, parse_fractions("0.4,0.3,0.3"), seed=5)
    assert len(split.train) < 12
    record = split_record(split, queries)
    assert record.fractions == {"train": 0.4, "selection": 0.3, "test": 0.3}
    assert all(q.family for q in record.test)
    assert split_from_record(record) == split


def balanced(positives: int, negatives: int) -> list[EvalQuery]:
    return [EvalQuery(f"p{i}", True, f"f{i % 3}") for i in range(positives)] + [
        EvalQuery(f"n{i}", False, f"g{i % 2}") for i in range(negatives)
    ]


def sizes(split: Split) -> tuple[int, int, int]:
    return len(split.train), len(split.selection), len(split.test)


@pytest.mark.parametrize("seed", range(6))
def test_24_queries_split_14_5_5_not_14_6_4(seed: int) -> None:
    assert sizes(stratified_split(balanced(12, 12), seed=seed)) == (14, 5, 5)
    assert sizes(stratified_split(balanced(10, 10), seed=seed)) == (12, 4, 4)


@pytest.mark.parametrize(
    ("positives", "negatives", "fractions"),
    [
        (12, 12, (0.6, 0.2, 0.2)),
        (11, 11, (0.6, 0.2, 0.2)),
        (7, 9, (0.6, 0.2, 0.2)),
        (5, 20, (0.6, 0.2, 0.2)),
        (20, 5, (0.6, 0.2, 0.2)),
        (13, 8, (0.5, 0.25, 0.25)),
        (17, 16, (0.4, 0.3, 0.3)),
        (50, 49, (0.7, 0.15, 0.15)),
    ],
)
def test_totals_follow_the_fractions_within_one_and_classes_are_kept(
    positives: int, negatives: int, fractions: tuple[float, float, float]
) -> None:
    n = positives + negatives
    for seed in range(4):
        split = stratified_split(balanced(positives, negatives), fractions, seed=seed)
        for name, size, fraction in zip(SPLIT_NAMES, sizes(split), fractions, strict=True):
            assert abs(size - fraction * n) < 1, (name, size, fraction * n)
            members = split.members(name)
            assert any(t.startswith("p") for t in members), name
            assert any(t.startswith("n") for t in members), name
            chosen = sum(t.startswith("p") for t in members)
            assert abs(chosen - size * positives / n) < 1.5, name  # the class's fair share


def test_equal_remainders_do_not_always_go_to_the_same_split() -> None:
    # 22 queries: 13.2 / 4.4 / 4.4 — one query to give, selection and test tie
    extra = {
        "selection" if sizes(stratified_split(balanced(11, 11), seed=s))[1] == 5 else "test"
        for s in range(12)
    }
    assert extra == {"selection", "test"}
    # and the same seed always gives the same sizes
    assert sizes(stratified_split(balanced(11, 11), seed=3)) == sizes(
        stratified_split(balanced(11, 11), seed=3)
    )


def test_sizes_keep_two_per_split_even_when_a_fraction_is_tiny() -> None:
    assert split_sizes(10, (0.9, 0.05, 0.05)) == [6, 2, 2]
    assert split_sizes(40, (0.9, 0.05, 0.05)) == [36, 2, 2]
    assert sum(split_sizes(23, (0.6, 0.2, 0.2))) == 23
