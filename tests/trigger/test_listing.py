"""What the model saw: parsing Claude Code's skill listing, the budget, the warning."""

from __future__ import annotations

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.trigger.listing import (
    BUDGET_ENV,
    LISTING_MARKER,
    estimate,
    from_request,
    listing_budget,
    parse_listing,
)

TARGET = SkillEntry("pdf-tools", "Use when merging PDF files.")


def body_with(listing: str) -> dict[str, object]:
    reminder = f"<system-reminder>\n{LISTING_MARKER}\n\n{listing}\n</system-reminder>\n"
    return {
        "system": [{"type": "text", "text": "harness"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": reminder}]}],
    }


def test_parse_listing_full_bare_and_multiline_entries() -> None:
    text = (
        f"{LISTING_MARKER}\n\n- a-skill: Does a.\n- b-skill\n- c-skill: First line.\nSecond line.\n"
    )
    assert parse_listing(text) == [
        ("a-skill", "Does a."),
        ("b-skill", None),
        ("c-skill", "First line.\nSecond line."),
    ]


@pytest.mark.parametrize(
    ("line", "state"),
    [
        ("- pdf-tools: Use when merging PDF files.", "full"),
        ("- pdf-tools: Use when merging PDF files. - when_to_use text", "full"),
        ("- pdf-tools: Use when merg…", "truncated"),
        ("- pdf-tools", "name-only"),
        ("- other: x", "absent"),
    ],
)
def test_from_request_classifies_the_target(line: str, state: str) -> None:
    info = from_request(body_with(line), TARGET, "claude-haiku-4-5")
    assert info.target == state and info.source == "captured-request"
    assert info.budget_chars == 8000
    if state == "full":
        assert info.warning is None
    else:
        assert info.warning is not None and "SLASH_COMMAND_TOOL_CHAR_BUDGET" in info.warning
    if state == "name-only":
        assert "listed by name only" in (info.warning or "")


def test_budget_is_one_percent_of_the_context_window_unless_overridden() -> None:
    assert listing_budget("claude-haiku-4-5", {}) == (8000, "1% of 200,000-token context window")
    assert listing_budget("claude-sonnet-4-6", {})[0] == 8000
    assert listing_budget("claude-opus-4-8[1m]", {})[0] == 30000
    assert listing_budget("claude-haiku-4-5", {BUDGET_ENV: "20000"}) == (20000, BUDGET_ENV)
    assert listing_budget("claude-haiku-4-5", {BUDGET_ENV: "lots"})[0] == 8000


def test_estimate_lists_long_catalogs_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    catalog = [SkillEntry(f"a-{i:02d}", "x" * 400) for i in range(20)]
    long_target = SkillEntry("zz-target", "y" * 400)
    assert estimate(long_target, catalog, "claude-haiku-4-5").target == "name-only"
    assert estimate(long_target, [], "claude-haiku-4-5").target == "full"
    monkeypatch.setenv(BUDGET_ENV, "100000")
    info = estimate(long_target, catalog, "claude-haiku-4-5")
    assert info.target == "full" and info.budget_source == BUDGET_ENV
