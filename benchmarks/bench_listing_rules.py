"""Do the library what-if and cut advice match what the real Claude Code CLI lists?

For each tested Claude Code CLI installed here (the pin and the current release, docs/
claude-versions.md), one 25-skill library (descriptions of 120-1,020 characters, `when_to_use`
with wide characters on every fifth, one description past the entry cap, a frontmatter name
unlike its folder, a SKILL.md with a UTF-8 BOM), model claude-haiku-4-5:

- **what-if**: the states `library_listing` predicts at 2,000 / 4,000 / 6,000 / 8,000 / 16,000 /
  30,000 characters (25 × 6 = 150 skill states) against the CLI's own listing captured with
  `SLASH_COMMAND_TOOL_CHAR_BUDGET` set to each;
- **cut**: every description cut to the advised length (the entry text, `when_to_use` folded
  in), captured again at the CLI's own budget: how many of the 25 are listed in full.

Both with the rules of the CLI in use (`rules_for_cli`: 2.1.197's table, the current release's
read by calibration) and, for comparison, with 2.1.197's table on every version (what skillbench
applied before the rules were read from the CLI). Captures are local (loopback, dummy key).
Writes benchmarks/results/listing_rules.json; exits 1 when the rules in use miss one state or
leave a skill short of full after the cut.

    .venv/bin/python benchmarks/bench_listing_rules.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from skillbench.backends.anthropic.capture import capture_template
from skillbench.backends.anthropic.listing_calibration import rules_for_cli
from skillbench.backends.anthropic.listing_rules import BUDGET_ENV, ListingRules, table_rules
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.session import REPO_CLAUDE, REPO_ROOT
from skillbench.backends.claude_cli.tested import CLAUDE_PIN, TESTED_CLAUDE_VERSIONS
from skillbench.io import write_json
from skillbench.library.listing import captured_states, library_listing, library_skills
from skillbench.skill import load_as_claude_code
from skillbench.trigger.catalog import entry_for

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "listing_rules.json"
MODEL = "claude-haiku-4-5"
BUDGETS = (2_000, 4_000, 6_000, 8_000, 16_000, 30_000)
SKILLS = 25


def checkout_claude(version: str) -> Path | None:
    """Where this checkout installs tested Claude Code `version`, when it is there."""
    if version == CLAUDE_PIN:
        path = REPO_CLAUDE
    else:
        path = REPO_ROOT / ".tools" / f"claude-{version}" / "node_modules" / ".bin" / "claude"
    return path if path.exists() else None


def write_library(root: Path, cut: int | None = None, source: list[SkillEntry] | None = None):
    """The library's folders under `root` (with `cut`: every entry text cut to that length)."""
    root.mkdir(parents=True)
    folders = []
    for i in range(SKILLS):
        folder = root / f"area-{i:02d}"
        folder.mkdir()
        size = 120 + (i * 97 + 31) % 900
        text = (f"Use for area {i} work " + "with careful checks " * 60)[:size].strip()
        name = "area-seven" if i == 7 else f"area-{i:02d}"
        lines = f"name: {name}\ndescription: {'x' * 1600 if i == 3 else text}\n"
        if i % 5 == 0:
            lines += f"when_to_use: When the user mentions area {i} or its 報告 reports.\n"
        if cut is not None and source is not None:
            skill = library_skills(source)[i]
            whole = skill.description + (f" - {skill.when_to_use}" if skill.when_to_use else "")
            lines = f"name: {name}\ndescription: {whole[:cut].strip()}\n"
        bom = "\ufeff" if i == 11 else ""
        (folder / "SKILL.md").write_text(f"{bom}---\n{lines}---\n\n# Area {i}\n", "utf-8")
        folders.append(folder)
    return [entry_for(load_as_claude_code(f)[0]) for f in folders]


def captured(claude: Path, version: str, entries: list[SkillEntry], budget: str) -> Any:
    template = capture_template(
        claude,
        entries[0],
        tuple(entries[1:]),
        model=MODEL,
        cli_version=version,
        settings={BUDGET_ENV: budget},
    )
    return template


def measure(claude: Path, version: str, rules: ListingRules, tmp: Path) -> dict[str, Any]:
    entries = write_library(tmp / f"lib-{rules.source}")
    skills = library_skills(entries, rules)
    listing = library_listing(entries, MODEL, env={}, budgets=BUDGETS, rules=rules)
    shown_as = {Path(str(e.folder)).name: e.name for e in entries}
    matched = 0
    wrong: list[str] = []
    for whatif in listing.what_if:
        if whatif.budget_chars not in BUDGETS:
            continue
        truth = captured_states(
            captured(claude, version, entries, str(whatif.budget_chars)).body, skills, rules
        )
        for skill in skills:
            name = shown_as[skill.name]  # the what-if names skills as the report does
            state = (
                "name-only"
                if name in whatif.name_only
                else "truncated"
                if name in whatif.truncated
                else "full"
            )
            if truth[skill.name] == state:
                matched += 1
            else:
                wrong.append(f"{skill.name}@{whatif.budget_chars}: {state} vs {truth[skill.name]}")
    cut = listing.cut_to_fit
    full_after_cut = None
    if cut is not None:
        cut_entries = write_library(tmp / f"cut-{rules.source}", cut=cut, source=entries)
        after = captured(claude, version, cut_entries, "")
        states = captured_states(after.body, library_skills(cut_entries, rules), rules)
        full_after_cut = sum(1 for s in states.values() if s == "full")
    return {
        "rules": rules.label(),
        "what_if_matched": matched,
        "what_if_states": SKILLS * len(BUDGETS),
        "wrong": wrong[:20],
        "cut_to": cut,
        "budget": listing.budget_chars,
        "full_after_cut": full_after_cut,
    }


def main() -> int:
    results: dict[str, Any] = {}
    missed = False
    for version in TESTED_CLAUDE_VERSIONS:
        claude = checkout_claude(version)
        if claude is None:
            print(f"Claude Code {version}: not installed, skipped")
            continue
        tmp = Path(tempfile.mkdtemp(prefix="skillbench-bench-listing-"))
        try:
            in_use = rules_for_cli(claude, version, MODEL, folder=tmp / "rules")
            assert in_use is not None
            runs = {"in_use": measure(claude, version, in_use, tmp)}
            if in_use.source != "table":
                runs["table_2_1_197"] = measure(claude, version, table_rules(MODEL), tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        results[version] = runs
        for label, run in runs.items():
            print(
                f"Claude Code {version}, {label}: what-if {run['what_if_matched']}/"
                f"{run['what_if_states']} states; cut to {run['cut_to']} → "
                f"{run['full_after_cut']}/{SKILLS} in full at {run['budget']:,}"
            )
        best = runs["in_use"]
        missed |= best["what_if_matched"] != best["what_if_states"]
        missed |= best["full_after_cut"] not in (None, SKILLS)
    write_json(RESULTS, {"model": MODEL, "budgets": list(BUDGETS), "versions": results})
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
