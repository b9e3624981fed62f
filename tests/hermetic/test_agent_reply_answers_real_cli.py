"""Scripted answers on the other agents' session harness (issue 35 item 4): the REAL Codex CLI,
Gemini CLI and opencode (`run --backend codex|gemini|opencode`) against a scripted loopback
model API whose model first ends its turn with a question. None of them can ask in its
non-interactive run (no question tool, or one denied), so skillbench answers the question
written in the reply by resuming the stored session (`codex exec resume <thread id>`,
`gemini --resume <session id>`, `opencode run --session <id>`) with the case's scripted `say`;
the model then finishes. The fake sees the answer in the resumed session's request after the
prompt and the question (one conversation, not a new one), the run's `answers.jsonl` logs it
answered, and the transcript shows the scripted turn."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_fake_api import FakeAgentAPI, Reply
from agent_session_fakes import AGENTS, REAL_KEYS, agent_param
from messages_fake import MessagesFake
from mock_anthropic_sse import text_stream
from pr_helper_case import pr_helper_skill

from skillbench.cli import main

QUESTION = "Which repo should I open the pull request against?"
SAY = "the public one, o/r"
DONE = "Done: the pull request is open on o/r."
PROMPT = "Open a pull request for my fix."
BASE_URL = {"codex": "OPENAI_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}


ALL = [agent_param(name) for name in AGENTS]


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [
        str(p["text"])
        for p in content or []
        if isinstance(p, dict) and isinstance(p.get("text"), str)
    ]


def user_texts(body: dict[str, Any]) -> list[str]:
    """The texts of a request's user turns (Responses `input`, Gemini `contents`, Messages
    `messages`), in order."""
    texts: list[str] = []
    for item in body.get("input") or body.get("messages") or []:
        if isinstance(item, dict) and item.get("role") == "user":
            texts += _texts(item.get("content"))
    for item in body.get("contents") or []:
        if isinstance(item, dict) and item.get("role") == "user":
            texts += _texts(item.get("parts"))
    return texts


def reply_text(body: dict[str, Any]) -> str:
    """The scripted model: the question first, the final text once the answer came."""
    return DONE if any(SAY in t for t in user_texts(body)) else f"Before I start: {QUESTION}"


@contextlib.contextmanager
def fake_model(agent: str) -> Iterator[tuple[str, Callable[[], list[dict[str, Any]]]]]:
    """The agent's scripted provider on loopback: its base URL as the caller sets it, and what
    gives the bodies of the model requests it got so far."""
    if agent == "opencode":
        bodies: list[dict[str, Any]] = []

        def script(body: dict[str, Any]) -> bytes:
            if not body.get("tools"):  # opencode's title request
                return text_stream(str(body.get("model")), "Title")
            bodies.append(body)
            return text_stream(str(body.get("model")), reply_text(body))

        with MessagesFake(script) as fake:
            yield fake.base_url, lambda: list(bodies)
        return

    def answer(kind: str, body: dict[str, Any]) -> Reply:
        return Reply("text", text=reply_text(body), thought=False)

    with FakeAgentAPI(answer=answer) as server:
        url = server.url + ("/v1" if agent == "codex" else "")
        yield url, lambda: [r.body for r in server.requests if user_texts(r.body)]


def make_skill(root: Path, answers: list[dict[str, str]]) -> Path:
    case = {
        "id": "ask-first",
        "prompt": PROMPT,
        "expectations": [{"criterion": "done", "description": "done", "required": True}],
        "environment": {"network": "api-only", "answers": answers},
    }
    return pr_helper_skill(root, case)


def run(root: Path, agent: str, answers: list[dict[str, str]], url: str) -> tuple[int, str]:
    skill = make_skill(root, answers)
    variable, key = REAL_KEYS[agent]
    mp = pytest.MonkeyPatch()
    try:
        mp.chdir(root)
        mp.setenv("SKILLBENCH_CACHE", str(root / "cache.sqlite"))
        mp.setenv(variable, key)
        mp.setenv(BASE_URL.get(agent, "ANTHROPIC_BASE_URL"), url)
        argv = ["run", str(skill), "--configs", "with_skill", "--runs", "1", "--no-cache"]
        with contextlib.redirect_stderr(io.StringIO()) as stderr:
            code = main([*argv, "--backend", agent, "--timeout", "180"])
    finally:
        mp.undo()
    return code, stderr.getvalue()


def run_folder(root: Path) -> Path:
    return root / "pr-helper-workspace" / "runs" / "with_skill" / "ask-first" / "run-1"


@pytest.mark.parametrize("agent", ALL)
def test_a_question_in_the_reply_is_answered_by_resuming_the_session(
    tmp_path: Path, agent: str
) -> None:
    with fake_model(agent) as (url, bodies):
        code, err = run(tmp_path, agent, [{"when": "which repo", "say": SAY}], url)
        seen = bodies()
    record = json.loads((run_folder(tmp_path) / "run.json").read_text())
    assert code == 0, (record.get("error"), err[-2000:])
    assert record["status"] == "ok" and record["final_text"].strip() == DONE, record
    resumed = [b for b in seen if any(SAY in t for t in user_texts(b))]
    assert len(resumed) == 1 and len(seen) == 2, [user_texts(b) for b in seen]
    # the resumed request continues the conversation: the prompt and the question came first
    history = json.dumps(resumed[0])
    assert PROMPT in history and QUESTION in history
    assert history.index(PROMPT) < history.index(QUESTION) < history.index(SAY)
    folder = run_folder(tmp_path)
    logged = [json.loads(x) for x in (folder / "answers.jsonl").read_text().splitlines()]
    assert [(a["via"], a["answered"], a["answer"]) for a in logged] == [("reply", True, SAY)]
    transcript = (folder / "transcript.md").read_text()
    assert "## User (scripted answer)" in transcript
    assert transcript.index(QUESTION) < transcript.index(SAY) < transcript.index(DONE)


@pytest.mark.parametrize("agent", ALL[:1])  # the rule is the executor's, the same for all
def test_a_question_no_answer_fits_ends_the_session_logged_unanswered(
    tmp_path: Path, agent: str
) -> None:
    with fake_model(agent) as (url, bodies):
        code, err = run(tmp_path, agent, [{"when": "which branch", "say": "main"}], url)
        seen = bodies()
    record = json.loads((run_folder(tmp_path) / "run.json").read_text())
    assert code == 0, (record.get("error"), err[-2000:])
    assert QUESTION in record["final_text"] and len(seen) == 1
    logged = [
        json.loads(x) for x in (run_folder(tmp_path) / "answers.jsonl").read_text().splitlines()
    ]
    assert [(a["answered"], a["reason"]) for a in logged] == [(False, "no scripted answer")]
