"""The gemini backend: Gemini CLI's first move classified from a streamed generateContent reply
(through google-genai against the loopback fake), and, with the real pinned CLI, the replayed
request equal to the CLI's own."""

from __future__ import annotations

import asyncio
import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from agent_fake_api import FakeAgentAPI, Reply, cli_own_request

pytest.importorskip("google.genai")

from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.install import cli_skills
from skillbench.backends.gemini.agent import GEMINI, GeminiAgent, call_config
from skillbench.backends.gemini.judge import GeminiJudge
from skillbench.backends.replay.move import ERROR, OTHER_SKILL, OTHER_TOOL, TARGET, TEXT
from skillbench.errors import BackendError

PATH = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
ROOT = "/tmp/skillbench-agent/project/.agents/skills"
TARGET_SKILL = SkillEntry("csv-cleanup", "Clean CSV files: duplicates, delimiters, encodings.")
OTHER = SkillEntry("sql-query-reviewer", "Review SQL queries for bugs and performance.")
LISTING = "".join(
    f"<skill><name>{n}</name><description>{d}</description><location>{loc}</location></skill>"
    for n, d, loc in (
        ("skill-creator", "Guide for creating skills.", "/cli/builtin/skill-creator/SKILL.md"),
        ("sql-query-reviewer", OTHER.description, f"{ROOT}/sql-query-reviewer/SKILL.md"),
        ("csv-cleanup", TARGET_SKILL.description, f"{ROOT}/csv-cleanup/SKILL.md"),
    )
)
BODY: dict[str, Any] = {
    "contents": [{"role": "user", "parts": [{"text": "fix my csv"}]}],
    "systemInstruction": {
        "role": "user",
        "parts": [
            {"text": f"# Available Agent Skills\n<available_skills>{LISTING}</available_skills>"}
        ],
    },
    "tools": [{"functionDeclarations": [{"name": "activate_skill", "description": "x"}]}],
    "generationConfig": {"temperature": 1, "topP": 0.95, "topK": 64},
}


def move_for(reply: Reply) -> Any:
    """The first move `GEMINI.first_move` reads from the fake answering `reply`."""
    skills = tuple(cli_skills(TARGET_SKILL, (OTHER,)))

    async def run() -> Any:
        with FakeAgentAPI(answer=lambda kind, body: reply) as fake:
            client = GEMINI.client(api_key="dummy", base_url=fake.url, timeout=30, http_client=None)
            return await GEMINI.first_move(
                client, PATH, {}, BODY, target="csv-cleanup", skills=skills, stop_when_decided=True
            )

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("reply", "kind", "fired", "tool"),
    [
        (Reply("call", "activate_skill", {"name": "csv-cleanup"}), TARGET, "csv-cleanup", None),
        (
            Reply("call", "activate_skill", {"name": "csv-cleanup"}, preamble="I'll use a skill."),
            TARGET,
            "csv-cleanup",
            None,
        ),
        (
            Reply("call", "activate_skill", {"name": "sql-query-reviewer"}),
            OTHER_SKILL,
            "sql-query-reviewer",
            None,
        ),
        (
            Reply("call", "activate_skill", {"name": "skill-creator"}),
            OTHER_SKILL,
            "skill-creator",
            None,
        ),
        (  # default approval mode: no activate_skill, the model reads the SKILL.md
            Reply("call", "read_file", {"file_path": f"{ROOT}/csv-cleanup/SKILL.md"}),
            TARGET,
            "csv-cleanup",
            None,
        ),
        (
            Reply("call", "read_file", {"file_path": f"{ROOT}/../data/bank.csv"}),
            OTHER_TOOL,
            None,
            "read_file",
        ),
        (
            Reply("call", "run_shell_command", {"command": "ls"}),
            OTHER_TOOL,
            None,
            "run_shell_command",
        ),
        (Reply("text", text="Sure, here is how."), TEXT, None, None),
    ],
)
def test_first_move_is_classified(
    reply: Reply, kind: str, fired: str | None, tool: str | None
) -> None:
    move = move_for(reply)
    assert move.kind == kind
    assert move.fired == fired
    if tool is not None:
        assert move.tool == tool


