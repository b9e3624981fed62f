"""Agent CLI sessions (`backends/agent_session.py` and each agent's `behavior.py`): the folds
of the events the pinned CLIs print (lines recorded from opencode 1.18.33, Gemini CLI 0.61.0 and
Codex CLI 0.169.0 against the loopback fakes), the configuration each writes, and the runner's
process handling on a stand-in CLI (no model, no network)."""

from __future__ import annotations

import asyncio
import json
import sys
import tomllib
from pathlib import Path
from typing import Any, ClassVar

import pytest

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.agent_session import (
    AgentSessionRunner,
    McpCommand,
    SessionCli,
    SessionLog,
    SessionRun,
)
from skillbench.backends.codex.behavior import CODEX_SESSION
from skillbench.backends.gemini.behavior import GEMINI_SESSION
from skillbench.backends.opencode.behavior import OPENCODE_SESSION
from skillbench.backends.replay.agent import Agent
from skillbench.errors import BackendError

OPENCODE_EVENTS = [
    {"type": "step_start", "part": {"type": "step-start"}},
    {"type": "tool_use", "part": {"type": "tool", "tool": "bash", "state": {
        "status": "completed", "input": {"command": "command -v gh", "description": "x"},
        "output": "/w/skillbench-fakes/gh\n", "metadata": {"exit": 0}}}},
    {"type": "step_finish", "part": {"reason": "tool-calls", "tokens": {
        "total": 342, "input": 300, "output": 42, "reasoning": 0,
        "cache": {"write": 5, "read": 7}}, "cost": 0.00051}},
    {"type": "step_start", "part": {"type": "step-start"}},
    {"type": "tool_use", "part": {"type": "tool", "tool": "bash", "state": {
        "status": "error", "input": {"command": "false"}, "error": "exit 1"}}},
    {"type": "step_finish", "part": {"reason": "tool-calls", "tokens": {
        "input": 300, "output": 42, "cache": {"write": 0, "read": 0}}, "cost": 0.00051}},
    {"type": "step_start", "part": {"type": "step-start"}},
    {"type": "text", "part": {"type": "text", "text": "All done."}},
    {"type": "step_finish", "part": {"reason": "stop", "tokens": {
        "input": 300, "output": 12, "cache": {"write": 0, "read": 0}}, "cost": 0.00036}},
]  # fmt: skip
GEMINI_EVENTS = [
    {"type": "init", "session_id": "s", "model": "gemini-2.5-flash"},
    {"type": "message", "role": "user", "content": "do it"},
    {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "t1",
     "parameters": {"command": "command -v gh", "description": "x"}},
    {"type": "tool_result", "tool_id": "t1", "status": "success", "output": "/w/fakes/gh"},
    {"type": "tool_use", "tool_name": "mcp_linear_create_issue", "tool_id": "t2",
     "parameters": {"title": "Broken build"}},
    {"type": "tool_result", "tool_id": "t2", "status": "error",
     "error": {"type": "x", "message": "refused"}},
    {"type": "message", "role": "assistant", "content": "All ", "delta": True},
    {"type": "message", "role": "assistant", "content": "done.", "delta": True},
    {"type": "result", "status": "success", "stats": {
        "total_tokens": 3726, "input_tokens": 3600, "output_tokens": 36, "cached": 3000,
        "input": 600, "duration_ms": 1005, "tool_calls": 2}},
]  # fmt: skip
CODEX_EVENTS = [
    {"type": "thread.started", "thread_id": "t"},
    {"type": "turn.started"},
    {"type": "item.started", "item": {"id": "item_0", "type": "command_execution",
     "command": "/bin/bash -lc 'command -v gh'", "aggregated_output": "", "exit_code": None,
     "status": "in_progress"}},
    {"type": "item.completed", "item": {"id": "item_0", "type": "command_execution",
     "command": "/bin/bash -lc 'command -v gh'", "aggregated_output": "/w/fakes/gh\n",
     "exit_code": 0, "status": "completed"}},
    {"type": "item.completed", "item": {"id": "item_1", "type": "command_execution",
     "command": "/bin/bash -lc 'gh repo delete o/old --yes'",
     "aggregated_output": "refused", "exit_code": 126, "status": "failed"}},
    {"type": "item.completed", "item": {"id": "item_2", "type": "mcp_tool_call",
     "server": "linear", "tool": "create_issue", "arguments": {"title": "B"},
     "result": {"content": []}, "status": "completed"}},
    {"type": "item.completed", "item": {"id": "item_3", "type": "agent_message",
     "text": "All done."}},
    {"type": "turn.completed", "usage": {"input_tokens": 3600, "cached_input_tokens": 3000,
     "cache_write_input_tokens": 0, "output_tokens": 126, "reasoning_output_tokens": 90}},
]  # fmt: skip


