"""Skill libraries as people lay them out: linked SKILL.md files, hidden skill folders, plugins,
README files, empty frontmatter, profiles; and the summary printed for them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.schemas.validation import Finding, ValidationReport
from skillbench.skill import find_skills, skill_aliases
from skillbench.validate.output import (
    Labelled,
    detail_lines,
    finding_line,
    github_annotations,
    label_reports,
    summary_lines,
    totals_line,
)
from skillbench.validate.rules import validate_library, validate_skill

D = GOOD_DESCRIPTION


def skill_md(name: str, description: str = D, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n"


def link_library(root: Path) -> Path:
    """A library whose `.gemini/skills/<name>/SKILL.md` files link to `commands/<name>.md`."""
    commands = root / "commands"
    commands.mkdir(parents=True)
    for name in ("changelog", "release-notes"):
        (commands / f"{name}.md").write_text(skill_md(name))
        folder = root / ".gemini" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").symlink_to(f"../../../commands/{name}.md")
    return root


def test_a_skill_md_linked_within_the_library_is_read_with_a_warning(tmp_path: Path) -> None:
    """Issue 32 item 7: the `.gemini/skills/x/SKILL.md -> ../../../commands/x.md` layout (88
    skills of a public library; Gemini CLI and Claude Code load them) is read and validated,
    with a warning; as a single skill too, inside its git repository."""
    root = link_library(tmp_path / "lib")
    (root / ".git").mkdir()
    reports = validate_library(root)
    assert [relabel.label for relabel in label_reports(reports, root)] == [
        ".gemini/skills/changelog",
        ".gemini/skills/release-notes",
    ]
    for report in reports:
        assert report.valid, report
        assert [f.code for f in report.warnings] == ["SKILL_MD_LINKED"]
        assert "../../../commands/" in report.warnings[0].message
    single = validate_skill(root / ".gemini" / "skills" / "changelog")
    assert single.valid and [f.code for f in single.warnings] == ["SKILL_MD_LINKED"]


def test_links_inside_the_root_are_read_and_a_link_leaving_it_is_refused(tmp_path: Path) -> None:
    """A linked skill folder (`.gemini/skills/x -> ../../skills/x`) and a SKILL.md shared inside
    the library (`SKILL.md -> ../../shared/release-notes.md`) are read; a SKILL.md leading out of the
    library (no git repository around it) stays an error, never read."""
    root = tmp_path / "lib"
    make_skill(root / "skills", "changelog", body="# changelog\n")
    (root / ".gemini" / "skills").mkdir(parents=True)
    (root / ".gemini" / "skills" / "changelog").symlink_to("../../skills/changelog")
    (root / "shared").mkdir()
    (root / "shared" / "release-notes.md").write_text(skill_md("release-notes"))
    (root / "skills" / "release-notes").mkdir()
    (root / "skills" / "release-notes" / "SKILL.md").symlink_to("../../shared/release-notes.md")
    outside = tmp_path / "elsewhere.md"
    outside.write_text(skill_md("leaky", description=f"{D} OUTSIDE-SECRET"))
    (root / "skills" / "leaky").mkdir()
    (root / "skills" / "leaky" / "SKILL.md").symlink_to(outside)
    by_label = {item.label: item.report for item in label_reports(validate_library(root), root)}
    assert set(by_label) == {"skills/changelog", "skills/leaky", "skills/release-notes"}
    changelog = by_label["skills/changelog"]
    assert changelog.valid and not changelog.warnings
    shared = by_label["skills/release-notes"]
    assert shared.valid and [f.code for f in shared.warnings] == ["SKILL_MD_LINKED"]
    leaky = by_label["skills/leaky"]
    assert [f.code for f in leaky.errors] == ["SKILL_MD_LINK_OUTSIDE"]
    assert str(root) in leaky.errors[0].message
    assert "OUTSIDE-SECRET" not in json.dumps(leaky.to_json_dict())
    linked = validate_skill(root / ".gemini" / "skills" / "changelog", root=root)
    assert linked.valid and not linked.warnings
    # without the library root (and no git repository) the root is the skill's parent folder
    alone = validate_skill(root / "skills" / "release-notes")
    assert [f.code for f in alone.errors] == ["SKILL_MD_LINK_OUTSIDE"]


def test_dangling_link_is_one_finding_naming_link_and_target(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "gone").mkdir(parents=True)
    (root / "gone" / "SKILL.md").symlink_to("../commands/gone.md")
    (report,) = validate_library(root)
    assert [(f.code, f.message) for f in report.errors + report.warnings] == [
        (
            "SKILL_MD_MISSING",
            "SKILL.md is a symlink to '../commands/gone.md', which does not exist",
        )
    ]


def test_empty_frontmatter_is_an_empty_mapping(tmp_path: Path) -> None:
    report = validate_skill(make_skill(tmp_path, frontmatter=""))
    assert report.valid
    assert [(f.code, f.message) for f in report.warnings] == [
        ("MISSING_RECOMMENDED_KEY", "missing recommended key: name"),
        ("MISSING_RECOMMENDED_KEY", "missing recommended key: description"),
    ]
    strict = validate_skill(make_skill(tmp_path, "b", frontmatter=""), profile="agentskills")
    assert [f.code for f in strict.errors] == ["DESCRIPTION_EMPTY"]
    assert "requires" in strict.errors[0].message


def test_readme_present_once_naming_every_file(tmp_path: Path) -> None:
    files = {f"docs/part{i}/README.md": "x" for i in range(12)} | {"README.md": "x"}
    report = validate_skill(make_skill(tmp_path, files=files))
    readme = [f for f in report.warnings if f.code == "README_PRESENT"]
    assert len(readme) == 1
    assert readme[0].message.startswith(
        "README files in the skill folder: 'README.md', 'docs/part0/README.md', "
    )
    assert "and 8 more" in readme[0].message
    one = validate_skill(make_skill(tmp_path, "b", files={"README.md": "x"}))
    assert [f.message for f in one.warnings if f.code == "README_PRESENT"] == [
        "README file in the skill folder: 'README.md' (skill folders should not hold one)"
    ]


def test_when_to_use_is_a_claude_code_key(tmp_path: Path) -> None:
    path = make_skill(
        tmp_path, frontmatter=f"name: csv-tidy\ndescription: {D}\nwhen_to_use: CSV files\n"
    )
    assert not validate_skill(path, profile="claude-code", strict=True).warnings
    report = validate_skill(path, profile="agentskills")
    assert [f.code for f in report.warnings] == ["UNKNOWN_KEYS"]
    assert "when_to_use" in report.warnings[0].message


def test_discovery_of_hidden_and_plugin_layouts(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    for rel in (
        "skills/a",
        ".claude/skills/b",
        ".gemini/skills/c",
        ".codex/skills/d",
        "plugins/p1/skills/e",
        "plugins/p2/skills/f",
        ".git/skills/skip-me",
        "node_modules/pkg/skills/skip-me-too",
        "tools/__pycache__/x",
        ".venv/lib/site-packages/pkg",
        ".cache/tool/y",
    ):
        folder = root / rel
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(skill_md(folder.name))
    (root / "linked").symlink_to(root / "skills" / "a", target_is_directory=True)
    (root / "loop").symlink_to(root, target_is_directory=True)
    labels = [os.path.relpath(p, root) for p in find_skills(root)]
    # `linked` is skills/a under a second path: listed once (see the alias tests below)
    assert labels == [
        ".claude/skills/b",
        ".codex/skills/d",
        ".gemini/skills/c",
        "plugins/p1/skills/e",
        "plugins/p2/skills/f",
        "skills/a",
    ]


def _codex_links(tmp_path: Path) -> Path:
    """alirezarezvani's layout: `.codex/skills/<name>` links to the real `skills/<name>`."""
    root = tmp_path / "lib"
    for name in ("alpha", "beta"):
        make_skill(root / "skills", name)
        codex = root / ".codex" / "skills"
        codex.mkdir(parents=True, exist_ok=True)
        (codex / name).symlink_to(f"../../skills/{name}", target_is_directory=True)
    outside = tmp_path / "elsewhere"
    make_skill(outside, "gamma")
    (root / ".codex" / "skills" / "gamma").symlink_to(outside / "gamma")
    return root


