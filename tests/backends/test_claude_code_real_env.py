"""The REAL pinned CLI against the loopback mock: the caller's settings reach it (a model pin; the
custom headers through the key forwarder, which adds them), Claude Code session variables do not break it, the whole skill folder is
installed (its `when_to_use` reaches the listing), and the model the CLI reports is recorded."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from mock_anthropic_sse import MockAnthropic
from real_cli import real_cli_skip_reason

from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.session import REPO_CLAUDE, ClaudeCodeJudge
from skillbench.skill import Skill

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
PIN = "claude-haiku-4-5-20251001"


def _marked(mark: str) -> list[int]:
    """Live (non-zombie) processes whose environment holds `mark`."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else []:
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if mark.encode() in environ and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture
def mock() -> Iterator[MockAnthropic]:
    with MockAnthropic() as server:
        yield server


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "pdf-tools"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Use when merging PDF documents.\n"
        "when_to_use: Also for rotating scanned pages.\nallowed-tools: Read\n---\n\n# PDF\n",
        encoding="utf-8",
    )
    (folder / "scripts" / "merge.py").write_text("print('merge')\n")
    return folder


async def test_the_callers_environment_reaches_the_real_cli(
    mock: MockAnthropic, skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # set in the CALLER's environment, not through env=: the allowlist and the forwarder carry them
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-offline")
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Skillbench-Probe: passed-through")
    monkeypatch.setenv("ANTHROPIC_MODEL", PIN)
    monkeypatch.setenv("CLAUDECODE", "1")  # as when skillbench runs inside Claude Code
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    skill = Skill.load(skill_dir)
    target = SkillEntry(
        skill.name, skill.description, skill.body, str(skill.path), skill.content_hash
    )
    mark = f"run-{uuid.uuid4().hex}"  # inherited by the CLI and anything it spawns
    judge = ClaudeCodeJudge(claude_bin=REPO_CLAUDE, timeout=60, env={"SKILLBENCH_TEST_MARK": mark})
    outcome = await judge.judge(TriggerRequest(target, (), "merge two pdf documents", 0))
    assert outcome.detail["ended_early"] is True
    assert _marked(mark) == [], "a process of the ended session is still running"
    await judge.aclose()
    assert outcome.error is None, outcome.detail
    assert outcome.triggered is True
    calls = [r for r in mock.requests if r.path.startswith("/v1/messages") and r.listing]
    assert calls, "the CLI never sent a request listing skills"
    assert all(r.probe_header == "passed-through" for r in calls)
    assert calls[0].model == PIN
    assert outcome.detail["model"] == PIN  # the model the CLI reported in its init event
    assert judge.versions()["claude_code_model"] == PIN
    assert judge.identity()["model_env"] == {"ANTHROPIC_MODEL": PIN}
    listed = dict(calls[0].listing)
    assert "Also for rotating scanned pages." in listed["pdf-tools"]  # when_to_use, installed


@pytest.mark.parametrize("variable", ["ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"])
async def test_a_bearer_token_reaches_the_api_through_the_key_forwarder(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38: a token held in the caller's environment reaches the API as `Authorization:
    Bearer <token>` while the CLI itself only held a dummy."""
    from mock_agentic_sse import AgenticMock

    from skillbench.backends.base import TextRequest
    from skillbench.backends.claude_cli.session import ClaudeCodeTextModel

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    token = f"real-{uuid.uuid4().hex}"
    monkeypatch.setenv(variable, token)
    with AgenticMock() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        model = ClaudeCodeTextModel(claude_bin=REPO_CLAUDE, timeout=60)
        session_env = model.build_env(None)
        try:
            reply = await model.complete(TextRequest(prompt="hi", system="", max_tokens=10))
        finally:
            await model.aclose()
        keys = server.keys
    assert reply.text == "OK."
    assert keys and set(keys) == {f"Bearer {token}"}
    assert token not in session_env.values()
    assert session_env[variable].startswith("sk-ant-api03-skillbench-dummy-")
