"""Issue 27 item 13: the default per-call bounds in the code, the --help text and the docs agree.

A routing call (trigger judge: anthropic either harness, claude-code) is bounded at
`ROUTING_CALL_TIMEOUT`; a text-generation call at `TEXT_CALL_TIMEOUT`; an agentic claude-code
behavior session at `AGENT_SESSION_TIMEOUT`.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from skillbench.backends.anthropic.replay import ReplayJudge
from skillbench.backends.anthropic.sdk import AnthropicJudge, AnthropicTextModel
from skillbench.backends.claude_cli.session import ClaudeCodeJudge, ClaudeCodeTextModel
from skillbench.behavior.executors import ClaudeCodeExecutor
from skillbench.cli import build_parser
from skillbench.limits import AGENT_SESSION_TIMEOUT, ROUTING_CALL_TIMEOUT, TEXT_CALL_TIMEOUT

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _option_help(command: str, option: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    command_parser = sub.choices[command]  # type: ignore[index]
    action = next(a for a in command_parser._actions if option in a.option_strings)
    return str(action.help)


def _table_row(doc: str, section: str, option: str) -> str:
    text = (DOCS / doc).read_text(encoding="utf-8")
    start = text.index(section)
    return next(line for line in text[start:].splitlines() if line.startswith(f"| `{option}"))


def test_every_routing_judge_defaults_to_the_routing_bound() -> None:
    replay_default = inspect.signature(ReplayJudge.__init__).parameters["timeout"].default
    assert replay_default == ReplayJudge.default_timeout == ROUTING_CALL_TIMEOUT
    assert AnthropicJudge.default_timeout == ROUTING_CALL_TIMEOUT
    assert ClaudeCodeJudge.default_timeout == ROUTING_CALL_TIMEOUT
    assert AnthropicTextModel.default_timeout == TEXT_CALL_TIMEOUT
    assert ClaudeCodeTextModel.default_timeout == TEXT_CALL_TIMEOUT
    assert ClaudeCodeExecutor.default_timeout == AGENT_SESSION_TIMEOUT
    # a claude-code session may take minutes; one API call should not
    assert ROUTING_CALL_TIMEOUT < TEXT_CALL_TIMEOUT < AGENT_SESSION_TIMEOUT


def test_trigger_help_and_docs_state_the_routing_bound() -> None:
    seconds = f"{ROUTING_CALL_TIMEOUT:.0f} s"
    assert seconds in _option_help("trigger", "--timeout")
    row = _table_row("cli.md", "## trigger", "--timeout")
    assert seconds in row and "ROUTING_CALL_TIMEOUT" in row


def test_run_help_and_docs_state_the_session_and_call_bounds() -> None:
    help_text = _option_help("run", "--timeout")
    row = _table_row("cli.md", "## run", "--timeout")
    for value in (AGENT_SESSION_TIMEOUT, TEXT_CALL_TIMEOUT):
        assert f"{value:.0f} s" in help_text
        assert f"{value:.0f} s" in row
