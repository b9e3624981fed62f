"""The AskUserQuestion hook: a scripted answer allows the call with `updatedInput.answers`;
a question no answer fits is denied; both are logged as `ask` calls."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skillbench.hermetic.calls import read_calls
from skillbench.hermetic.claude_wiring import ANSWER_HOOK


def ask(tmp_path: Path, question: str) -> dict:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"when": "which repo", "say": "the public one"}]))
    hook = {"tool_name": "AskUserQuestion", "tool_input": {"questions": [{"question": question}]}}
    done = subprocess.run(
        [sys.executable, "-I", str(ANSWER_HOOK), str(answers), str(tmp_path / "calls.jsonl")],
        input=json.dumps(hook),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)["hookSpecificOutput"]


def test_answered_and_denied(tmp_path: Path) -> None:
    allowed = ask(tmp_path, "Which repo should I use?")
    assert allowed["permissionDecision"] == "allow"
    assert allowed["updatedInput"]["answers"] == {"Which repo should I use?": "the public one"}
    denied = ask(tmp_path, "Delete the branch?")
    assert (
        denied["permissionDecision"] == "deny"
        and "Delete the branch?" in denied["permissionDecisionReason"]
    )
    calls = read_calls(tmp_path / "calls.jsonl")
    assert [(c.command, c.refused, c.argv[-1]) for c in calls] == [
        ("ask", False, "the public one"),
        ("ask", True, ""),
    ]
