"""Answering a turn that ended with a question (`ReplyAnswerer`): the first scripted answer
whose `when` regex the reply holds, at most `limit` times a session; a question no answer fits,
or one that cannot be answered any more, is logged unanswered; a reply that asks nothing and
fits no answer is no question. A `when` that is no regex is refused up front."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.errors import InputError
from skillbench.hermetic.answers import ReplyAnswerer, asks, read_answers
from skillbench.hermetic.environment import ScriptedAnswer, parse_environment

SCRIPTED = [
    ScriptedAnswer(when=r"which (repo|repository)\b", say="the public one"),
    ScriptedAnswer(when="branch", say="main"),
]


def answerer(tmp_path: Path, limit: int = 2) -> ReplyAnswerer:
    return ReplyAnswerer(SCRIPTED, tmp_path / "calls.jsonl", tmp_path / "answers.jsonl", limit)


def test_replies_are_answered_within_the_limit(tmp_path: Path) -> None:
    reply = answerer(tmp_path)
    assert reply("Done: the PR is open.") is None  # no question, nothing logged
    assert reply("Which REPOSITORY should I push to?") == "the public one"
    assert reply("I pushed it. Which branch?") == "main"  # the first fitting answer
    assert reply("Which repo again?") is None  # the limit (2) is reached
    assert reply("Shall I also tag a release?") is None  # asks, nothing fits
    logged = read_answers(tmp_path / "answers.jsonl")
    assert [(a.sequence, a.via, a.scripted, a.answer, a.reason) for a in logged] == [
        (1, "reply", 0, "the public one", None),
        (2, "reply", 1, "main", None),
        (3, "reply", 0, None, "answer limit reached (2 per session)"),
        (4, "reply", None, None, "no scripted answer"),
    ]


def test_a_session_that_cannot_go_on_logs_the_question_unanswered(tmp_path: Path) -> None:
    reply = answerer(tmp_path)
    assert reply("Which repo?", resumable=False) is None
    (logged,) = read_answers(tmp_path / "answers.jsonl")
    assert not logged.answered and logged.reason and "cannot be resumed" in logged.reason
    assert reply.given == 0


@pytest.mark.parametrize(
    ("text", "asking"),
    [
        ("Which one?", True),
        ("Which one?**", True),
        ('He said "which one?"\n', True),
        ("Which one? I went with the first.", False),
        ("Done.", False),
        ("", False),
    ],
)
def test_asks(text: str, asking: bool) -> None:
    assert asks(text) is asking


def test_a_when_that_is_no_regex_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        parse_environment({"answers": [{"when": "which (repo", "say": "x"}]}, path="evals.json")
    assert "environment.answers.0.when" in str(caught.value)
    assert "regular expression" in str(caught.value)
