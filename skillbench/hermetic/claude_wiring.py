"""What a `World` adds to a Claude Code session: `CLAUDE_ENV_FILE` (a file the CLI sources in
its own Bash shell before each command: the fakes' PATH guard runs there, in the agent's shell,
not skillbench's), the fake MCP servers (`--mcp-config` + `--strict-mcp-config`: only they load,
their tools pre-approved) and the `AskUserQuestion` hook (`--settings`).

Claude Code offers `AskUserQuestion` in print mode only when a permission prompt tool is set
(measured on 2.1.197 and 2.1.332; without one 2.1.332 answers a call "AskUserQuestion is
disabled for this session"): `--permission-prompt-tool stdio` turns it on. The hook answers
before any permission prompt; a call that would still need one (a tool not pre-approved) is
denied as before, since the session's stdin is closed ("Tool permission request failed:
AbortError: Stream closed")."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from skillbench.hermetic.mcp_fake import mcp_tool_names
from skillbench.hermetic.world import World

__all__ = ["ANSWER_HOOK", "ASK_TOOL", "PROMPT_TOOL", "claude_env", "claude_flags"]

ANSWER_HOOK = Path(__file__).with_name("answer_hook.py")
ASK_TOOL = "AskUserQuestion"
#: The permission prompt tool that makes print mode offer `AskUserQuestion`.
PROMPT_TOOL = "stdio"


def claude_env(world: World, env: dict[str, str]) -> dict[str, str]:
    """The session's environment inside the world. With fake MCP servers the CLI waits for
    them before the first model call (`MCP_CONNECTION_NONBLOCKING=0`; print mode otherwise
    sends its first request while they are still "pending", without their tools)."""
    found = {**world.session_env(env), "CLAUDE_ENV_FILE": str(world.guard_file)}
    if world.mcp_file is not None:
        found["MCP_CONNECTION_NONBLOCKING"] = "0"
    return found


def _extend_list_flag(flags: list[str], flag: str, names: Sequence[str]) -> None:
    if flag in flags and names:
        at = flags.index(flag) + 1
        flags[at] = ",".join([*(n for n in flags[at].split(",") if n), *names])


def claude_flags(world: World, flags: Sequence[str]) -> list[str]:
    """`flags` plus the world's: MCP config, hooks; the tools they need offered and allowed."""
    out = list(flags)
    environment = world.environment
    extra_tools: list[str] = []
    if world.mcp_file is not None:
        out += ["--mcp-config", str(world.mcp_file), "--strict-mcp-config"]
        _extend_list_flag(out, "--allowedTools", mcp_tool_names(environment.mcp))
    if environment.answers:
        answers = world.root / "hermetic" / "answers.json"
        answers.write_text(
            json.dumps([a.model_dump(mode="json") for a in environment.answers]), encoding="utf-8"
        )
        command = " ".join(
            shlex.quote(p)
            for p in [
                sys.executable,
                "-I",
                str(ANSWER_HOOK),
                str(answers),
                str(world.fakes.log),
                str(world.answers_log),
            ]
        )
        hook = {"matcher": ASK_TOOL, "hooks": [{"type": "command", "command": command}]}
        settings = world.root / "hermetic" / "settings.json"
        settings.write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}), encoding="utf-8")
        out += ["--settings", str(settings), "--permission-prompt-tool", PROMPT_TOOL]
        extra_tools.append(ASK_TOOL)
    _extend_list_flag(out, "--tools", extra_tools)
    _extend_list_flag(out, "--allowedTools", extra_tools)
    return out
