"""`grade --repeats`: the cache key of the first asking is the one grading always used, each
repeat has its own, the majority rule (a tie fails), and the documented cap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from grade_fixtures import FakeTextModel, asked_ids, grader_reply, standard_workspace

from skillbench import limits
from skillbench.backends.base import TextRequest, cache_key
from skillbench.behavior.grade import grade_workspace_sync
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


def test_an_invalid_repeat_is_left_out_and_said(tmp_path: Path) -> None:
    """Repeat 1 answers garbage twice: the verdict rests on repeats 0 and 2, recorded as two
    verdicts, and the run's note says how many repeats were usable."""
    skill, _space = standard_workspace(tmp_path)

    def reply(request: TextRequest) -> str:
        if request.repeat == 1:
            return "not json"
        score = 4 if request.repeat == 0 else 2  # pass, (invalid), fail: a tie fails
        return json.dumps(grader_reply(asked_ids(request.prompt), score=score))

    fake = FakeTextModel(reply)
    options = GradeOptions(configs=["with_skill"], repeats=3)
    summary = grade_workspace_sync(skill, options, text_model=fake)
    run = next(r for r in summary.runs if r.run.record.case_id == "case-one")
    tone = run.items[2]
    assert tone.method == "model" and tone.repeat_verdicts == [True, False]
    assert tone.passed is False and tone.score == 2  # the tie fails; a failing repeat's score
    assert run.grader_note is not None and run.grader_note.startswith("2 of 3 repeats")
    stored = json.loads(run.run.grading_path.read_text(encoding="utf-8"))
    assert [e["repeat_verdicts"] for e in stored["expectations"] if e["method"] == "model"] == [
        [True, False]
    ]
