"""Gemini CLI 0.61.0 as a behavior session runs it (measured against a loopback fake):

- `gemini -m <model> --approval-mode <mode> -o stream-json -p ""`, the prompt on stdin (the CLI
  appends stdin to the empty `-p`); the approval mode is the capture's
  (`SKILLBENCH_GEMINI_APPROVAL_MODE`, default `yolo`: without a terminal nothing else runs tools);
- the skill under `.agents/skills/<folder>/`; `GEMINI.md` and `AGENTS.md` of the project and
  its `.gemini/` folder are configuration, so such input files are left out;
- the isolated HOME's `~/.gemini/settings.json`: the capture's (API-key auth, no telemetry or
  update check) plus MCP servers under `mcpServers` (`trust: true`; their tools offered as
  `mcp_<server>_<tool>`);
- its `run_shell_command` runs `bash -c` with the CLI's environment, so a hermetic run's
  `BASH_ENV` guard runs before each command;
- stream-json events: `init` (model), `message` (assistant deltas), `tool_use` / `tool_result`
  (by `tool_id`), `result` (status and token stats: `input` is the uncached part of
  `input_tokens`, `cached` the cached part).
"""

from __future__ import annotations

import json
import os
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
from skillbench.backends.gemini.agent import (
    CAPTURE_SETTINGS,
    DEFAULT_ENDPOINT,
    GEMINI,
    approval_mode,
)
from skillbench.backends.opencode.behavior import bash_shell
from skillbench.backends.replay.agent import Agent
from skillbench.io import atomic_write_text


class GeminiSession(SessionCli):
    """Gemini CLI's headless run (see the module docstring)."""

    agent: ClassVar[Agent] = GEMINI
    resumable: ClassVar[bool] = True  # `--resume <session id>` (sessions stored in HOME)
    config_names: ClassVar[frozenset[str]] = frozenset({"gemini.md", "agents.md"})
    config_dirs: ClassVar[frozenset[str]] = frozenset({".agents", ".gemini"})

    def call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        flags = ("-m", model, "--approval-mode", approval_mode(), "-o", "stream-json", "-p", "")
        return AgentCall((os.fspath(binary), *flags), prompt.encode("utf-8"))

    def resume_call(self, binary: Path, model: str, prompt: str, session_id: str) -> AgentCall:
        call = self.call(binary, model, prompt)
        return AgentCall((*call.argv, "--resume", session_id), call.stdin)

    def upstream(self) -> str:
        return os.environ.get("GOOGLE_GEMINI_BASE_URL") or DEFAULT_ENDPOINT

    def keys(self) -> dict[str, str]:
        return {"GEMINI_API_KEY": self.require_key("GEMINI_API_KEY")}

    def session_env(self, home: Path, api_url: str) -> dict[str, str]:
        env = {k: v for k, v in self.agent.base_env(home).items() if not k.startswith("LC_")}
        env.update(
            LANG="en_US.UTF-8",
            GOOGLE_GEMINI_BASE_URL=api_url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
            NO_COLOR="1",
            SHELL=bash_shell(),
        )
        env.update({k: v for k, v in self.agent.settings().items() if k.isupper()})
        return env

    def configure(
        self, project: Path, home: Path, api_url: str, model: str, mcp: Mapping[str, McpCommand]
    ) -> None:
        settings = json.loads(CAPTURE_SETTINGS)
        if mcp:
            settings["mcpServers"] = {
                name: {"command": command, "args": list(args), "trust": True}
                for name, (command, args) in mcp.items()
            }
        atomic_write_text(home / ".gemini" / "settings.json", json.dumps(settings, indent=1))

    def settings(self) -> dict[str, str]:
        return dict(sorted(self.agent.settings().items()))

    def fold(self, event: dict[str, Any], log: SessionLog) -> None:
        kind = event.get("type")
        before = log.events[-2] if len(log.events) > 1 else {}
        turn_starts = before.get("type") == "tool_result" or before.get("role") == "user"
        if kind in ("message", "tool_use") and event.get("role") != "user" and turn_starts:
            log.steps += 1  # a model turn begins after the prompt or a tool result
        if kind == "init":
            log.model = str(event.get("model") or "") or None
            log.session_id = str(event.get("session_id") or "") or log.session_id
        elif kind == "message" and event.get("role") == "assistant":
            text = str(event.get("content") or "")
            more = bool(event.get("delta")) and before.get("role") == "assistant"
            log.say(text, more=more)  # a delta continues the same message
        elif kind == "tool_use":
            log.tool(
                ToolCall(
                    name=str(event.get("tool_name") or "?"),
                    input=event.get("parameters"),
                    id=str(event.get("tool_id") or ""),
                )
            )
        elif kind == "tool_result":
            for call in reversed(log.tool_calls):
                if call.id and call.id == event.get("tool_id"):
                    error = field_dict(event.get("error"))
                    call.output = str(event.get("output") or error.get("message") or "")
                    call.error = event.get("status") != "success"
                    break
        elif kind == "result":
            stats = field_dict(event.get("stats"))
            log.usage.add(
                CallUsage(
                    input_tokens=int(stats.get("input") or 0),
                    output_tokens=int(stats.get("output_tokens") or 0),
                    cache_read_input_tokens=int(stats.get("cached") or 0),
                )
            )
            log.ended = True
            if event.get("status") != "success":
                said = event.get("error") or event.get("status")
                log.error = json.dumps(said, ensure_ascii=False)[:500]
        elif kind == "error":
            log.error = str(event.get("message") or json.dumps(event))[:500]


GEMINI_SESSION = GeminiSession()
