"""What the listing hides for a whole library: per-skill states (captured or Claude Code's rule),
the what-if at other budgets, the per-skill cut that lists every skill in full."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.library.discover import load_library
from skillbench.library.listing import (
    as_listed,
    cut_to_fit,
    library_listing,
    library_skills,
    states_at,
)
from skillbench.trigger.listing import LISTING_MARKER

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"


def _entries(n: int, width: int) -> list[SkillEntry]:
    return [SkillEntry(f"skill-{i:03d}", f"Use when task {i}. " + "x" * width) for i in range(n)]


def test_the_sample_library_hides_one_skill_at_the_default_budget() -> None:
    library = load_library(SAMPLE)
    listing = library_listing(library.entries, "claude-haiku-4-5", env={})
    states = {s.name: s.state for s in listing.skills}
    assert listing.source == "estimate" and listing.budget_chars == 8000
    assert [n for n, s in states.items() if s == "name-only"] == ["testsmith"]
    assert listing.listing_chars > 8000
    by_budget = {w.budget_chars: w for w in listing.what_if}
    assert by_budget[8000].name_only == ["testsmith"] and by_budget[16000].name_only == []
    assert by_budget[16000].full == len(library.entries)
    # the override is Claude Code's own variable
    wide = library_listing(library.entries, "claude-haiku-4-5",
                           env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "20000"})  # fmt: skip
    assert all(s.state == "full" for s in wide.skills) and wide.budget_chars == 20000


def test_the_cut_lists_every_skill_in_full_and_one_more_character_does_not() -> None:
    entries = _entries(30, 200)
    skills = library_skills(entries)
    cut = cut_to_fit(skills, 8000)
    assert cut is not None and 0 < cut < 220
    assert "name-only" in states_at(skills, 8000).values()

    def shortened(length: int) -> list[SkillEntry]:
        return [SkillEntry(e.name, e.description[:length]) for e in entries]

    assert set(states_at(library_skills(shortened(cut)), 8000).values()) == {"full"}
    assert "name-only" in states_at(library_skills(shortened(cut + 1)), 8000).values()
    listing = library_listing(entries, "claude-haiku-4-5", env={})
    assert listing.cut_to_fit == cut and len(listing.cut_skills) == 30


def test_too_many_skills_for_any_cut() -> None:
    skills = library_skills(_entries(400, 10))
    assert cut_to_fit(skills, 8000) is None


def test_states_are_read_from_the_captured_request() -> None:
    entries = [SkillEntry("alpha", "Alpha does a."), SkillEntry("beta", "Beta does b.")]
    text = f"<system-reminder>\n{LISTING_MARKER}\n\n- alpha: Alpha does a.\n- beta\n</system-reminder>\n"
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}
    template = SimpleNamespace(body=body, listing_budget=300)
    listing = library_listing(entries, "claude-haiku-4-5", env={}, captured=template)
    assert listing.source == "captured-request" and listing.budget_chars == 300
    assert {s.name: s.state for s in listing.skills} == {"alpha": "full", "beta": "name-only"}


def test_a_proxy_sees_each_skill_as_listed() -> None:
    library = load_library(SAMPLE)
    listing = library_listing(library.entries, "claude-haiku-4-5", env={})
    shown = {e.name: e.description for e in as_listed(library.entries, listing)}
    assert shown["testsmith"] == ""
    assert shown["sql-formatter"].startswith("Formats SQL queries")


def test_trigger_header_and_library_view_state_the_same_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One skill set, the local proxy (its `model` is an embedding model's name): the trigger
    report's header and the library view state the same listing budget, haiku-4-5's 8,000."""
    from skillbench.cli import main

    monkeypatch.delenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", raising=False)
    library = tmp_path / "library"
    for name in ("testsmith", "changelog-writer", "csv-profiler"):
        shutil.copytree(SAMPLE / name, library / name)
    trigger_out, library_out = tmp_path / "trigger.json", tmp_path / "library.json"
    common = ["--backend", "local", "--runs", "1", "--no-cache"]
    evals = str(library / "testsmith" / "evals" / "trigger.json")
    main(["trigger", str(library / "testsmith"), "--evals", evals, "--catalog", str(library),
          *common, "--out", str(trigger_out)])  # fmt: skip
    header = capsys.readouterr().out
    main(["library", str(library), *common, "--out", str(library_out)])
    view = capsys.readouterr().out
    stated = json.loads(trigger_out.read_text())["listing"]["budget_chars"]
    assert stated == json.loads(library_out.read_text())["listing"]["budget_chars"] == 8000
    assert "budget 8,000 characters" in header and "budget 8,000 characters" in view