def test_broken_answers_are_errors_with_their_kind() -> None:
    assert (move_for(Reply("incomplete")).kind, move_for(Reply("incomplete")).error_kind) == (
        ERROR,
        "max_tokens",
    )
    malformed = move_for(Reply("call", "activate_skill", {}))
    assert (malformed.kind, malformed.error_kind) == (ERROR, "malformed_tool_call")


def test_usage_counts_cached_input_and_thoughts() -> None:
    move = move_for(Reply("call", "activate_skill", {"name": "csv-cleanup"}))
    assert move.usage.input_tokens == 200
    assert move.usage.cache_read_input_tokens == 1000
    assert move.usage.output_tokens == 42  # candidates 12 + thoughts 30


def test_http_failures_are_classified_for_the_limiter() -> None:
    from google.genai import errors

    with pytest.raises(errors.APIError) as caught:
        move_for(Reply("http_error", status=503))
    failure = GEMINI.classify_failure(caught.value)
    assert failure is not None and failure.retryable and not failure.rate_limited
    with pytest.raises(errors.APIError) as caught:
        move_for(Reply("http_error", status=429))
    failure = GEMINI.classify_failure(caught.value)
    assert failure is not None and failure.rate_limited
    with pytest.raises(errors.APIError) as caught:
        move_for(Reply("http_error", status=400))
    failure = GEMINI.classify_failure(caught.value)
    assert failure is not None and not failure.retryable


def test_a_field_google_genai_cannot_send_is_refused_not_dropped() -> None:
    with pytest.raises(BackendError, match="google-genai cannot send"):
        call_config({**BODY, "someNewField": {"x": 1}})


def test_the_date_is_swapped_for_the_day() -> None:
    text = "Today's date is Thursday, November 26, 2026 (formatted according to the user's locale)."
    assert GEMINI.dated(text)
    assert GEMINI.swap_day(text, datetime.date(2027, 1, 4)) == (
        "Today's date is Monday, January 4, 2027 (formatted according to the user's locale)."
    )


def test_the_approval_mode_is_a_request_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLBENCH_GEMINI_APPROVAL_MODE", "default")
    assert GeminiAgent().settings()["approval_mode"] == "default"
    monkeypatch.setenv("SKILLBENCH_GEMINI_APPROVAL_MODE", "sometimes")
    with pytest.raises(BackendError, match="SKILLBENCH_GEMINI_APPROVAL_MODE"):
        GeminiAgent().settings()


# -- with the real pinned CLI -------------------------------------------------------------------


def real_gemini() -> Path:
    try:
        return GEMINI.locate()
    except BackendError as exc:
        pytest.skip(str(exc))


def test_replayed_request_is_the_clis_own(tmp_path: Path, agent_templates: Path) -> None:
    """Capture (sentinel) → replay through google-genai with the query: what reaches the API
    equals what the CLI itself sends for that query, paths normalised; and the first move of the
    fake's activate_skill answer is a trigger."""
    binary = real_gemini()
    query = "my bank export has duplicate rows and semicolons, fix it"
    reply = Reply("call", "activate_skill", {"name": "csv-cleanup"})
    with FakeAgentAPI(answer=lambda kind, body: reply) as fake:
        judge = GeminiJudge(
            api_key="dummy", base_url=fake.url, template_dir=agent_templates, binary=binary
        )
        outcome = asyncio.run(judge.judge(TriggerRequest(TARGET_SKILL, (OTHER,), query, 0)))
        replayed = [r for r in fake.requests if GEMINI.is_agent_request(r.path, r.body)]
    assert outcome.error is None, outcome.error
    assert outcome.triggered and outcome.fired == "csv-cleanup"
    assert len(replayed) == 1
    template = next(iter(judge.templates_used.values()))
    assert template.view().visibility("csv-cleanup", TARGET_SKILL.description) == "full"
    assert {"skill-creator", "antigravity-support"} <= set(template.view().shown)
    own_path, own = cli_own_request(GEMINI, binary, (TARGET_SKILL, OTHER), query, tmp_path / "own")
    assert replayed[0].path == own_path
    assert json.loads(json.dumps(replayed[0].body)) == own
