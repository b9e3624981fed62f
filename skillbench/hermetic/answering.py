"""Scripted answers: which one fits a question, and the question log (standard library only:
the `AskUserQuestion` hook imports it as its sibling script, skillbench as a module).

A question gets the `say` of the first scripted answer whose `when` regex is found in it (any
case). Every question is appended to `answers.jsonl` under the call log's lock, so questions and
calls share one sequence: sequence, time, question, via (`AskUserQuestion`: the agent's question
tool; `reply`: a turn that ended with a question), scripted (index of the fitting answer),
answer (what the agent was told; null when nothing was), answered, reason.
"""

from __future__ import annotations

import re
import time
from typing import Any

if __package__:
    from skillbench.hermetic.router import sequenced
else:  # run beside the hook script
    from router import sequenced  # type: ignore[import-not-found,no-redef]

ASK_VIA = "AskUserQuestion"
REPLY_VIA = "reply"


def answer_for(question: str, answers: list[dict[str, str]]) -> tuple[int | None, str | None]:
    """(index, say) of the first scripted answer whose `when` is found in the question."""
    for index, answer in enumerate(answers):
        if re.search(answer["when"], question, re.IGNORECASE):
            return index, answer["say"]
    return None, None


def log_question(
    calls_log: str,
    answers_log: str,
    question: str,
    via: str,
    scripted: int | None,
    answer: str | None,
    reason: str | None = None,
) -> dict[str, Any]:
    """Append one question to `answers_log` (sequence from `calls_log`'s counter); answered
    when an `answer` was given to the agent."""

    def build(sequence: int, used: int) -> tuple[str, dict[str, Any]]:
        record = {
            "sequence": sequence,
            "time": round(time.time(), 3),
            "question": question,
            "via": via,
            "scripted": scripted,
            "answer": answer,
            "answered": answer is not None,
            "reason": reason,
        }
        return answers_log, record

    return sequenced(calls_log, f"ask#{scripted}", build)
