"""Claude Code's listing rules as parameters read from the CLI (issue 32 item 3), offline: the
calibration read back from a simulated CLI whose rules are known, the check that refuses rules
that do not reproduce a listing, the `folder (name)` lines of 2.1.332, the BOM reading, and the
predictions (estimate, library what-if and cut) following the rules they are given."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skillbench.backends.anthropic import listing_calibration
from skillbench.backends.anthropic.listing_calibration import (
    calibrate,
    rules_dir,
    rules_for_cli,
    rules_for_judge,
    rules_key,
)
from skillbench.backends.anthropic.listing_rules import (
    BUDGET_ENV,
    LISTING_MARKER,
    UNLIMITED,
    BuiltinLine,
    ListingRules,
    env_budget,
    parse_listing,
    table_rules,
)
from skillbench.backends.base import SkillEntry
from skillbench.backends.skill_install import CliSkill
from skillbench.errors import BackendError
from skillbench.library.listing import library_listing, listing_warnings
from skillbench.trigger.listing import estimate, from_request


def skill(name: str, description: str = "Does things.", display: str | None = None) -> CliSkill:
    return CliSkill(name, display, description, None, False)


def newer_rules(**changes: Any) -> ListingRules:
    """A CLI unlike 2.1.197 in every parameter the calibration reads."""
    lines = [
        ("dataviz", "Charts and plots. " * 20, True),
        ("loop", "Run a prompt on an interval.", True),
        ("init", "Initialize a new CLAUDE.md file", False),
        ("security-review", "Review the pending changes", False),
    ]
    fields: dict[str, Any] = {
        "cli_version": "2.1.400",
        "model": "claude-haiku-4-5",
        "source": "calibrated",
        "budget": 5000,
        "budget_note": "logged",
        "entry_cap": 1000,
        "shows_display_name": True,
        "bom_frontmatter": True,
        "escapes_angle_brackets": True,
        "builtins": [
            BuiltinLine(name=n, width=len(f"- {n}: {t}"), fixed=f, line=f"- {n}: {t}")
            for n, t, f in lines
        ],
        "user_replaces_fixed": True,
        "user_replaces_other": True,
    }
    fields.update(changes)
    return ListingRules(**fields)


def body_of(listing: str) -> dict[str, Any]:
    text = f"<system-reminder>\n{LISTING_MARKER}\n\n{listing}\n</system-reminder>\n"
    return {"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}


class SimulatedCli:
    """Stands in for `capture_template`: lists the skills as `rules` say (logging the budget
    when over it), so calibration must read `rules` back; `shed` replaces the shed order."""

    def __init__(self, rules: ListingRules, shed: Any = None) -> None:
        self.rules, self.shed, self.captures = rules, shed, 0

    def __call__(self, claude_bin: Path, target: SkillEntry, catalog: Any, **kw: Any) -> Any:
        self.captures += 1
        skills = self.rules.skills(target, catalog)
        raw = kw["settings"].get(BUDGET_ENV, "")
        budget = int(raw) if raw else self.rules.budget or UNLIMITED
        over = not all(self.rules.shown(skills, budget))
        listing = self.rules.render(skills, budget)
        if self.shed is not None:
            listing = self.shed(self.rules, skills, budget)
        return SimpleNamespace(
            body=body_of(listing), listing_budget=budget if over else None, listing_chars=None
        )


def shortest_first(rules: ListingRules, skills: list[CliSkill], budget: int) -> str:
    """A CLI that keeps the shortest descriptions first (not the listing order)."""
    user = rules.user_lines(skills)
    entries = [*user, *rules.builtin_lines(skills)]
    room = budget - sum(e.width if e.bundled else len(e.name) + 2 for e in entries)
    room -= len(entries) - 1
    keep = {i for i, e in enumerate(entries) if e.bundled}
    for i in sorted(range(len(entries)), key=lambda i: entries[i].width):
        extra = entries[i].width - len(entries[i].name) - 2
        if i not in keep and extra <= room:
            keep.add(i)
            room -= extra
    return "\n".join(e.line if i in keep else f"- {e.name}" for i, e in enumerate(entries))


def test_calibration_reads_back_every_parameter_of_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    truth = newer_rules()
    cli = SimulatedCli(truth)
    monkeypatch.setattr(listing_calibration, "capture_template", cli)
    read = calibrate(Path("/nowhere/claude"), "2.1.400", "claude-haiku-4-5")
    assert cli.captures == 4
    for field in (
        "budget",
        "entry_cap",
        "joiner",
        "shows_display_name",
        "bom_frontmatter",
        "escapes_angle_brackets",
        "user_replaces_fixed",
        "user_replaces_other",
    ):
        assert getattr(read, field) == getattr(truth, field), field
    assert read.builtins == truth.builtins
    assert [c[0] for c in read.checked] == ["A", "B", "C", "D"]
    # and a CLI like 2.1.197 is read as 2.1.197's table
    old = newer_rules(
        shows_display_name=False,
        bom_frontmatter=False,
        user_replaces_other=False,
        escapes_angle_brackets=False,
        entry_cap=1536,
        budget=8000,
    )
    monkeypatch.setattr(listing_calibration, "capture_template", SimulatedCli(old))
    read = calibrate(Path("/nowhere/claude"), "2.1.197", "claude-haiku-4-5")
    assert (read.shows_display_name, read.bom_frontmatter, read.entry_cap, read.budget) == (
        False,
        False,
        1536,
        8000,
    )


def test_rules_that_do_not_reproduce_the_cli_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    cli = SimulatedCli(newer_rules(), shed=shortest_first)
    monkeypatch.setattr(listing_calibration, "capture_template", cli)
    with pytest.raises(BackendError, match="does not reproduce its own listing"):
        calibrate(Path("/nowhere/claude"), "2.1.400", "claude-haiku-4-5")


def test_rules_are_kept_beside_the_templates_and_2_1_197_is_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = SimulatedCli(newer_rules())
    monkeypatch.setattr(listing_calibration, "capture_template", cli)
    claude = tmp_path / "claude"
    assert rules_for_cli(claude, "2.1.400", "claude-haiku-4-5", folder=tmp_path, read=False) is None
    first = rules_for_cli(claude, "2.1.400", "claude-haiku-4-5", folder=tmp_path)
    again = rules_for_cli(claude, "2.1.400", "claude-haiku-4-5", folder=tmp_path)
    assert first == again and cli.captures == 4  # read once, then from the stored file
    key = rules_key("2.1.400", "claude-haiku-4-5", "print", {})
    assert (rules_dir(tmp_path) / f"{key}.json").is_file()
    assert key == rules_key("2.1.400", "claude-haiku-4-5", "print", {BUDGET_ENV: "99"})
    # 2.1.197 (any build of it) is answered by its table: no capture
    assert rules_for_cli(claude, "2.1.197-fake", "claude-haiku-4-5") == table_rules(
        "claude-haiku-4-5"
    )
    assert cli.captures == 4


def test_a_judge_without_a_cli_gets_the_table_and_says_so() -> None:
    class Proxy:
        name, model, is_proxy = "local", "embed", True

    rules = rules_for_judge(Proxy(), "claude-haiku-4-5")
    assert rules.source == "table" and "no Claude Code CLI in use" in rules.label()


def test_a_folder_name_and_a_valid_frontmatter_name_are_both_shown() -> None:
    rules = newer_rules()
    skills = [
        skill("a-notes", display="Zeta Notes"),  # not a valid name: the folder alone
        skill("pdf.tools", display="pdf"),
        skill("pdf2", display="pdf"),  # the second of a name: the folder alone
        skill("loop-tools", display="loop"),  # named like one of the CLI's lines
        skill("x-tools", display="a-notes"),  # named like another folder
        skill("plain", display="plain"),
    ]
    assert rules.listed_names(skills) == [
        "a-notes",
        "pdf.tools (pdf)",
        "pdf2",
        "loop-tools",
        "x-tools",
        "plain",
    ]
    assert table_rules("claude-haiku-4-5").listed_names(skills)[1] == "pdf.tools"
    text = f"{LISTING_MARKER}\n\n- pdf.tools (pdf): Merge.\n- a (b) (c)\n"
    assert parse_listing(text, {"pdf.tools", "a (b)"}) == [("pdf.tools", "Merge."), ("a (b)", None)]
    assert parse_listing(text)[0][0] == "pdf.tools (pdf)"


def test_the_captured_target_is_found_under_its_shown_name() -> None:
    body = body_of("- video-downloader (youtube): Download videos.")
    target = SkillEntry("youtube", "Download videos.", folder="/x/video-downloader")
    elsewhere = SkillEntry("youtube", "Download videos.")
    info = from_request(body, target, env={}, rules=newer_rules())
    assert info.target == "full"
    assert info.shown == "- video-downloader (youtube): Download videos."
    assert from_request(body, elsewhere, env={}).target == "absent"  # another folder: not listed


def test_a_bom_keeps_its_frontmatter_where_the_cli_reads_it(tmp_path: Path) -> None:
    folder = tmp_path / "bom-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(
        "\ufeff---\nname: bom-skill\ndescription: Read through a BOM.\n---\n# B\n".encode()
    )
    entry = SkillEntry("bom-skill", "Read through a BOM.", folder=str(folder))
    assert newer_rules().skills(entry, ())[0].description == "Read through a BOM."
    assert table_rules("claude-haiku-4-5").skills(entry, ())[0].description == "---"


def test_angle_brackets_are_escaped_before_the_cap_where_the_cli_escapes_them() -> None:
    text = "Use <Summary> tags. " + "y" * 1500
    angled = CliSkill("angled", None, text, "When <here>.", False)
    newer, old = newer_rules(entry_cap=1536), table_rules("claude-haiku-4-5")
    assert newer.text(angled).startswith("Use &lt;Summary&gt; tags.") and newer.is_cut(angled)
    assert newer.text(angled).endswith("…") and len(newer.text(angled)) == 1536
    assert old.text(angled) == f"{text} - When <here>." and not old.is_cut(angled)  # 1,535
    short = CliSkill("short", None, "A <b> c", None, False)
    assert newer.text(short) == "A &lt;b&gt; c" and not newer.is_cut(short)


def test_the_estimate_follows_the_rules_it_is_given() -> None:
    target = SkillEntry("target", "T" * 600)
    catalog = [SkillEntry(f"other-{i}", "O" * 600) for i in range(3)]
    assert estimate(target, catalog, "claude-haiku-4-5").target == "full"  # 2.1.197: 8,000
    newer = estimate(target, catalog, "claude-haiku-4-5", {}, newer_rules(budget=2000))
    assert newer.target == "name-only" and newer.budget_chars == 2000
    assert newer.rules is not None and newer.rules.startswith("Claude Code 2.1.400")
    unknown = estimate(target, catalog, "claude-haiku-4-5", {}, newer_rules(budget=None))
    assert unknown.target == "full" and unknown.budget_chars is None
    assert env_budget({BUDGET_ENV: "1200"}) == 1200 and env_budget({BUDGET_ENV: ""}) is None


def test_the_library_what_if_and_cut_follow_the_cli_rules_and_are_checked() -> None:
    entries = [SkillEntry(f"skill-{i:02d}", f"Use for task {i}. " + "x" * 400) for i in range(12)]
    new_rules = newer_rules()
    old = library_listing(entries, "claude-haiku-4-5", env={})
    new = library_listing(entries, "claude-haiku-4-5", env={}, rules=new_rules)
    assert old.budget_chars == 8000 and new.budget_chars == 5000
    assert old.cut_to_fit is not None and new.cut_to_fit is not None
    assert new.cut_to_fit != old.cut_to_fit  # other lines of the CLI's own, another budget
    skills = new_rules.skills(entries[0], entries[1:])
    for cut, rules in ((new.cut_to_fit, new_rules), (old.cut_to_fit, None)):
        short = [SkillEntry(e.name, e.description[:cut]) for e in entries]
        at = library_listing(short, "claude-haiku-4-5", env={}, rules=rules)
        assert {s.state for s in at.skills} == {"full"}, cut
        longer = [SkillEntry(e.name, e.description[: cut + 1]) for e in entries]
        at = library_listing(longer, "claude-haiku-4-5", env={}, rules=rules)
        assert "name-only" in {s.state for s in at.skills}, cut
    assert len(skills) == 12
    assert new.rules is not None and "2.1.400" in new.rules and new.entry_cap == 1000
    # the CLI's own listing of the library says otherwise for one skill: the report says so
    states = {s.name: s.state for s in new.skills}
    lines = [f"- {n}" if states[n] == "name-only" else f"- {n}: {e.description}" for n, e in (
        (e.name, e) for e in entries
    )]  # fmt: skip
    lines[0] = "- skill-00"  # the rules say full
    captured = SimpleNamespace(body=body_of("\n".join(lines)), listing_budget=5000, settings={})
    checked = library_listing(
        entries, "claude-haiku-4-5", env={}, captured=captured, rules=newer_rules()
    )
    assert checked.rule_mismatch == ["skill-00"]
    assert checked.rule_check is not None and "predicts 11 of 12" in checked.rule_check
    assert any("what-if and cut advice may be wrong" in w for w in listing_warnings(checked))