def fold(cli: SessionCli, events: list[dict[str, Any]]) -> SessionLog:
    log = SessionLog()
    for event in events:
        log.events.append(event)
        cli.fold(event, log)
    return log


def test_opencode_fold_sums_steps_tokens_and_the_stated_cost() -> None:
    log = fold(OPENCODE_SESSION, OPENCODE_EVENTS)
    assert [c.name for c in log.tool_calls] == ["bash", "bash"]
    assert log.tool_calls[0].output == "/w/skillbench-fakes/gh\n"
    assert [c.error for c in log.tool_calls] == [False, True]
    assert log.tool_calls[1].output == "exit 1"
    assert log.texts == ["All done."] and log.ended and log.steps == 3
    usage = log.usage
    assert (usage.input_tokens, usage.output_tokens) == (900, 96)
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (7, 5)
    assert log.reported_cost == pytest.approx(0.00138)


def test_opencode_fold_without_the_closing_step_has_not_ended() -> None:
    log = fold(OPENCODE_SESSION, OPENCODE_EVENTS[:3])
    assert not log.ended
    run = SessionRun(log, 0, False, 1.0)
    assert run.error(60) is not None and "no end event" in str(run.error(60))


def test_gemini_fold_pairs_results_joins_deltas_and_reads_the_stats() -> None:
    log = fold(GEMINI_SESSION, GEMINI_EVENTS)
    assert log.model == "gemini-2.5-flash"
    calls = log.tool_calls
    assert [(c.name, c.output, c.error) for c in calls] == [
        ("run_shell_command", "/w/fakes/gh", False),
        ("mcp_linear_create_issue", "refused", True),
    ]
    assert log.texts == ["All done."] and log.ended and log.error is None
    assert log.steps == 3  # three model turns: two tool calls, then the closing text
    usage = log.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens) == (
        600,
        3000,
        36,
    )
    assert log.reported_cost is None  # Gemini CLI states no dollars


def test_gemini_fold_an_error_result_is_the_sessions_error() -> None:
    failed = {"type": "result", "status": "error", "error": {"message": "quota"}, "stats": {}}
    log = fold(GEMINI_SESSION, [*GEMINI_EVENTS[:2], failed])
    assert log.ended and "quota" in str(log.error)
    assert "reported an error" in str(SessionRun(log, 1, False, 1.0).error(60))


def test_codex_fold_reads_items_and_turn_usage() -> None:
    log = fold(CODEX_SESSION, CODEX_EVENTS)
    assert [(c.name, c.error) for c in log.tool_calls] == [
        ("shell", False),
        ("shell", True),
        ("mcp__linear__create_issue", False),
    ]
    assert log.tool_calls[0].input == {"command": "/bin/bash -lc 'command -v gh'"}
    assert log.texts == ["All done."] and log.ended and log.steps == 1
    usage = log.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens) == (
        600,
        3000,
        126,
    )
    failed = fold(CODEX_SESSION, [{"type": "turn.failed", "error": {"message": "429 slow"}}])
    assert failed.error == "429 slow"


