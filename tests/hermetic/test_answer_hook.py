"""The AskUserQuestion hook: a call whose every question a scripted answer fits (its `when`
regex, any case) is allowed with `updatedInput.answers`; a call with a question none fits is
denied, and every question of it is logged unanswered in answers.jsonl."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skillbench.hermetic.answers import read_answers
from skillbench.hermetic.calls import read_calls
from skillbench.hermetic.claude_wiring import ANSWER_HOOK

SCRIPTED = [{"when": r"which repo(sitory)?\b", "say": "the public one"}]


def ask(tmp_path: Path, *questions: str) -> dict:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(SCRIPTED))
    items = [{"question": q, "header": "Q", "options": []} for q in questions]
    hook = {"tool_name": "AskUserQuestion", "tool_input": {"questions": items}}
    logs = [str(tmp_path / "calls.jsonl"), str(tmp_path / "answers.jsonl")]
    done = subprocess.run(
        [sys.executable, "-I", str(ANSWER_HOOK), str(answers), *logs],
        input=json.dumps(hook),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)["hookSpecificOutput"]


def test_answered_and_denied(tmp_path: Path) -> None:
    allowed = ask(tmp_path, "WHICH REPOSITORY should I use?")
    assert allowed["permissionDecision"] == "allow"
    assert allowed["updatedInput"]["answers"] == {
        "WHICH REPOSITORY should I use?": "the public one"
    }
    assert allowed["updatedInput"]["questions"][0]["header"] == "Q"  # the input is kept
    denied = ask(tmp_path, "Which repo?", "Delete the branch?")
    assert denied["permissionDecision"] == "deny"
    assert denied["permissionDecisionReason"] == "Nobody answered: Delete the branch?"
    asked = read_answers(tmp_path / "answers.jsonl")
    assert [(a.sequence, a.via, a.scripted, a.answer, a.answered) for a in asked] == [
        (1, "AskUserQuestion", 0, "the public one", True),
        (2, "AskUserQuestion", 0, None, False),  # fits, but the call was denied
        (3, "AskUserQuestion", None, None, False),
    ]
    assert asked[1].reason and "another question" in asked[1].reason
    assert asked[2].reason == "no scripted answer"
    assert asked[2].as_call().line() == "ask Delete the branch? "
    assert read_calls(tmp_path / "calls.jsonl") == []  # questions are not fake calls
