"""The REAL pinned `claude` CLI (.tools/, installed by `make claude`) against a loopback mock of
the Messages API (tests/mock_anthropic_sse.py): no network, a dummy key, an isolated HOME."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mock_anthropic_sse import MockAnthropic
from real_cli import real_cli_skip_reason

from skillbench.backends.base import SkillEntry, TextRequest, TriggerRequest
from skillbench.backends.claude_cli.session import REPO_CLAUDE, ClaudeCodeJudge, ClaudeCodeTextModel

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]

TARGET = SkillEntry(
    name="pdf-tools",
    description="Use when merging, splitting or rotating PDF documents.",
    body="# PDF tools\n\nUse pypdf.\n",
)
CATALOG = (SkillEntry("csv-cleaner", "Use when cleaning spreadsheet CSV tables.", "# CSV\n"),)


@pytest.fixture
def mock() -> Iterator[MockAnthropic]:
    with MockAnthropic() as server:
        yield server


def offline_env(mock: MockAnthropic) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": mock.base_url, "ANTHROPIC_API_KEY": "sk-ant-dummy-offline"}


async def test_real_cli_stream_is_parsed_and_the_trigger_detected(mock: MockAnthropic) -> None:
    judge = ClaudeCodeJudge(claude_bin=REPO_CLAUDE, env=offline_env(mock), timeout=30)
    assert judge.versions()["claude_code"].startswith("2.1.")
    hit = await judge.judge(TriggerRequest(TARGET, CATALOG, "merge two pdf documents", 0))
    assert hit.error is None, hit.detail
    assert hit.triggered is True and hit.fired == "pdf-tools"
    assert hit.detail["tool_calls"] == {"Skill": 1}
    assert "pdf-tools" in hit.detail["skills_available"]
    assert "csv-cleaner" in hit.detail["skills_available"]
    assert hit.usage.input_tokens > 0 and hit.usage.output_tokens > 0
    # the model saw the installed skill and asked for it; the session ended right there (the
    # process group killed) instead of running the skill's turns
    model_calls = [r for r in mock.requests if r.path.startswith("/v1/messages")]
    assert any(r.answered_skill == "pdf-tools" for r in model_calls)
    assert hit.detail["ended_early"] is True
    assert hit.detail["model"]  # the model the CLI reported in its init event

    full = ClaudeCodeJudge(
        claude_bin=REPO_CLAUDE, env=offline_env(mock), timeout=30, stop_on_trigger=False
    )
    whole = await full.judge(TriggerRequest(TARGET, CATALOG, "merge two pdf documents", 1))
    assert whole.error is None and whole.triggered is True
    assert whole.detail["ended_early"] is False
    assert any(r.saw_tool_result for r in mock.requests if r.path.startswith("/v1/messages"))
    await full.aclose()

    other = await judge.judge(TriggerRequest(TARGET, CATALOG, "clean my spreadsheet csv", 0))
    assert other.error is None, other.detail
    assert other.triggered is False and other.fired == "csv-cleaner"
    await judge.aclose()


async def test_real_cli_without_credentials_is_an_error(
    mock: MockAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    judge = ClaudeCodeJudge(
        claude_bin=REPO_CLAUDE, env={"ANTHROPIC_BASE_URL": mock.base_url}, timeout=30
    )
    outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, "merge two pdf documents", 0))
    assert outcome.triggered is False
    assert outcome.error is not None and outcome.error.startswith("authentication_failed")


async def test_real_cli_text_mode(mock: MockAnthropic) -> None:
    model = ClaudeCodeTextModel(claude_bin=REPO_CLAUDE, env=offline_env(mock), timeout=30)
    reply = await model.complete(TextRequest(prompt="say ok", system="be terse"))
    assert reply.text == "OK."
    assert reply.usage.output_tokens > 0
