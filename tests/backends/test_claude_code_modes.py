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
from skillbench.backends.claude_cli.session import ClaudeCodeJudge

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
