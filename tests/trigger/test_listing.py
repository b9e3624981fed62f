"""What the model saw: parsing Claude Code's skill listing, the budget, the warning."""

from __future__ import annotations

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.trigger.listing import (
    BUDGET_ENV,
    LISTING_MARKER,
    cli_budget,
    estimate,
    from_request,
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
    info = from_request(body_with(line), TARGET, budget=8000, env={})
    assert info.target == state and info.source == "captured-request"
    assert info.budget_chars == 8000
    assert info.budget_source == "logged by Claude Code during the capture"
    if state == "full":
        assert info.warning is None
    else:
        assert info.warning is not None and "SLASH_COMMAND_TOOL_CHAR_BUDGET" in info.warning
    if state == "name-only":
        assert "listed by name only" in (info.warning or "")


def test_budget_is_claude_codes_rule_unless_overridden() -> None:
    assert cli_budget("claude-haiku-4-5", {})[0] == 8000
    assert cli_budget("claude-sonnet-4-6", {})[0] == 8000
    # 3 bytes per token for models after opus-4-6 (the report used to say 8,000 and 30,000)
    assert cli_budget("claude-opus-4-7", {})[0] == 6000
    assert cli_budget("claude-opus-4-8", {})[0] == 6000
    assert cli_budget("claude-opus-4-8[1m]", {})[0] == 30000
    assert cli_budget("claude-sonnet-4-6[1m]", {})[0] == 40000
    assert cli_budget("claude-haiku-4-5-20251001", {})[0] == 8000
    assert cli_budget("claude-haiku-4-5", {BUDGET_ENV: "20000"}) == (20000, BUDGET_ENV)
    assert cli_budget("claude-haiku-4-5", {BUDGET_ENV: "lots"})[0] == 8000


def test_a_listing_that_fit_claims_no_budget() -> None:
    info = from_request(body_with("- pdf-tools: Use when merging PDF files."), TARGET, env={})
    assert info.target == "full" and info.budget_chars is None
    assert info.budget_source is not None and "not logged" in info.budget_source


def test_names_with_spaces_and_the_opus_4_8_block_parse() -> None:
    agents = "Available agent types for the Agent tool:\n- Plan: plans (Tools: *)\n\n"
    text = f"{agents}{LISTING_MARKER}\n\n- a b: Does a.\n- c d\n- review: R"
    assert parse_listing(text) == [("a b", "Does a."), ("c d", None), ("review", "R")]


def test_estimate_lists_long_catalogs_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    catalog = [SkillEntry(f"a-{i:02d}", "x" * 400) for i in range(20)]
    long_target = SkillEntry("zz-target", "y" * 400)
    assert estimate(long_target, catalog, "claude-haiku-4-5").target == "name-only"
    assert estimate(long_target, [], "claude-haiku-4-5").target == "full"
    monkeypatch.setenv(BUDGET_ENV, "100000")
    info = estimate(long_target, catalog, "claude-haiku-4-5")
    assert info.target == "full" and info.budget_source == BUDGET_ENV