def test_a_linked_skill_folder_is_one_skill_reported_as_an_alias(tmp_path: Path) -> None:
    root = _codex_links(tmp_path)
    labels = [os.path.relpath(p, root) for p in find_skills(root)]
    # the links to skills/* are aliases; a link whose target is outside the library is the skill
    assert labels == [".codex/skills/gamma", "skills/alpha", "skills/beta"]
    aliases = {
        os.path.relpath(a, root): os.path.relpath(t, root) for a, t in skill_aliases(root).items()
    }
    assert aliases == {".codex/skills/alpha": "skills/alpha", ".codex/skills/beta": "skills/beta"}
    assert len(validate_library(root)) == 3


def test_library_totals_count_unique_skills_and_name_the_aliases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli import main

    root = _codex_links(tmp_path)
    assert main(["validate", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "3 skills: 3 valid, 0 invalid, 0 with warnings"
    assert "  .codex/skills/alpha -> skills/alpha" in lines
    assert "  .codex/skills/beta -> skills/beta" in lines
    assert main(["validate", str(root), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3


def test_a_catalog_lists_a_linked_skill_once(tmp_path: Path) -> None:
    from skillbench.trigger.catalog import load_skill_dirs

    root = _codex_links(tmp_path)
    entries = load_skill_dirs([root], exclude=None)
    assert sorted(e.name for e in entries) == ["alpha", "beta", "gamma"]
    assert {Path(e.folder).name for e in entries} == {"alpha", "beta", "gamma"}
    assert all(".codex" not in str(e.folder) for e in entries if e.name != "gamma")


def _library(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    make_skill(root / "skills", "good")
    make_skill(root / "skills", "warned", frontmatter="name: warned\ndescription: No hint.\n")
    make_skill(root / ".claude" / "skills", "bad", frontmatter="name: Bad_Name\ndescription: <x>\n")
    make_skill(root / "skills", "broken", raw=b"no frontmatter\n")
    return root


def test_summary_totals_then_invalid_first(tmp_path: Path) -> None:
    root = _library(tmp_path)
    items = label_reports(validate_library(root), root)
    lines = summary_lines(items)
    assert lines[0] == "4 skills: 2 valid, 2 invalid, 2 with warnings"
    assert lines[1:5] == [
        "",
        "invalid:",
        "  .claude/skills/bad  NAME_FORMAT, DESCRIPTION_ANGLE_BRACKETS",
        "  skills/broken       FRONTMATTER_PARSE",
    ]
    assert lines[6] == "warnings (skills per code): DESCRIPTION_TRIGGER_HINT (2), " + (
        "NAME_FOLDER_MISMATCH (1)"
    )
    assert not any(line.startswith("  error") for line in lines)
    verbose = summary_lines(items, verbose=True)
    assert "skills/warned: valid (0 errors, 1 warning)" in verbose
    assert (
        "  error    FRONTMATTER_PARSE: line 1 must be '---' to open the frontmatter, "
        + ("found 'no frontmatter'")
        in verbose
    )
    assert len(verbose) > len(lines)


def test_totals_line_counts() -> None:
    assert totals_line([]) == "0 skills: 0 valid, 0 invalid, 0 with warnings"


def test_github_annotations_point_at_the_key_line(tmp_path: Path) -> None:
    root = _library(tmp_path)
    reports = validate_library(root)
    lines = github_annotations(reports, cwd=tmp_path)
    assert (
        "::error file=lib/.claude/skills/bad/SKILL.md,line=2,title=NAME_FORMAT::NAME_FORMAT: "
        + ("name must be kebab-case (lowercase letters, digits, single hyphens): 'Bad_Name'")
        in lines
    )
    assert any(
        line.startswith(
            "::error file=lib/.claude/skills/bad/SKILL.md,line=3,title=DESCRIPTION_ANGLE_BRACKETS::"
        )
        for line in lines
    )
    assert any(
        line.startswith(
            "::warning file=lib/skills/warned/SKILL.md,line=3,title=DESCRIPTION_TRIGGER"
        )
        for line in lines
    )
    assert any(line.startswith("::error file=lib/skills/broken/SKILL.md,line=1,") for line in lines)
    assert len(lines) == sum(len(r.errors) + len(r.warnings) for r in reports)


def test_github_annotation_escaping(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "a,b", frontmatter="name: 'x%y'\ndescription: 'Use when a\\nb'\n")
    lines = github_annotations([validate_skill(folder)], cwd=tmp_path)
    assert all("\n" not in line for line in lines)
    assert any(line.startswith("::error file=a%2Cb/SKILL.md,line=2,") for line in lines)
    assert any("'x%25y'" in line for line in lines)
    odd = Finding(level="error", code="X_CODE", message="two\r\nlines: 100%")
    (line,) = github_annotations(
        [ValidationReport.from_findings(str(tmp_path / "a:b"), [odd])], cwd=tmp_path
    )
    assert line == "::error file=a%3Ab,line=1,title=X_CODE::X_CODE: two%0D%0Alines: 100%25"


def test_finding_line_for_body_heading(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, body="# T\n\n## When to use\n")
    report = validate_skill(folder)
    (finding,) = report.warnings
    text = (folder / "SKILL.md").read_text()
    assert finding_line(text, finding) == 7


def test_detail_lines(tmp_path: Path) -> None:
    report = validate_skill(make_skill(tmp_path, frontmatter="name: x\n"))
    lines = detail_lines(Labelled(report, "x"))
    assert lines[0] == "x: valid (0 errors, 2 warnings)"
    assert lines[1].startswith("  warning  MISSING_RECOMMENDED_KEY: missing recommended key")


def test_frames_label_skills_relative_to_the_library(tmp_path: Path) -> None:
    from skillbench.validate.rules import findings_frame, summary_frame

    root = link_library(tmp_path / "lib")
    make_skill(
        root / ".claude" / "skills", "changelog", frontmatter=f"name: changelog\ndescription: {D}\n"
    )
    reports = validate_library(root)
    assert summary_frame(reports, root=root)["skill"].tolist() == [
        ".claude/skills/changelog",
        ".gemini/skills/changelog",
        ".gemini/skills/release-notes",
    ]
    assert findings_frame(reports, root=root)["skill"].nunique() == 3
    assert summary_frame(reports)["skill"].nunique() == 2  # folder names collide


def test_control_characters_in_names_are_shown_escaped(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    make_skill(root, "evil\x1b[31m", frontmatter="name: Bad\ndescription: x\n")
    items = label_reports(validate_library(root), root)
    lines = summary_lines(items, verbose=True)
    assert all("\x1b" not in line for line in lines)
    assert "  evil\\x1b[31m  NAME_FORMAT" in lines
    annotations = github_annotations([i.report for i in items], cwd=root)
    assert annotations and all("\x1b" not in line for line in annotations)


def test_the_validate_command_takes_the_library_it_is_given_as_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No git repository around it: the PATH given is the root, so its `.gemini/skills` links
    into `commands/` are valid (exit 0, the warning counted); one of those skills given alone
    has only its parent folder as the root (exit 1)."""
    from skillbench.cli import main

    root = link_library(tmp_path / "lib")
    assert main(["validate", str(root)]) == 0
    assert "SKILL_MD_LINKED" in capsys.readouterr().out
    assert main(["validate", str(root / ".gemini" / "skills" / "changelog")]) == 1
    assert "SKILL_MD_LINK_OUTSIDE" in capsys.readouterr().out
