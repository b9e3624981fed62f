"""`run --backend codex|gemini|opencode`: the agent CLI session executor (no CLI runs here; the
real CLIs are driven in tests/hermetic/test_hermetic_agents_real_cli.py). Bad input is refused
before anything is created (an `answers` block they cannot honour, an input file that is the
agent's configuration); the real-world warning covers them; the executor's usage carries the
dollars the CLI stated, else the price table's; the plan counts recorded sessions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skillbench.backends.agent_session import SessionLog
from skillbench.backends.base import CallUsage, TextRequest
from skillbench.backends.cache import CallCache
from skillbench.backends.codex.behavior import CODEX_SESSION
from skillbench.backends.opencode.behavior import OPENCODE_SESSION
from skillbench.backends.registry import backend_spec
from skillbench.backends.skill_copy import DEFAULT_MAX_COPY
from skillbench.behavior.agent_executor import AgentSessionExecutor
from skillbench.behavior.executor_choice import make_executor
from skillbench.behavior.executors import ClaudeCodeExecutor
from skillbench.cli import main
from skillbench.cost.estimate import get_estimator
from skillbench.errors import BackendError
from skillbench.hermetic.agent_wiring import unsupported
from skillbench.hermetic.environment import parse_environment

SKILL_MD = "---\nname: pr-helper\ndescription: Use when opening pull requests.\n---\n# PR\n"
AGENTS = ("codex", "gemini", "opencode")


@pytest.fixture(autouse=True)
def _stand_in_clis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every agent CLI is a stand-in executable (never run as an agent here), every key set."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    for variable in ("SKILLBENCH_CODEX_BIN", "SKILLBENCH_GEMINI_BIN", "SKILLBENCH_OPENCODE_BIN"):
        monkeypatch.setenv(variable, sys.executable)
    for variable in ("OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(variable, "test-key-0123456789")


def skill(tmp_path: Path, case_extra: dict) -> Path:
    folder = tmp_path / "pr-helper"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "AGENTS.md").write_text("be terse\n")
    expectation = {"criterion": "c", "description": "d", "required": True}
    case = {"id": "c0", "prompt": "open a PR", "expectations": [expectation], **case_extra}
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    return folder


@pytest.mark.parametrize("backend", AGENTS)
def test_scripted_answers_are_taken_by_every_agent_whose_sessions_resume(backend: str) -> None:
    assert backend_spec(backend).load("session_cli").resumable


def test_an_input_file_that_configures_the_agent_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = skill(tmp_path, {"files": ["AGENTS.md"]})
    assert main(["run", str(folder), "--backend", "codex", "--runs", "1"]) == 2
    err = capsys.readouterr().err
    assert "cases[0].files[0]" in err and "AGENTS.md" in err, err
    assert not (tmp_path / "pr-helper-workspace").exists()


@pytest.mark.parametrize("backend", AGENTS)
def test_a_session_without_an_environment_is_warned_in_the_dry_run(
    backend: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    price = {"input": 1.0, "output": 5.0, "cache_write_5m": 1.25, "cache_read": 0.1}
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"gpt-6.1-sol": price, "gemini-2.5-flash": price}}))
    monkeypatch.setenv("SKILLBENCH_PRICES", str(prices))
    folder = skill(tmp_path, {})
    assert main(["run", str(folder), "--backend", backend, "--runs", "1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"warning: {backend} runs are real agent sessions acting on the real world" in out


def test_make_executor_builds_the_agent_session_and_needs_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    executor = make_executor("codex", timeout=30, workers=3)
    assert isinstance(executor, AgentSessionExecutor)
    assert executor.runner.max_concurrency == 3 and executor.runner.timeout == 30
    identity = executor.identity()
    assert identity["backend"] == "codex" and identity["mode"] == "behavior-agent"
    assert "--json" in identity["flags"] and identity["settings"]["sandbox"] == "danger-full-access"
    assert "test-key" not in json.dumps(identity)
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        make_executor("codex")


FAKE_CLAUDE = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"


@pytest.mark.parametrize("kind", ["claude-code", "agent-cli"])
def test_a_session_executor_keys_only_the_limits_that_are_not_the_defaults(kind: str) -> None:
    """A raised copy or output limit changes what a session installs or keeps, so it is part
    of the identity (the cache key), last, for Claude Code's executor and another agent's
    alike; the defaults are not (the keys of default runs stay as they were)."""

    def make(**limits: int) -> ClaudeCodeExecutor | AgentSessionExecutor:
        if kind == "claude-code":
            return ClaudeCodeExecutor(claude_bin=FAKE_CLAUDE, **limits)
        return AgentSessionExecutor(CODEX_SESSION, "gpt-6.1-sol", **limits)

    assert not {"max_copy", "max_output"} & set(make().identity())
    raised = make(max_copy=DEFAULT_MAX_COPY + 1, max_output=7).identity()
    assert list(raised)[-3:] == ["skill_install", "max_copy", "max_output"]
    assert (raised["max_copy"], raised["max_output"]) == (DEFAULT_MAX_COPY + 1, 7)
    assert list(make(max_output=7).identity())[-2:] == ["skill_install", "max_output"]


def test_usage_carries_the_stated_cost_else_the_price_table(tmp_path: Path) -> None:
    opencode = AgentSessionExecutor(OPENCODE_SESSION, "claude-haiku-4-5")
    log = SessionLog(usage=CallUsage(300, 42), reported_cost=0.00051)
    assert opencode.usage(log).cost_usd == pytest.approx(0.00051)
    log.reported_cost = None  # not stated: the price table's (haiku: $1 / $5 per MTok)
    assert opencode.usage(log).cost_usd == pytest.approx(300e-6 + 42 * 5e-6)
    codex = AgentSessionExecutor(CODEX_SESSION, "gpt-6.1-sol")
    assert codex.usage(SessionLog(usage=CallUsage(1000, 10))).cost_usd == 0.0
    assert any("no price known" in note for note in codex.notes), codex.notes


def test_the_plan_prices_a_session_from_the_recorded_sessions(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "cache.sqlite")
    try:
        estimator = get_estimator("opencode", cache=cache, kind="behavior-run")
        request = TextRequest("open a PR", purpose="execute")
        alone = estimator.text_call(request)
        assert "the prompt only" in estimator.basis()
        usage = {"input_tokens": 9000, "output_tokens": 400, "cost_usd": 0.01}
        cache.put("k1", {"usage": usage}, backend="opencode", kind="behavior-run",
                  model="claude-haiku-4-5")  # fmt: skip
        recorded = get_estimator("opencode", cache=cache, kind="behavior-run")
        tokens = recorded.text_call(request)
        assert (
            (tokens.input_tokens, tokens.output_tokens)
            == (9000, 400)
            != (
                alone.input_tokens,
                alone.output_tokens,
            )
        )
        assert "mean of 1 cached sessions" in recorded.basis()
    finally:
        cache.close()


def test_the_fields_an_agent_session_cannot_honour() -> None:
    block = parse_environment({"mcp": {"linear": {"tools": [{"name": "t"}]}}})
    assert unsupported(block, mcp=True) is None
    assert unsupported(block, mcp=False) == "mcp"  # an agent CLI without MCP configuration
    asks = parse_environment({"answers": [{"when": "repo", "say": "r"}]})
    assert unsupported(asks, mcp=True) == "answers"  # a session that cannot be resumed
    assert unsupported(asks, mcp=True, answers=True) is None
