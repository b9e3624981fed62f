"""The claude-code backend in interactive mode with the REAL CLI (both pinned versions) in a pty,
against the loopback mock of the Messages API (tests/mock_anthropic_sse.py): no network.

A mock that calls the Skill tool for the target is a trigger (the session killed right there);
one that answers with text is not; one that hangs is a timeout error. The request the CLI sent
is the interactive CLI's (its identity line, `cc_entrypoint=cli`), byte for byte the request the
interactive capture records (the seeded config and `--permission-mode dontAsk` change nothing).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from mock_anthropic_sse import MockAnthropic, RecordedRequest
from real_cli import claude_versions, real_cli_skip_reason

from skillbench.backends.anthropic.capture import capture_template, normalise_body
from skillbench.backends.anthropic.replay import cli_version
from skillbench.backends.base import SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.backends.claude_cli.interactive_session import (
    InteractiveClaudeCodeJudge,
    claude_code_judge,
)

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
MODEL = "claude-haiku-4-5"
TARGET = SkillEntry(
    name="pdf-tools",
    description="Use when merging, splitting or rotating PDF documents.",
    body="# PDF tools\n\nUse pypdf.\n",
)
CATALOG = (SkillEntry("csv-cleaner", "Use when cleaning spreadsheet CSV tables.", "# CSV\n"),)
FIRES = "merge two pdf documents"
UNRELATED = "zqxv wvbk"  # no word in common with any listed skill: the mock answers text
INTERACTIVE_IDENTITY = "You are Claude Code, Anthropic's official CLI"


@pytest.fixture(scope="module")
def mock() -> Iterator[MockAnthropic]:
    with MockAnthropic() as server:
        yield server


@pytest.fixture(scope="module", params=claude_versions())
def claude(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def judge_for(claude: Path, base_url: str, **options: object) -> InteractiveClaudeCodeJudge:
    env = {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-ant-dummy-offline"}
    judge = claude_code_judge(MODEL, claude_bin=claude, env=env, **options)  # the default mode
    assert isinstance(judge, InteractiveClaudeCodeJudge)
    return judge


def run(judge: InteractiveClaudeCodeJudge, query: str) -> TriggerOutcome:
    async def once() -> TriggerOutcome:
        try:
            return await judge.judge(TriggerRequest(TARGET, CATALOG, query, 0))
        finally:
            await judge.aclose()

    return asyncio.run(once())


def skill_requests(mock: MockAnthropic, session_id: str) -> list[RecordedRequest]:
    """The requests of one session that offered the listed skills."""
    return [
        r
        for r in mock.requests
        if r.skills_listed and session_id in json.dumps(r.body.get("metadata"))
    ]


@pytest.fixture(scope="module")
def fired(claude: Path, mock: MockAnthropic) -> Iterator[TriggerOutcome]:
    """One run whose query the mock answers with a Skill call naming the target (its folder
    kept for the request comparison)."""
    with pytest.MonkeyPatch.context() as patch:  # conftest's loopback-only setting: per test
        patch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        outcome = run(judge_for(claude, mock.base_url, timeout=90, keep_workdirs=True), FIRES)
    yield outcome
    shutil.rmtree(outcome.detail.get("workdir", "/nonexistent"), ignore_errors=True)


def test_a_skill_call_for_the_target_is_a_trigger(fired: TriggerOutcome, claude: Path) -> None:
    assert fired.error is None, fired.detail
    assert fired.triggered is True and fired.fired == "pdf-tools"
    assert fired.detail["ended_early"] is True  # the process group killed at the decision
    assert fired.detail["cli_mode"] == "interactive"
    assert fired.detail["cli_version"] == cli_version(claude)
    assert {"pdf-tools", "csv-cleaner"} <= set(fired.detail["skills_available"])
    assert fired.usage.input_tokens > 0 and fired.usage.output_tokens > 0


def test_the_request_is_the_interactive_clis_own(
    fired: TriggerOutcome, claude: Path, mock: MockAnthropic, tmp_path: Path
) -> None:
    """The identity line and entry point of the interactive CLI (not print mode's "Agent SDK"
    / `sdk-cli`), and the whole body equal to the interactive capture's for this query."""
    sent = skill_requests(mock, fired.detail["session_id"])
    assert sent, "the session sent no request offering the skills"
    system = json.dumps(sent[0].body.get("system"), ensure_ascii=False)
    assert INTERACTIVE_IDENTITY in system and "cc_entrypoint=cli;" in system
    assert "Agent SDK" not in system and "cc_entrypoint=sdk-cli" not in system
    template = capture_template(
        claude,
        TARGET,
        CATALOG,
        model=MODEL,
        cli_version=cli_version(claude),
        cli_mode="interactive",
    )
    mine = normalise_body(sent[0].body, fired.detail["workdir"])
    assert json.dumps(mine, sort_keys=True) == json.dumps(template.body_for(FIRES), sort_keys=True)


def test_a_text_answer_is_no_trigger(claude: Path, mock: MockAnthropic) -> None:
    outcome = run(judge_for(claude, mock.base_url, timeout=90), UNRELATED)
    assert outcome.error is None, outcome.detail
    assert outcome.triggered is False and outcome.fired is None
    assert outcome.detail["turn_ended"] is True and outcome.detail["num_turns"] == 1
    assert outcome.detail["skills_invoked"] == []


def test_a_hanging_model_is_a_timeout_error(claude: Path) -> None:
    with MockAnthropic(hang=True) as hanging:
        outcome = run(judge_for(claude, hanging.base_url, timeout=8), FIRES)
    assert outcome.triggered is False
    assert outcome.error is not None and outcome.error.startswith("timeout"), outcome.error
