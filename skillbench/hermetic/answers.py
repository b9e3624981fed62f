"""`answers.jsonl`: the questions an agent asked in a hermetic run and what it was told; and
the follow-up that answers a turn ending with a question (the session is then resumed).

An agent asks in one of two ways. With its question tool (`AskUserQuestion`) the PreToolUse
hook answers (`answer_hook.py`). Or in plain text: the turn ends with the question, and in a
print session nobody replies. `ReplyAnswerer` then gives the scripted `say` whose `when` the
final reply holds, to be sent as the next prompt of the same session, at most `limit` times.
Both log through `answering.log_question`."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field, ValidationError

from skillbench.hermetic.answering import REPLY_VIA, answer_for, log_question
from skillbench.hermetic.calls import CallRecord
from skillbench.hermetic.environment import ScriptedAnswer
from skillbench.schemas.base import Document

__all__ = [
    "ANSWERS_FILE",
    "MAX_REPLY_ANSWERS",
    "AnswerRecord",
    "ReplyAnswerer",
    "asks",
    "read_answers",
]

ANSWERS_FILE = "answers.jsonl"
#: Times one session is resumed with a scripted answer to its final reply.
MAX_REPLY_ANSWERS = 4
#: Characters of a final reply kept as the question.
QUESTION_CHARS = 2000
_QUESTION_END = re.compile(r"\?[\s*_`\"')\]]*$")


class AnswerRecord(Document):
    """One question of the agent: `via` `AskUserQuestion` (its question tool) or `reply` (its
    turn ended with it); `scripted` the index of the fitting scripted answer (None: none fit);
    `answer` what the agent was told (None: nothing, `reason` says why)."""

    sequence: int = Field(ge=1)
    question: str
    via: str
    scripted: int | None = None
    answer: str | None = None
    answered: bool = False
    reason: str | None = None

    def as_call(self) -> CallRecord:
        """The question as a call of `ask` (argv `[question, answer]`; unanswered: refused),
        for the call checks."""
        return CallRecord(
            sequence=self.sequence,
            command="ask",
            argv=[self.question, self.answer or ""],
            route=self.scripted,
            exit=0 if self.answered else 1,
            refused=not self.answered,
            reason=self.reason,
        )


def read_answers(path: Path) -> list[AnswerRecord]:
    """The questions of an `answers.jsonl` in sequence order (lines that do not parse are
    skipped; a missing file is no question)."""
    if not path.is_file():
        return []
    found: list[AnswerRecord] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            found.append(AnswerRecord.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError):
            continue
    return sorted(found, key=lambda a: a.sequence)


def asks(reply: str) -> bool:
    """True when a reply ends with a question mark (markup and quotes after it allowed)."""
    return bool(_QUESTION_END.search(reply.strip()))


class ReplyAnswerer:
    """The follow-up of a session whose turn ended with `reply`: the `say` of the first scripted
    answer whose `when` the reply holds (the session is resumed with it), at most `limit` times
    per session. Each reply a scripted answer fits is logged, answered or not (`resumable` False:
    the session cannot go on); a reply ending with a question mark that none fits is logged
    unanswered."""

    def __init__(
        self,
        answers: Sequence[ScriptedAnswer],
        calls_log: Path,
        answers_log: Path,
        limit: int = MAX_REPLY_ANSWERS,
    ) -> None:
        self.answers = [a.model_dump(mode="json") for a in answers]
        self.calls_log = calls_log
        self.answers_log = answers_log
        self.limit = limit
        self.given = 0

    def __call__(self, reply: str, resumable: bool = True) -> str | None:
        """The next prompt, or None: the session ends."""
        index, say = answer_for(reply, self.answers)
        reason = None
        if say is None:
            if not asks(reply):
                return None
            reason = "no scripted answer"
        elif self.given >= self.limit:
            reason = f"answer limit reached ({self.limit} per session)"
        elif not resumable:
            reason = "the session cannot be resumed (no time left)"
        if reason is None:
            self.given += 1
        given = say if reason is None else None
        log_question(
            str(self.calls_log),
            str(self.answers_log),
            reply[:QUESTION_CHARS],
            REPLY_VIA,
            index,
            given,
            reason,
        )
        return given
