"""What a `World` adds to another agent's session (Codex CLI, Gemini CLI, opencode): the
fakes first on PATH and `BASH_ENV` (bash reads the file named there before every
non-interactive command, a login shell's `bash -lc` included, after `/etc/profile`: the fakes'
guard runs in the agent's own shell before each of its commands, as Claude Code's
`CLAUDE_ENV_FILE` does), and the fake MCP servers as (command, arguments) for the agent's own
MCP configuration. Their non-interactive runs cannot ask (docs/hermetic.md); a turn that ends
with a question is answered by resuming the session where its CLI can be resumed (Codex, Gemini
CLI, opencode), and elsewhere (a plugin's session CLI) `unsupported` names `answers` and such a
case is refused (exit 2)."""

from __future__ import annotations

import json

from skillbench.hermetic.environment import Environment
from skillbench.hermetic.world import World

__all__ = ["agent_env", "mcp_commands", "unsupported"]


def agent_env(world: World, env: dict[str, str]) -> dict[str, str]:
    """The session's environment inside the world (PATH, git, `BASH_ENV` guard)."""
    return {**world.session_env(env), "BASH_ENV": str(world.guard_file)}


def mcp_commands(world: World) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each fake MCP server as (command, arguments), from the world's MCP document."""
    if world.mcp_file is None:
        return {}
    servers = json.loads(world.mcp_file.read_text(encoding="utf-8"))["mcpServers"]
    return {name: (s["command"], tuple(s["args"])) for name, s in servers.items()}


def unsupported(environment: Environment, *, mcp: bool, answers: bool = False) -> str | None:
    """The first field of the block an agent session cannot honour: `answers` when it cannot
    be resumed (`answers` False), `mcp` without MCP configuration (`mcp` False); None when it
    honours them all."""
    if environment.answers and not answers:
        return "answers"
    if environment.mcp and not mcp:
        return "mcp"
    return None
