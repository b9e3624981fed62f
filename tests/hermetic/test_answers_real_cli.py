"""Scripted answers with the REAL `claude` CLI (the pin and the current release) against the
scripted fake API, in `run --backend claude-code`: the agent's question reaches skillbench both
ways a print session allows, and the model's next request carries the scripted answer.

- Its question tool: print mode offers `AskUserQuestion` only with a permission prompt tool
  (`--permission-prompt-tool stdio`); the PreToolUse hook answers, or denies a question no
  answer fits, and the model reads either as the tool's result.
- Plain text: the turn ends with the question; skillbench resumes the same session
  (`--resume <id>`) with the scripted `say` as the next prompt; a reply ending in a question no
  answer fits ends the session, logged unanswered; a question asked again and again is answered
  at most MAX_REPLY_ANSWERS times.
Each question lands in the run's `answers.jsonl`, run.json and the printed run line, and is
graded by `called ask`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mock_agentic_sse import AgenticMock
from pr_helper_case import pr_helper_skill
from real_cli import claude_versions

from skillbench.cli import main
from skillbench.hermetic.answers import MAX_REPLY_ANSWERS
from skillbench.hermetic.netns import namespace_problem

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem())),
]

PR_URL = "https://github.com/o/r/pull/7"
ANSWERS = [{"when": r"which repo(sitory)?\b", "say": "the public one"}]
PR = ("Bash", {"command": "gh pr create --title Fix --body Body", "description": "open the PR"})


def ask(question: str) -> tuple[str, dict[str, Any]]:
    """An AskUserQuestion call with one question."""
    options = [
        {"label": "public", "description": "the public one"},
        {"label": "private", "description": "the private one"},
    ]
    item = {"question": question, "header": "Choice", "options": options, "multiSelect": False}
    return ("AskUserQuestion", {"questions": [item]})


def make_skill(tmp_path: Path, checks: list[dict[str, Any]]) -> Path:
    case = {
        "id": "ask",
        "prompt": "Open a pull request.",
        "expectations": [
            {"criterion": c["type"], "description": c["type"], "required": True, "check": c}
            for c in checks
        ],
        "environment": {
            "fakes": {"gh": [{"match": "^pr create", "stdout": PR_URL}]},
            "answers": ANSWERS,
        },
    }
    return pr_helper_skill(tmp_path, case)


def run_case(
    tmp_path: Path, claude: Path, mock: AgenticMock, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """`skillbench run` of the case against the mock: the run folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(claude))
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-answers")
    argv = ["run", str(tmp_path / "pr-helper"), "--configs", "with_skill", "--runs", "1"]
    argv += ["--backend", "claude-code", "--timeout", "120", "--no-cache"]
    assert main(argv) == 0
    return tmp_path / "pr-helper-workspace" / "runs" / "with_skill" / "ask" / "run-1"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def grade(tmp_path: Path, run: Path) -> dict[str, bool]:
    assert main(["grade", str(tmp_path / "pr-helper"), "--backend", "local"]) in (0, 1)
    grading = json.loads((run / "grading.json").read_text())
    return {e["text"].split(":")[0].strip(): e["passed"] for e in grading["expectations"]}


