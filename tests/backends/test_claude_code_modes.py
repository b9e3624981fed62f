"""The claude-code backend's CLI modes, against the fake `claude` (tests/fake_claude/claude).

The print-mode judge's identity, hence its call-cache keys, is pinned here exactly as it was
before the backend took `cli_mode` (issue 32): an existing cache of `claude -p` runs stays
valid, and an interactive run is never served a print run's answer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillbench.backends.base import SkillEntry, TriggerRequest, cache_key
from skillbench.backends.claude_cli.interactive_session import (
    InteractiveClaudeCodeJudge,
    claude_code_judge,
)
from skillbench.backends.claude_cli.session import ClaudeCodeJudge
from skillbench.backends.describe import describe, innermost
from skillbench.backends.registry import get_judge
from skillbench.errors import InputError
from skillbench.trigger.listing import harness_line
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.stack import judge_stack

FAKE = Path(__file__).resolve().parents[1] / "fake_claude" / "claude"
KEPT = ("PATH", "HOME", "TMPDIR", "LANG", "USER")
REQUEST = TriggerRequest(
    target=SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n"),
    catalog=(SkillEntry("csv-cleaner", "Use when cleaning CSV tables.", "# CSV\n"),),
    query="merge these two PDFs",
    run_index=0,
)
PRINT_IDENTITY = {
    "backend": "claude-code",
    "model": "claude-haiku-4-5",
    "cli_version": "2.1.197-fake",
    "flags": [
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--setting-sources",
        "project",
        "--max-turns",
        "4",
        "--no-session-persistence",
        "--model",
        "claude-haiku-4-5",
    ],
    "isolate_home": True,
    "base_url": None,
    "settings": {},
}
PRINT_KEY = "fc1ab3972d0a6d961287d10687a4f99fa8333579974424e6d9ac6bd72ec8a405"


@pytest.fixture(autouse=True)
def _bare_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a few neutral variables: no setting, model pin or base URL of the caller's reaches
    the identity."""
    for name in list(os.environ):
        if name not in KEPT:
            monkeypatch.delenv(name)


def test_the_print_judges_identity_and_key_are_pinned() -> None:
    judge = ClaudeCodeJudge("claude-haiku-4-5", claude_bin=FAKE)
    assert judge.identity() == PRINT_IDENTITY
    assert cache_key(judge.identity(), REQUEST.cache_fields()) == PRINT_KEY


def test_the_backend_keeps_print_keys_and_keys_interactive_runs_apart() -> None:
    """Through the registry (what every command uses): print mode asked for is today's judge,
    key for key; the default, interactive, is keyed by its mode, flags and turn limit."""
    printed = get_judge("claude-code", model="claude-haiku-4-5", claude_bin=FAKE, cli_mode="print")
    assert type(printed) is ClaudeCodeJudge
    assert cache_key(printed.identity(), REQUEST.cache_fields()) == PRINT_KEY
    typed = get_judge("claude-code", model="claude-haiku-4-5", claude_bin=FAKE)
    assert isinstance(typed, InteractiveClaudeCodeJudge)
    assert typed.identity() == {
        **PRINT_IDENTITY,
        "flags": ["--permission-mode", "dontAsk", "--model", "claude-haiku-4-5"],
        "cli_mode": "interactive",
        "max_turns": 4,
    }
    assert cache_key(typed.identity(), REQUEST.cache_fields()) != PRINT_KEY
    fewer = get_judge("claude-code", model="claude-haiku-4-5", claude_bin=FAKE, max_turns=2)
    assert fewer.identity() != typed.identity()


def test_a_bad_mode_or_an_unisolated_home_is_refused() -> None:
    with pytest.raises(InputError, match="--cli-mode"):
        claude_code_judge(claude_bin=FAKE, cli_mode="tty")
    with pytest.raises(InputError, match="isolated HOME"):
        claude_code_judge(claude_bin=FAKE, isolate_home=False)
    assert type(claude_code_judge(claude_bin=FAKE, isolate_home=False, cli_mode="print")) is (
        ClaudeCodeJudge
    )


@pytest.mark.parametrize(
    ("mode", "phrase"), [("interactive", "interactive CLI"), ("print", "print mode, claude -p")]
)
def test_the_reports_state_the_mode(mode: str, phrase: str) -> None:
    judge = claude_code_judge(claude_bin=FAKE, cli_mode=mode)
    harness = describe(judge).harness
    assert harness is not None and harness.cli_mode == mode
    assert harness_line(harness) == f"claude-code (Claude Code's own request, {phrase})"
    if mode == "interactive":
        assert judge.versions()["cli_mode"] == "interactive"
        assert "interactive" in judge.versions()["harness"]


@pytest.mark.parametrize("mode", ["interactive", "print"])
async def test_escalation_runs_the_cli_in_the_runs_mode(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--escalate` re-runs undecided replay runs through the claude-code backend in the mode
    the replay captured, so both ask the same CLI's request."""
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    options = TriggerOptions(backend="anthropic", escalate=True, cli_mode=mode, use_cache=False)
    async with judge_stack(options, None) as stack:
        fallback = stack.cached.fallback  # type: ignore[attr-defined]
        assert innermost(fallback).identity().get("cli_mode", "print") == mode
        assert innermost(stack.cached).cli_mode == mode
