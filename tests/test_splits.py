"""Seeded, stratified train / selection / test splits."""

from __future__ import annotations

import pytest
from improve_fakes import sample_queries

from skillbench.errors import InputError
from skillbench.splits import (
    SPLIT_NAMES,
    parse_fractions,
    split_from_record,
    split_record,
    stratified_split,
)
from skillbench.trigger_evalset import EvalQuery, load_eval_set


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
