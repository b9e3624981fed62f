"""The minimal harness too: a broken reply is an error with its kind, never "not triggered"."""

from __future__ import annotations

from typing import Any

import pytest
from test_anthropic import judge_for, message, reply_with, request


def broken(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    body = message(content)
    body["stop_reason"] = stop
    return body


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (broken([], "end_turn"), "empty"),
        (broken([{"type": "text", "text": "   "}], "end_turn"), "empty"),
        (broken([{"type": "text", "text": "Let me"}], "max_tokens"), "max_tokens"),
        (broken([{"type": "text", "text": "I can't help."}], "refusal"), "refusal"),
        (
            broken([{"type": "tool_use", "id": "t", "name": "Skill", "input": {}}], "tool_use"),
            "malformed_tool_call",
        ),
    ],
)
async def test_broken_replies_are_errors(body: dict[str, Any], kind: str) -> None:
    judge = judge_for(reply_with(body), max_retries=0)
    outcome = await judge.judge(request())
    assert outcome.triggered is False and outcome.error is not None
    assert outcome.error.startswith(kind) and outcome.detail["error_kind"] == kind
    await judge.aclose()


async def test_a_text_answer_is_still_a_real_not_triggered() -> None:
    body = message([{"type": "text", "text": "Here is how to do it without a skill."}])
    judge = judge_for(reply_with(body), max_retries=0)
    outcome = await judge.judge(request())
    assert outcome.error is None and outcome.triggered is False
    await judge.aclose()
