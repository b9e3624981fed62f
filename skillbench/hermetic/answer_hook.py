"""The PreToolUse hook answering an agent's `AskUserQuestion` from the case's scripted
`answers` (a script: `python -I answer_hook.py ANSWERS CALLS_LOG ANSWERS_LOG`, the hook's JSON
on stdin).

Each question gets the `say` of the first answer whose `when` regex it holds (`answering.py`).
When every question of the call has one, the hook allows the call with `updatedInput.answers`
(the tool's own field: question text → answer), and Claude Code hands the model the answers as
the tool's result. When one has none, the call is denied (nobody answers in a print session)
and its questions are logged unanswered. Every question goes to ANSWERS_LOG."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from answering import ASK_VIA, answer_for, log_question  # type: ignore[import-not-found]

UNANSWERED = "Nobody answered: {}"


def decide(tool_input: dict[str, Any], answers: list[dict[str, str]]) -> dict[str, Any]:
    """The hook's output for one `AskUserQuestion` call (nothing logged)."""
    questions = [str(item.get("question") or "") for item in tool_input.get("questions") or []]
    found = {q: answer_for(q, answers)[1] for q in questions}
    missing = [q for q, say in found.items() if say is None]
    if missing or not questions:
        return {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": UNANSWERED.format("; ".join(missing) or "(no question)"),
        }
    return {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {**tool_input, "answers": found},
    }


def main(answers_file: str, calls_log: str, answers_log: str) -> int:
    """Read the hook input, log each question, print the hook's decision."""
    hook = json.load(sys.stdin)
    with open(answers_file, encoding="utf-8") as handle:
        answers = json.load(handle)
    tool_input: dict[str, Any] = dict(hook.get("tool_input") or {})
    output = decide(tool_input, answers)
    allowed = output["permissionDecision"] == "allow"
    for item in tool_input.get("questions") or []:
        question = str(item.get("question") or "")
        index, say = answer_for(question, answers)
        reason = None
        if say is None:
            reason = "no scripted answer"
        elif not allowed:
            reason = "not given: another question of the call had no scripted answer"
        log_question(
            calls_log, answers_log, question, ASK_VIA, index, say if allowed else None, reason
        )
    sys.stdout.write(json.dumps({"hookSpecificOutput": output}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