@pytest.mark.parametrize("claude", claude_versions())
def test_ask_user_question_is_answered_by_the_hook(
    claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make_skill(
        tmp_path, [{"type": "called", "target": "ask", "pattern": "Which repo.*the public one"}]
    )
    script = [ask("Which repo should I use?"), ask("Delete the old branch too?"), PR]
    with AgenticMock(script=script) as mock:
        run = run_case(tmp_path, claude, mock, monkeypatch)
        requests = mock.requests
    err = capsys.readouterr().err
    asked = next(r for r in requests if r.answered == "AskUserQuestion")
    assert "AskUserQuestion" in asked.tools  # offered in print mode
    results = [r.tool_result for r in requests if r.saw_tool_result]
    # the model's next request carries the answer as the tool's result
    assert "the public one" in results[0] and "[is_error]" not in results[0], results
    assert "Nobody answered: Delete the old branch too?" in results[1], results
    assert "[is_error]" in results[1] and PR_URL in results[2], results

    answers = lines(run / "answers.jsonl")
    assert [(a["via"], a["answered"], a["answer"], a["reason"]) for a in answers] == [
        ("AskUserQuestion", True, "the public one", None),
        ("AskUserQuestion", False, None, "no scripted answer"),
    ]
    calls = lines(run / "calls.jsonl")
    assert [c["command"] for c in calls] == ["gh"]  # questions are not fake calls
    assert [answers[0]["sequence"], answers[1]["sequence"], calls[0]["sequence"]] == [1, 2, 3]
    record = json.loads((run / "run.json").read_text())
    assert (record["questions"], record["unanswered"], record["refusals"]) == (2, 1, 0)
    note = "2 questions, 1 unanswered ('Which repo should I use?' → 'the public one'; "
    assert note in err, err
    assert grade(tmp_path, run) == {"called": True}


@pytest.mark.parametrize("claude", claude_versions())
def test_a_question_in_the_reply_is_answered_by_resuming(
    claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checks = [
        {"type": "called", "target": "ask", "pattern": "Which repo.*the public one"},
        {"type": "called_before", "target": "ask", "then": {"target": "gh", "pattern": "^pr"}},
    ]
    make_skill(tmp_path, checks)
    ending = "Opened it. Should I delete the old repo too?"
    with AgenticMock(script=[PR], question="Which repo should I use?", final_text=ending) as mock:
        run = run_case(tmp_path, claude, mock, monkeypatch)
        requests = [r for r in mock.requests if r.stream and "Bash" in r.tools]
    err = capsys.readouterr().err
    assert [r.answered for r in requests] == ["question", "Bash", "final-text"]
    # the request after the question is the resumed session, the answer its new prompt
    assert requests[1].user_text == "the public one", requests[1]
    assert PR_URL in requests[2].tool_result

    answers = lines(run / "answers.jsonl")
    assert [(a["via"], a["answer"], a["reason"]) for a in answers] == [
        ("reply", "the public one", None),
        ("reply", None, "no scripted answer"),  # the session ends as it would
    ]
    assert answers[0]["question"] == "Which repo should I use?" and answers[1]["question"] == ending
    record = json.loads((run / "run.json").read_text())
    assert record["status"] == "ok" and record["final_text"] == ending
    assert (record["questions"], record["unanswered"]) == (2, 1)
    transcript = (run / "transcript.md").read_text()
    assert "## User (scripted answer)\n\nthe public one" in transcript
    assert transcript.index("Which repo should I use?") < transcript.index("the public one")
    assert transcript.count("## Result") == 2  # two invocations of one session
    assert "2 questions, 1 unanswered" in err, err
    assert grade(tmp_path, run) == {"called": True, "called_before": True}


def test_resuming_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A session asking the same question after every answer is resumed MAX_REPLY_ANSWERS
    times; the next asking is logged unanswered and the session ends (pinned CLI)."""
    claude = claude_versions()[0].values[0]
    if claude_versions()[0].marks:
        pytest.skip(str(claude_versions()[0].marks[0].kwargs["reason"]))
    make_skill(tmp_path, [{"type": "no_refusals", "target": "calls"}])
    again = "Which repo should I use?"
    with AgenticMock(final_text=again, first_call=PR) as mock:
        run = run_case(tmp_path, claude, mock, monkeypatch)
        requests = [r for r in mock.requests if r.stream and "Bash" in r.tools]
    capsys.readouterr()
    resumed = [r for r in requests if r.user_text == "the public one"]
    assert len(resumed) == MAX_REPLY_ANSWERS
    answers = lines(run / "answers.jsonl")
    assert [a["answered"] for a in answers] == [True] * MAX_REPLY_ANSWERS + [False]
    assert answers[-1]["reason"] == f"answer limit reached ({MAX_REPLY_ANSWERS} per session)"
    record = json.loads((run / "run.json").read_text())
    assert record["status"] == "ok" and record["final_text"] == again
