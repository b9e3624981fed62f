"""Codex CLI 0.169.0 as a behavior session runs it (measured against a loopback fake):

- `codex exec --disable plugins --skip-git-repo-check -m <model> -s <sandbox>
  -c approval_policy="never" --json -`, the prompt on stdin; the sandbox is
  `SKILLBENCH_CODEX_SANDBOX` when set, else `danger-full-access` (as a Claude Code behavior
  session, which has no sandbox either: a case's `environment` is the confinement; Codex's own
  sandbox would also keep a fake from writing its call log outside the project);
- the skill under `.agents/skills/<folder>/` of a project that is a git repository (Codex walks
  up to the repository root for skill folders); `AGENTS.md` and `.codex/` are configuration;
- `CODEX_HOME` in the isolated HOME, whose `config.toml` names the key forwarder as the
  provider (`codex.agent.capture_config`) and the MCP servers under `[mcp_servers.<name>]` with
  `required = true` (measured: without it `codex exec` starts its first turn before a stdio
  server is up and never offers its tools; with it the tool `mcp__<server>__<tool>` is there);
- its shell runs `bash -lc` (a login shell: `/etc/profile` resets PATH, then `BASH_ENV` runs,
  so a hermetic run's guard puts the fakes back first before each command);
- JSON events: `item.completed` items (`agent_message`, `command_execution` with its output and
  exit code, `mcp_tool_call`, `file_change`, `web_search`), `turn.completed` (usage: input
  including the cached part, cached, output), `turn.failed` / `error`.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.agent_session import (
    McpCommand,
    SessionCli,
    SessionLog,
    ToolCall,
    field_dict,
)
from skillbench.backends.base import CallUsage
from skillbench.backends.codex.agent import (
    CAPTURE_KEY_VARIABLE,
    CODEX,
    DEFAULT_ENDPOINT,
    SANDBOX_VARIABLE,
    capture_config,
)
from skillbench.backends.opencode.behavior import bash_shell
from skillbench.backends.replay.agent import Agent
from skillbench.io import atomic_write_text

DEFAULT_SANDBOX = "danger-full-access"
NOT_TOOLS = ("agent_message", "reasoning", "todo_list", "error")


def mcp_tables(mcp: Mapping[str, McpCommand]) -> str:
    """`[mcp_servers.<name>]` tables for `config.toml` (JSON strings are valid TOML strings)."""
    lines: list[str] = []
    for name, (command, args) in mcp.items():
        lines += [
            "",
            f"[mcp_servers.{name}]",
            f"command = {json.dumps(command)}",
            f"args = {json.dumps(list(args))}",
            "required = true",
        ]
    return "\n".join(lines) + ("\n" if lines else "")


class CodexSession(SessionCli):
    """Codex CLI's `exec` run (see the module docstring)."""

    agent: ClassVar[Agent] = CODEX
    resumable: ClassVar[bool] = True  # `codex exec resume <thread id>` (sessions stored in HOME)
    config_names: ClassVar[frozenset[str]] = frozenset({"agents.md", "agents.override.md"})
    config_dirs: ClassVar[frozenset[str]] = frozenset({".agents", ".codex", ".git"})

    def sandbox(self) -> str:
        """`SKILLBENCH_CODEX_SANDBOX` when set (checked as the capture checks it), else
        `danger-full-access`."""
        if (os.environ.get(SANDBOX_VARIABLE) or "").strip():
            return self.agent.settings()["sandbox"]
        return DEFAULT_SANDBOX

    def _flags(self, model: str) -> list[str]:
        settings = self.agent.settings()
        flags = ["exec", "--disable", "plugins", "--skip-git-repo-check", "--color", "never"]
        flags += ["-m", model, "-s", self.sandbox()]
        flags += ["-c", f'approval_policy="{settings["approval"]}"']
        if "reasoning_effort" in settings:
            flags += ["-c", f'model_reasoning_effort="{settings["reasoning_effort"]}"']
        return [*flags, "--json"]

    def call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        return AgentCall((os.fspath(binary), *self._flags(model), "-"), prompt.encode("utf-8"))

    def resume_call(self, binary: Path, model: str, prompt: str, session_id: str) -> AgentCall:
        argv = (os.fspath(binary), *self._flags(model), "resume", session_id, "-")
        return AgentCall(argv, prompt.encode("utf-8"))

    def upstream(self) -> str:
        return os.environ.get("OPENAI_BASE_URL") or DEFAULT_ENDPOINT

    def keys(self) -> dict[str, str]:
        return {CAPTURE_KEY_VARIABLE: self.require_key("OPENAI_API_KEY")}

    def session_env(self, home: Path, api_url: str) -> dict[str, str]:
        env = self.agent.base_env(home)
        env.update(CODEX_HOME=str(home / ".codex"), NO_COLOR="1", SHELL=bash_shell())
        return env

    def configure(
        self, project: Path, home: Path, api_url: str, model: str, mcp: Mapping[str, McpCommand]
    ) -> None:
        config = capture_config(api_url, api_path="") + mcp_tables(mcp)
        atomic_write_text(home / ".codex" / "config.toml", config)
        subprocess.run(
            ["git", "init", "-q", str(project)],
            check=False,
            capture_output=True,
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
        )

    def settings(self) -> dict[str, str]:
        return {**self.agent.settings(), "sandbox": self.sandbox()}

    def fold(self, event: dict[str, Any], log: SessionLog) -> None:
        kind = event.get("type")
        item = field_dict(event.get("item"))
        if kind == "thread.started" and event.get("thread_id"):
            log.session_id = str(event["thread_id"])
        elif kind == "turn.started":
            log.steps += 1
        elif kind == "item.completed" and item.get("type") == "agent_message":
            log.say(str(item.get("text") or ""))
        elif kind == "item.completed" and item.get("type") not in NOT_TOOLS:
            log.tool(_tool_call(item))
        elif kind == "turn.completed":
            usage = field_dict(event.get("usage"))
            cached = int(usage.get("cached_input_tokens") or 0)
            log.usage.add(
                CallUsage(
                    input_tokens=max(int(usage.get("input_tokens") or 0) - cached, 0),
                    output_tokens=int(usage.get("output_tokens") or 0),
                    cache_read_input_tokens=cached,
                    cache_creation_input_tokens=int(usage.get("cache_write_input_tokens") or 0),
                )
            )
            log.ended = True
        elif kind in ("turn.failed", "error"):
            error = field_dict(event.get("error")) or event
            log.error = str(error.get("message") or json.dumps(error))[:500]


def _tool_call(item: dict[str, Any]) -> ToolCall:
    """A finished tool item as a tool call (a command's output and exit code; an MCP call's
    server/tool, arguments and result)."""
    kind = str(item.get("type") or "?")
    if kind == "command_execution":
        code = item.get("exit_code")
        return ToolCall(
            name="shell",
            input={"command": item.get("command")},
            output=str(item.get("aggregated_output") or ""),
            error=code not in (0, None) or item.get("status") == "failed",
        )
    if kind == "mcp_tool_call":
        name = f"mcp__{item.get('server')}__{item.get('tool')}"
        return ToolCall(
            name=name,
            input=item.get("arguments"),
            output=json.dumps(item.get("result") or item.get("error"), ensure_ascii=False),
            error=item.get("status") == "failed",
        )
    said = {k: v for k, v in item.items() if k not in ("id", "type", "status")}
    return ToolCall(name=kind, input=said, error=item.get("status") == "failed")


CODEX_SESSION = CodexSession()
