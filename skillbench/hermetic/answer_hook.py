"""The PreToolUse hook answering an agent's `AskUserQuestion` from the case's scripted
`answers` (a script: `python -I answer_hook.py ANSWERS LOG`, the hook's JSON on stdin).

Each question gets the `say` of the first answer whose `when` it contains (any case); the hook
allows the call with `updatedInput` holding the answers (Claude Code's `answers` field of the
tool: question text → answer). A question no answer fits is refused (the call is denied) and
logged as refused. Every question is logged as command `ask`, argv `[question, answer]`."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from router import Decision, record_call  # type: ignore[import-not-found]


def answer_for(question: str, answers: list[dict[str, str]]) -> tuple[int | None, str | None]:
    """(index, text) of the first scripted answer whose `when` the question contains."""
    for index, answer in enumerate(answers):
        if answer["when"].lower() in question.lower():
            return index, answer["say"]
    return None, None


def main(answers_file: str, log: str) -> int:
    """Read the hook input, print the hook's decision."""
    hook = json.load(sys.stdin)
    with open(answers_file, encoding="utf-8") as handle:
        answers = json.load(handle)
    tool_input: dict[str, Any] = dict(hook.get("tool_input") or {})
    given: dict[str, str] = {}
    missing: list[str] = []
    for item in tool_input.get("questions") or []:
        question = str(item.get("question") or "")
        index, say = answer_for(question, answers)

        def decide(used: int, say: str | None = say) -> Decision:
            if say is None:
                return True, "no scripted answer", 1, {}
            return False, None, 0, {}

        record_call(log, "ask", [question, say or ""], index, decide)
        if say is None:
            missing.append(question)
        else:
            given[question] = say
    output: dict[str, Any]
    if missing:
        output = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no scripted answer for: " + "; ".join(missing),
            }
        }
    else:
        output = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {**tool_input, "answers": given},
            }
        }
    sys.stdout.write(json.dumps(output))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
