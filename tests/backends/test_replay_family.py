"""One replay family (issue 37): Claude Code, opencode, Gemini CLI and Codex CLI are four `Agent`s
on one capture, template, store and judge; every fold speaks one first-move vocabulary; a call
past its deadline is a neutral `CallTimedOut` for every agent (a Gemini or Codex timeout was once
raised as an `AnthropicError`); reports still read Claude Code's listing by its own rules.

Offline: the CLIs are fake scripts that print a version, the templates are the stored files of
`tests/data/replay-templates/`, the providers are mock transports.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from test_replay_key_pins import (
    CATALOG,
    REQUEST,
    TARGET,
    UNSET,
    agent_judge,
    claude_judge,
)

from skillbench.backends import agent_skills, registry
from skillbench.backends.anthropic.capture import ClaudeCodeAgent
from skillbench.backends.anthropic.first_turn import FirstTurn
from skillbench.backends.codex.listing import parse_listing
from skillbench.backends.codex.stream import CodexFold
from skillbench.backends.describe import describe
from skillbench.backends.gemini.stream import GeminiFold
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.replay import judge as replay_judge
from skillbench.backends.replay import move
from skillbench.backends.replay.agent import Agent


@pytest.fixture(autouse=True)
def _no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)


async def _never(request: Any) -> Any:
    await asyncio.sleep(3600)  # a hung server: no byte ever arrives
    raise AssertionError("unreachable")


def hung_outcome(judge: Any, http_client: Any) -> Any:
    """The outcome of one run against a provider that never answers, with a 0.3 s timeout."""
    judge._timeout = 0.3
    judge._http_client = http_client

    async def run() -> Any:
        try:
            return await asyncio.wait_for(judge.judge(REQUEST), 30)
        finally:
            await judge.aclose()

    return asyncio.run(run())


@pytest.mark.parametrize("name", ["gemini", "codex"])
def test_a_gemini_or_codex_timeout_is_a_neutral_error_outcome(name: str, tmp_path: Path) -> None:
    pytest.importorskip({"gemini": "google.genai", "codex": "openai"}[name])
    never = httpx.AsyncClient(transport=httpx.MockTransport(_never))
    outcome = hung_outcome(agent_judge(tmp_path, name), never)
    assert outcome.triggered is False and outcome.detail["error_kind"] == "api"
    assert outcome.error is not None and outcome.error.startswith("CallTimedOut: ")
    assert "timed out after 0.3 s" in outcome.error and "Anthropic" not in outcome.error


def test_claude_codes_replay_times_out_on_the_same_neutral_deadline(tmp_path: Path) -> None:
    never = httpx2.AsyncClient(transport=httpx2.MockTransport(_never))
    outcome = hung_outcome(claude_judge(tmp_path), never)
    assert outcome.error is not None and outcome.error.startswith("CallTimedOut: ")
    assert "timed out after 0.3 s" in outcome.error and outcome.detail["error_kind"] == "api"


def test_every_fold_speaks_the_one_first_move_vocabulary() -> None:
    listing = (
        "<skills_instructions>\n- `r0` = `/p/.agents/skills`\n### Available skills\n"
        "- pdf-tools: Use for PDFs. (file: r0/pdf-tools/SKILL.md)\n</skills_instructions>"
    )
    body = {"input": [{"role": "developer", "content": [{"type": "input_text", "text": listing}]}]}
    codex = CodexFold("pdf-tools", (), parse_listing(body))
    codex.feed({"type": "response.output_item.done", "item": _codex_call()})
    gemini = GeminiFold("pdf-tools")
    gemini.feed({"candidates": [{"content": {"parts": [{"function_call": _gemini_call()}]}}]})
    claude = FirstTurn("pdf-tools")
    claude.feed({"type": "content_block_start", "index": 0, "content_block": _tool_use()})
    delta = {"type": "input_json_delta", "partial_json": '{"skill": "pdf-tools"}'}
    claude.feed({"type": "content_block_delta", "index": 0, "delta": delta})
    claude.feed({"type": "content_block_stop", "index": 0})
    for fold in (claude, gemini, codex):
        assert fold.decided
        found = fold.finish()
        assert type(found) is move.Move and found.kind == move.TARGET
        assert found.kind in move.MOVES and found.fired == "pdf-tools"
    assert (agent_skills.TARGET, agent_skills.OTHER_SKILL) == (move.TARGET, move.OTHER_SKILL)


def _codex_call() -> dict[str, Any]:
    return {
        "type": "function_call",
        "name": "exec_command",
        "arguments": '{"cmd": "cat /p/.agents/skills/pdf-tools/SKILL.md"}',
    }


def _gemini_call() -> dict[str, Any]:
    return {"name": "activate_skill", "args": {"name": "pdf-tools"}}


def _tool_use() -> dict[str, Any]:
    return {"type": "tool_use", "name": "Skill", "input": {}}


def test_claude_code_is_one_agent_among_four(tmp_path: Path) -> None:
    claude = claude_judge(tmp_path / "claude")
    others = [agent_judge(tmp_path / name, name) for name in ("opencode", "gemini", "codex")]
    for judge in (claude, *others):
        assert isinstance(judge, replay_judge.ReplayJudge)
        assert isinstance(judge.agent, Agent)
        assert judge.known_template(TARGET, CATALOG) is not None  # one store read them all
    assert isinstance(claude.agent, ClaudeCodeAgent) and claude.name == "anthropic"
    assert Agent.named("claude-code").sentinel != OPENCODE.sentinel  # each keeps its own
    # the anthropic backend stays "claude-code" in the agent lists, not a fifth agent
    assert "anthropic" not in registry.agent_names()


def test_reports_read_claude_codes_listing_by_its_own_rules_and_the_others_from_the_judge(
    tmp_path: Path,
) -> None:
    claude = describe(claude_judge(tmp_path / "claude"))
    assert claude.listing == "captured" and claude.agent_title is None
    assert claude.harness is not None and claude.harness.name == "replay"
    assert claude.harness.claude_code_request and claude.harness.cli_mode == "print"
    opencode = describe(agent_judge(tmp_path / "opencode", "opencode"))
    assert opencode.listing == "agent" and opencode.agent_title == OPENCODE.title
    assert opencode.harness is not None and opencode.harness.name == "opencode replay"
