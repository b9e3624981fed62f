"""opencode 1.18.33 as a behavior session runs it (measured against a loopback Messages fake):

- `opencode run -m anthropic/<model> --format json --auto`, the prompt on stdin; `--auto`
  approves what the default permissions would ask about (nothing stalls without a terminal);
- the skill under `.agents/skills/<folder>/` (opencode also reads `.opencode/skills` and
  `.claude/skills`); `AGENTS.md`, `CLAUDE.md` and `opencode.json(c)` of the project are its
  configuration, so an input file of that name is left out;
- the configuration file named by `OPENCODE_CONFIG` in the isolated HOME: MCP servers under
  `mcp` (`{"type": "local", "command": [...]}`; their tools offered as `<server>_<tool>`);
- its bash tool runs `$SHELL -c` with the CLI's environment (`SHELL=/bin/bash` here, so a
  hermetic run's `BASH_ENV` guard runs before each command);
- JSON events: `tool_use` (tool, input, output, status), `text`, `step_finish` (tokens and the
  cost opencode states from its model table), `error`.
The models.dev fetch, the auto-updater, sharing, LSP downloads and default plugins are off.
"""

from __future__ import annotations

import json
import os
import shutil
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
from skillbench.backends.opencode.agent import DEFAULT_ENDPOINT, OFFLINE, OPENCODE
from skillbench.backends.replay.agent import Agent
from skillbench.io import atomic_write_text

CONFIG_FILE = "opencode-skillbench.json"
#: The capture's switches that stop opencode's own fetches (its proxy settings are not used:
#: a session's network is the case's `environment`, not a dead proxy).
QUIET = {k: v for k, v in OFFLINE.items() if k.startswith("OPENCODE_")}


def bash_shell() -> str:
    """The shell the agent's tool should run (bash: it reads `BASH_ENV`)."""
    return shutil.which("bash") or "/bin/bash"


class OpencodeSession(SessionCli):
    """opencode's agentic run (see the module docstring)."""

    agent: ClassVar[Agent] = OPENCODE
    resumable: ClassVar[bool] = True  # `run --session <id>` (sessions stored in HOME)
    config_names: ClassVar[frozenset[str]] = frozenset(
        {"agents.md", "claude.md", "opencode.json", "opencode.jsonc"}
    )
    config_dirs: ClassVar[frozenset[str]] = frozenset({".agents", ".opencode", ".claude"})

    def call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        argv = (os.fspath(binary), "run", "-m", f"anthropic/{model}", "--format", "json", "--auto")
        return AgentCall(argv, prompt.encode("utf-8"))

    def resume_call(self, binary: Path, model: str, prompt: str, session_id: str) -> AgentCall:
        call = self.call(binary, model, prompt)
        return AgentCall((*call.argv, "--session", session_id), call.stdin)

    def upstream(self) -> str:
        return os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ENDPOINT

    def keys(self) -> dict[str, str]:
        return {"ANTHROPIC_API_KEY": self.require_key("ANTHROPIC_API_KEY")}

    def session_env(self, home: Path, api_url: str) -> dict[str, str]:
        env = self.agent.base_env(home)
        env.update(QUIET)
        env.update(
            ANTHROPIC_BASE_URL=f"{api_url}/v1",
            OPENCODE_CONFIG=str(home / CONFIG_FILE),
            SHELL=bash_shell(),
        )
        env.update(self.agent.settings())
        return env

    def configure(
        self, project: Path, home: Path, api_url: str, model: str, mcp: Mapping[str, McpCommand]
    ) -> None:
        servers = {
            name: {"type": "local", "command": [command, *args], "enabled": True}
            for name, (command, args) in mcp.items()
        }
        config = {"$schema": "https://opencode.ai/config.json", "mcp": servers}
        atomic_write_text(home / CONFIG_FILE, json.dumps(config, indent=1))

    def settings(self) -> dict[str, str]:
        return dict(sorted(self.agent.settings().items()))

    def fold(self, event: dict[str, Any], log: SessionLog) -> None:
        kind = event.get("type")
        part = field_dict(event.get("part"))
        session = event.get("sessionID") or part.get("sessionID")
        if session:
            log.session_id = str(session)
        if kind == "tool_use":
            state = field_dict(part.get("state"))
            log.tool(
                ToolCall(
                    name=str(part.get("tool") or "?"),
                    input=state.get("input"),
                    output=str(state.get("output") or state.get("error") or ""),
                    error=state.get("status") == "error",
                )
            )
        elif kind == "text" and part.get("text"):
            log.say(str(part["text"]))
        elif kind == "step_finish":
            tokens = field_dict(part.get("tokens"))
            cache = field_dict(tokens.get("cache"))
            log.usage.add(
                CallUsage(
                    input_tokens=int(tokens.get("input") or 0),
                    output_tokens=int(tokens.get("output") or 0),
                    cache_read_input_tokens=int(cache.get("read") or 0),
                    cache_creation_input_tokens=int(cache.get("write") or 0),
                )
            )
            if isinstance(part.get("cost"), int | float):
                log.reported_cost = (log.reported_cost or 0.0) + float(part["cost"])
            log.steps += 1
            log.ended = part.get("reason") not in ("tool-calls", None)
        elif kind == "error":
            error = event.get("error")
            detail = error.get("data", error) if isinstance(error, dict) else error
            log.error = json.dumps(detail, ensure_ascii=False)[:500]


OPENCODE_SESSION = OpencodeSession()
