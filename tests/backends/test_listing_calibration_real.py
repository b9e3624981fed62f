"""The listing rules read from each tested real Claude Code CLI (issue 32 item 3): the
calibration reproduces the CLI's own listings on both versions, 2.1.197's table equals what
calibration reads from 2.1.197, the interactive CLI lists as `claude -p` does, and a library's
what-if and cut advice match what the CLI then lists. Loopback captures only."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from real_cli import claude_versions, real_cli_skip_reason

from skillbench.backends.anthropic.capture import capture_template
from skillbench.backends.anthropic.listing_calibration import calibrate, rules_for_cli
from skillbench.backends.anthropic.listing_rules import (
    BUDGET_ENV,
    TABLE_VERSION,
    release,
    table_rules,
)
from skillbench.backends.anthropic.replay import cli_version
from skillbench.backends.base import SkillEntry
from skillbench.library.listing import captured_states, library_listing
from skillbench.skill import load_as_claude_code
from skillbench.trigger.catalog import entry_for

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
MODEL = "claude-haiku-4-5"


@pytest.fixture(params=claude_versions())
def claude(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def test_the_rules_read_reproduce_the_cli_and_2_1_197_is_its_table(claude: Path) -> None:
    version = cli_version(claude)
    rules = calibrate(claude, version, MODEL)
    assert [c[0] for c in rules.checked] == ["A", "B", "C", "D"]  # four listings reproduced
    assert rules.budget == 8000 and rules.entry_cap == 1536 and rules.joiner == " - "
    if release(version) == TABLE_VERSION:
        table = table_rules(MODEL)
        assert [(b.name, b.width, b.fixed) for b in rules.builtins] == [
            (b.name, b.width, b.fixed) for b in table.builtins
        ]
        for field in ("shows_display_name", "bom_frontmatter", "user_replaces_other"):
            assert getattr(rules, field) == getattr(table, field), field
    else:  # the current release: read, unlike the pin's, from the same captures
        assert rules.shows_display_name and rules.bom_frontmatter
        assert rules.user_replaces_other


@pytest.mark.skipif(sys.platform == "win32", reason="the interactive CLI runs in a POSIX pty")
def test_the_interactive_cli_lists_as_print_mode_does(claude: Path) -> None:
    version = cli_version(claude)
    printed = calibrate(claude, version, MODEL)
    typed = calibrate(claude, version, MODEL, cli_mode="interactive")
    same = ("budget", "entry_cap", "builtins", "shows_display_name", "bom_frontmatter")
    assert all(getattr(printed, f) == getattr(typed, f) for f in same)


def library(root: Path, cut: int | None = None, source: list[SkillEntry] | None = None):
    """16 skills of 120-1,020 characters, a frontmatter name unlike its folder, a UTF-8 BOM,
    `when_to_use` on every fifth (with `cut`: every entry text cut to that length)."""
    root.mkdir(parents=True)
    folders = []
    for i in range(16):
        folder = root / f"area-{i:02d}"
        folder.mkdir()
        text = (f"Use for area {i} work " + "with careful checks " * 60)[: 120 + i * 61 % 900]
        name = "area-seven" if i == 7 else f"area-{i:02d}"
        lines = f"name: {name}\ndescription: {text.strip()}\n"
        if i % 5 == 0:
            lines += f"when_to_use: When the user mentions area {i}.\n"
        if cut is not None and source is not None:
            whole = source[i].description + (" - " + f"When the user mentions area {i}.")
            whole = whole if i % 5 == 0 else source[i].description
            lines = f"name: {name}\ndescription: {whole[:cut].strip()}\n"
        bom = "\ufeff" if i == 11 else ""
        (folder / "SKILL.md").write_text(f"{bom}---\n{lines}---\n\n# Area {i}\n", "utf-8")
        folders.append(folder)
    return [entry_for(load_as_claude_code(f)[0]) for f in folders]


def test_library_what_if_and_cut_match_what_the_cli_lists(claude: Path, tmp_path: Path) -> None:
    version = cli_version(claude)
    rules = rules_for_cli(claude, version, MODEL, folder=tmp_path / "rules")
    assert rules is not None
    entries = library(tmp_path / "lib")
    skills = rules.skills(entries[0], entries[1:])
    budgets = (2_000, 6_000, 9_000)
    listing = library_listing(entries, MODEL, env={}, budgets=budgets, rules=rules)

    def listed(items: list[SkillEntry], budget: str) -> dict[str, str]:
        template = capture_template(
            claude,
            items[0],
            tuple(items[1:]),
            model=MODEL,
            cli_version=version,
            settings={BUDGET_ENV: budget},
        )
        return dict(captured_states(template.body, rules.skills(items[0], items[1:]), rules))

    shown_as = {Path(str(e.folder)).name: e.name for e in entries}  # reports use skill names
    for what_if in listing.what_if:
        truth = listed(entries, str(what_if.budget_chars))
        for skill in skills:
            name = shown_as[skill.name]
            state = "name-only" if name in what_if.name_only else "full"
            state = "truncated" if name in what_if.truncated else state
            assert truth[skill.name] == state, (what_if.budget_chars, name)
    # the advised cut lists every skill in full at the CLI's own budget
    assert listing.cut_to_fit is not None and listing.cut_skills
    cut = library(tmp_path / "cut", cut=listing.cut_to_fit, source=entries)
    assert set(listed(cut, "").values()) == {"full"}
    shutil.rmtree(tmp_path / "lib", ignore_errors=True)