def test_each_agent_puts_the_mcp_servers_in_its_own_configuration(tmp_path: Path) -> None:
    mcp: dict[str, McpCommand] = {"linear": ("/py", ("server.py", "spec.json", "log", "linear"))}
    for cli in (OPENCODE_SESSION, GEMINI_SESSION, CODEX_SESSION):
        project, home = tmp_path / cli.name / "p", tmp_path / cli.name / "h"
        project.mkdir(parents=True)
        home.mkdir()
        cli.configure(project, home, "http://127.0.0.1:9", "m", mcp)
    opencode = json.loads((tmp_path / "opencode" / "h" / "opencode-skillbench.json").read_text())
    assert opencode["mcp"]["linear"] == {
        "type": "local",
        "command": ["/py", "server.py", "spec.json", "log", "linear"],
        "enabled": True,
    }
    gemini = json.loads((tmp_path / "gemini" / "h" / ".gemini" / "settings.json").read_text())
    assert gemini["mcpServers"]["linear"]["args"] == ["server.py", "spec.json", "log", "linear"]
    assert gemini["security"]["auth"]["selectedType"] == "gemini-api-key"
    codex = tomllib.loads((tmp_path / "codex" / "h" / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["linear"]["required"] is True
    provider = codex["model_providers"][codex["model_provider"]]
    assert provider["base_url"] == "http://127.0.0.1:9"  # the key forwarder, nothing else
    assert (tmp_path / "codex" / "p" / ".git").is_dir()


def test_sessions_hold_a_dummy_never_the_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for variable in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(variable, f"real-{variable}-0123456789abcdef")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "leak")
    for cli in (OPENCODE_SESSION, GEMINI_SESSION, CODEX_SESSION):
        env = cli.session_env(tmp_path, "http://127.0.0.1:9")
        assert not any("real-" in v or v == "leak" for v in env.values()), (cli.name, env)
        assert env["HOME"] == str(tmp_path) and env["SHELL"].endswith("bash")
        assert list(cli.keys().values()) == [f"real-{cli.agent.key_variable}-0123456789abcdef"]
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        CODEX_SESSION.keys()


def test_agent_configuration_paths() -> None:
    assert CODEX_SESSION.config_path("AGENTS.md") and CODEX_SESSION.config_path("sub/agents.md")
    assert CODEX_SESSION.config_path(".agents/skills/x/SKILL.md")
    assert GEMINI_SESSION.config_path("docs/GEMINI.md")
    assert OPENCODE_SESSION.config_path("opencode.json")
    assert not GEMINI_SESSION.config_path("data/report.csv")
    assert not CODEX_SESSION.config_path("GEMINI.md")


# -- the runner, on a stand-in CLI ----------------------------------------------------------

STAND_IN = """
import json, sys, time
prompt = sys.stdin.read()
print(json.dumps({"type": "said", "text": prompt}), flush=True)
print("not json", flush=True)
if "sleep" in prompt:
    time.sleep(60)
print(json.dumps({"type": "end"}), flush=True)
"""


class StandIn(SessionCli):
    """A CLI that echoes its stdin as an event, then ends (or sleeps, on request)."""

    agent: ClassVar[Agent] = OPENCODE_SESSION.agent

    def call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        return AgentCall((sys.executable, "-c", STAND_IN), prompt.encode())

    def keys(self) -> dict[str, str]:
        return {}

    def fold(self, event: dict[str, Any], log: SessionLog) -> None:
        if event.get("type") == "said":
            log.say(str(event["text"]))
        log.ended = log.ended or event.get("type") == "end"


def test_the_runner_sends_the_prompt_on_stdin_and_folds_events(tmp_path: Path) -> None:
    runner = AgentSessionRunner(StandIn(), binary=sys.executable, timeout=30)
    run = asyncio.run(runner.run("--settings={} hello", tmp_path, {"PATH": "/usr/bin:/bin"}))
    assert run.log.texts == ["--settings={} hello"]  # a prompt that looks like an option
    assert run.log.bad_lines == 1 and run.exit_code == 0 and run.error(30) is None
    assert "--settings" not in " ".join(runner.flags())


def test_the_runner_ends_a_session_past_its_timeout(tmp_path: Path) -> None:
    runner = AgentSessionRunner(StandIn(), binary=sys.executable, timeout=1)
    run = asyncio.run(runner.run("sleep", tmp_path, {"PATH": "/usr/bin:/bin"}))
    assert run.timed_out and "timeout" in str(run.error(1))
    assert run.log.texts == ["sleep"]
