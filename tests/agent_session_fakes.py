"""Scripted model APIs that drive the REAL Codex CLI, Gemini CLI and opencode through a
behavior session, one tool call per turn (a shell command, or a call of the fake MCP server's
`linear.create_issue`), then a closing text. Each fake records the tool results it was sent
(what the agent's own shell printed) and the key each request carried.

    with scripted_agent("codex", steps) as agent:
        env = agent.caller_env()   # the caller's base URL and key for that agent
        ...
        agent.results              # the tool results, in order
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from agent_fake_api import FakeAgentAPI, Reply
from messages_fake import MessagesFake
from mock_agentic_sse import last_tool_result, tool_results
from mock_anthropic_sse import text_stream, tool_use_stream

from skillbench.backends.codex.agent import CODEX
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.replay.agent import Agent
from skillbench.errors import BackendError
from skillbench.hermetic.netns import namespace_problem

FINAL_TEXT = "All done: the pull request is open."
REAL_KEYS = {
    "opencode": ("ANTHROPIC_API_KEY", "sk-ant-api03-agentsession-real-0123456789"),
    "gemini": ("GEMINI_API_KEY", "AIzaSyAgentSessionRealKey0123456789abcdefg"),
    "codex": ("OPENAI_API_KEY", "sk-proj-agentsessionrealkey0123456789abcdefABCDEF"),
}
"""The caller's key variable and a key-shaped value per agent (the forwarder's real key)."""
AGENTS: dict[str, Agent] = {"codex": CODEX, "gemini": GEMINI, "opencode": OPENCODE}


def agent_missing(name: str) -> str | None:
    """Why a hermetic session of agent `name` cannot run here: its CLI is not installed, or
    no network namespace can be made (None: it can)."""
    try:
        AGENTS[name].locate()
    except BackendError as exc:
        return str(exc)
    return namespace_problem()


def agent_param(name: str, *marks: pytest.MarkDecorator) -> Any:
    """A pytest param (id: `name`) with `marks`, skipped with the reason `agent_missing` gives."""
    reason = agent_missing(name)
    skip = [pytest.mark.skip(reason=reason)] if reason else []
    return pytest.param(name, id=name, marks=[*marks, *skip])


@dataclass(frozen=True)
class Step:
    """One turn: a shell command (`shell`), or the fake MCP tool called with `args`."""

    shell: str = ""
    args: dict[str, Any] | None = None


@dataclass
class ScriptedAgent:
    """A running fake: its URL, the tool results and keys it saw."""

    name: str
    url: str
    results: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)

    def caller_env(self) -> dict[str, str]:
        """The caller's environment for this agent: its provider's base URL and key."""
        variable, key = REAL_KEYS[self.name]
        base = {
            "opencode": ("ANTHROPIC_BASE_URL", self.url),
            "gemini": ("GOOGLE_GEMINI_BASE_URL", self.url),
            "codex": ("OPENAI_BASE_URL", self.url + "/v1"),
        }[self.name]
        return {variable: key, base[0]: base[1]}

    def seen(self, turn: int, result: str) -> None:
        """Keep the result of tool turn `turn` (a retried request is not kept twice)."""
        if turn > len(self.results):
            self.results.append(result)


def _opencode(steps: list[Step], agent: ScriptedAgent) -> Any:
    def script(body: dict[str, Any]) -> bytes:
        model = str(body.get("model"))
        tools = [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]
        turn = tool_results(body)
        if "bash" not in tools:  # the title request
            return text_stream(model, "Title")
        if turn:
            agent.seen(turn, last_tool_result(body))
        if turn >= len(steps):
            return text_stream(model, FINAL_TEXT)
        step = steps[turn]
        if step.args is not None:
            return tool_use_stream(model, "linear_create_issue", step.args)
        return tool_use_stream(model, "bash", {"command": step.shell, "description": "step"})

    return script


def _gemini(steps: list[Step], agent: ScriptedAgent) -> Any:
    def answer(kind: str, body: dict[str, Any]) -> Reply:
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        responses = [
            p["functionResponse"]
            for c in contents
            for p in c.get("parts") or []
            if isinstance(p, dict) and "functionResponse" in p
        ]
        declared = [
            d.get("name")
            for t in body.get("tools") or []
            for d in t.get("functionDeclarations") or []
        ]
        if "run_shell_command" not in declared:
            return Reply("text", text="ok", thought=False)
        turn = len(responses)
        if turn:
            agent.seen(turn, json.dumps(responses[-1].get("response")))
        if turn >= len(steps):
            return Reply("text", text=FINAL_TEXT, thought=False)
        step = steps[turn]
        if step.args is not None:
            return Reply("call", "mcp_linear_create_issue", step.args, thought=False)
        command = {"command": step.shell, "description": "step"}
        return Reply("call", "run_shell_command", command, thought=False)

    return answer


def _codex(steps: list[Step], agent: ScriptedAgent) -> Any:
    def answer(kind: str, body: dict[str, Any]) -> Reply:
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        outputs = [i for i in items if i.get("type") == "custom_tool_call_output"]
        turn = len(outputs)
        if turn:
            parts = outputs[-1].get("output") or []
            agent.seen(turn, " ".join(str(p.get("text")) for p in parts if isinstance(p, dict)))
        if turn >= len(steps):
            return Reply("text", text=FINAL_TEXT, thought=False)
        step = steps[turn]
        if step.args is not None:
            code = f"const r = await tools.mcp__linear__create_issue({json.dumps(step.args)});"
        else:
            code = f"const r = await tools.exec_command({{cmd: {json.dumps(step.shell)}}});"
        return Reply("call", "exec", code + " text(JSON.stringify(r));", custom=True, thought=False)

    return answer


@contextlib.contextmanager
def scripted_agent(name: str, steps: list[Step]) -> Iterator[ScriptedAgent]:
    """The scripted fake of agent `name` (`opencode`, `gemini`, `codex`), serving on loopback."""
    if name == "opencode":
        agent = ScriptedAgent(name, "")
        with MessagesFake(_opencode(steps, agent)) as fake:
            agent.url = fake.base_url
            agent.keys = fake.keys
            yield agent
        return
    holder = ScriptedAgent(name, "")
    answer = _gemini(steps, holder) if name == "gemini" else _codex(steps, holder)
    with FakeAgentAPI(answer=answer) as server:
        holder.url = server.url
        holder.keys = server.keys
        yield holder
