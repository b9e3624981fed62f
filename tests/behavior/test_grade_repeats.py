"""`grade --repeats`: the cache key of the first asking is the one grading always used, each
repeat has its own, the majority rule (a tie fails), and the documented cap."""

from __future__ import annotations

import pytest

from skillbench import limits
from skillbench.backends.base import TextRequest, cache_key
from skillbench.behavior.grade_prompt import grader_request
from skillbench.behavior.grade_repeats import majority
from skillbench.behavior.options import GradeOptions
from skillbench.errors import InputError

IDENTITY = {"backend": "anthropic", "model": "m"}
# the key of this request before repeats existed (computed on the code without them)
PINNED = "5be004c279693a29a3fda5174426be4f05cd0221192e2143541225c024fedcb3"


def test_the_first_asking_keeps_the_key_existing_caches_hold() -> None:
    request = TextRequest(prompt="grade this", system="S", max_tokens=4096, purpose="grade",
                          run_index=2)  # fmt: skip
    assert cache_key(IDENTITY, request.cache_fields()) == PINNED
    assert "repeat" not in request.cache_fields()


def test_each_repeat_has_its_own_cache_key() -> None:
    keys = {
        cache_key(IDENTITY, grader_request(None, "p", run_index=1, repeat=k).cache_fields())
        for k in range(3)
    }
    assert len(keys) == 3


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [([True], True), ([False], False), ([True, False, True], True),
     ([False, True, False], False), ([True, False], False), ([True, True, False, False], False)],
)  # fmt: skip
def test_majority_and_a_tie_fails(verdicts: list[bool], expected: bool) -> None:
    assert majority(verdicts) is expected


@pytest.mark.parametrize("bad", [0, limits.MAX_GRADE_REPEATS + 1])
def test_repeats_outside_the_cap_name_the_option(bad: int) -> None:
    with pytest.raises(InputError, match="--repeats"):
        GradeOptions(repeats=bad)
    assert GradeOptions(repeats=limits.MAX_GRADE_REPEATS).repeats == limits.MAX_GRADE_REPEATS
