"""Scripted answers on the other agents' session harness (issue 35 item 4): the REAL Codex CLI
(`run --backend codex`) against a scripted loopback Responses API whose model first ends its
turn with a question. `codex exec` has no question tool, so skillbench answers the question
written in the reply by resuming the stored session (`codex exec resume <thread id>`) with the
case's scripted `say`; the model then finishes. The fake sees the answer in the resumed
session's request, after the question (the same conversation, not a new one), the run's
`answers.jsonl` logs it answered, and the transcript shows the scripted turn. Gemini CLI and
opencode cannot be resumed by skillbench yet: their cases with `answers` are refused (exit 2)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from agent_fake_api import FakeAgentAPI, Reply
from agent_session_fakes import REAL_KEYS

from skillbench.backends.codex.agent import CODEX
from skillbench.cli import main
from skillbench.errors import BackendError
from skillbench.hermetic.netns import namespace_problem

QUESTION = "Which repo should I open the pull request against?"
SAY = "the public one, o/r"
DONE = "Done: the pull request is open on o/r."


def codex_missing() -> str | None:
    try:
        CODEX.locate()
    except BackendError as exc:
        return str(exc)
    return namespace_problem()


pytestmark = pytest.mark.skipif(codex_missing() is not None, reason=str(codex_missing()))


def user_texts(body: dict[str, Any]) -> list[str]:
    """The texts of the request's user messages, in order."""
    texts = []
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("role") == "user":
            for part in item.get("content") or []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
    return texts


def answer(kind: str, body: dict[str, Any]) -> Reply:
    if any(SAY in t for t in user_texts(body)):
        return Reply("text", text=DONE, thought=False)
    return Reply("text", text=f"Before I start: {QUESTION}", thought=False)


def make_skill(root: Path, answers: list[dict[str, str]]) -> Path:
    folder = root / "pr-helper"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: pr-helper\ndescription: Use when opening pull requests.\n---\n# PR\n"
    )
    case = {
        "id": "ask-first",
        "prompt": "Open a pull request for my fix.",
        "expectations": [{"criterion": "done", "description": "done", "required": True}],
        "environment": {"network": "api-only", "answers": answers},
    }
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    return folder


def run(root: Path, backend: str, answers: list[dict[str, str]], fake_url: str) -> tuple[int, str]:
    skill = make_skill(root, answers)
    variable, key = REAL_KEYS["codex"]
    mp = pytest.MonkeyPatch()
    try:
        mp.chdir(root)
        mp.setenv("SKILLBENCH_CACHE", str(root / "cache.sqlite"))
        mp.setenv(variable, key)
        mp.setenv("OPENAI_BASE_URL", fake_url + "/v1")
        argv = ["run", str(skill), "--configs", "with_skill", "--runs", "1", "--no-cache"]
        with contextlib.redirect_stderr(io.StringIO()) as stderr:
            code = main([*argv, "--backend", backend, "--timeout", "180"])
    finally:
        mp.undo()
    return code, stderr.getvalue()


def test_a_question_in_the_reply_is_answered_by_resuming_the_codex_session(
    tmp_path: Path,
) -> None:
    with FakeAgentAPI(answer=answer) as fake:
        code, err = run(tmp_path, "codex", [{"when": "which repo", "say": SAY}], fake.url)
        bodies = [r.body for r in fake.requests if r.path.startswith("/v1/responses")]
    folder = tmp_path / "pr-helper-workspace" / "runs" / "with_skill" / "ask-first" / "run-1"
    record = json.loads((folder / "run.json").read_text())
    assert code == 0, (record.get("error"), err[-2000:])
    assert record["status"] == "ok" and record["final_text"] == DONE, record
    asked = [b for b in bodies if not any(SAY in t for t in user_texts(b))]
    resumed = [b for b in bodies if any(SAY in t for t in user_texts(b))]
    assert asked and len(resumed) == 1, [user_texts(b) for b in bodies]
    # the resumed request continues the conversation: the prompt and the question came first
    history = json.dumps(resumed[0]["input"])
    assert "Open a pull request for my fix." in history and QUESTION in history
    logged = [json.loads(x) for x in (folder / "answers.jsonl").read_text().splitlines()]
    assert [(a["via"], a["answered"], a["answer"]) for a in logged] == [("reply", True, SAY)]
    transcript = (folder / "transcript.md").read_text()
    assert "## User (scripted answer)" in transcript and SAY in transcript
    assert transcript.index(QUESTION) < transcript.index(SAY) < transcript.index(DONE)


def test_a_question_no_answer_fits_ends_the_session_logged_unanswered(tmp_path: Path) -> None:
    with FakeAgentAPI(answer=answer) as fake:
        code, err = run(tmp_path, "codex", [{"when": "which branch", "say": "main"}], fake.url)
        resumed = [r for r in fake.requests if any(SAY in t for t in user_texts(r.body))]
    folder = tmp_path / "pr-helper-workspace" / "runs" / "with_skill" / "ask-first" / "run-1"
    record = json.loads((folder / "run.json").read_text())
    assert code == 0, (record.get("error"), err[-2000:])
    assert QUESTION in record["final_text"] and not resumed
    logged = [json.loads(x) for x in (folder / "answers.jsonl").read_text().splitlines()]
    assert [(a["answered"], a["reason"]) for a in logged] == [(False, "no scripted answer")]


@pytest.mark.parametrize("backend", ["gemini", "opencode"])
def test_agents_skillbench_cannot_resume_refuse_answers(tmp_path: Path, backend: str) -> None:
    code, err = run(tmp_path, backend, [{"when": "which repo", "say": SAY}], "http://127.0.0.1:9")
    assert code == 2, err[-2000:]
    assert "cases[0].environment.answers" in err and "cannot honour `answers`" in err, err
    assert not (tmp_path / "pr-helper-workspace" / "runs").exists()  # refused before any run
