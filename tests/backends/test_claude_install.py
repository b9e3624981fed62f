"""The CLI harness installs a skill as its whole folder, only the description replaced."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.session import ClaudeCodeJudge
from skillbench.backends.skill_install import install_skills
from skillbench.skill import Skill
from skillbench.trigger.run import load_catalog

FAKE = Path(__file__).resolve().parents[1] / "fake_claude" / "claude"
SKILL_MD = """---
name: pdf-tools
description: Use when merging PDF files.
when_to_use: When the user mentions PDF pages, forms or merging.
allowed-tools: Bash(python:*) Read
metadata:
  owner: docs-team  # a comment that must survive
---

# PDF tools

Run `scripts/merge.py`.
"""


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "src" / "pdf-tools"
    (folder / "scripts").mkdir(parents=True)
    (folder / "references").mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (folder / "scripts" / "merge.py").write_text("print('merge')\n")
    os.chmod(folder / "scripts" / "merge.py", 0o755)
    (folder / "references" / "forms.md").write_text("# Forms\n")
    os.symlink("references/forms.md", folder / "FORMS.md")
    return folder


def entry(folder: Path, description: str | None = None) -> SkillEntry:
    skill = Skill.load(folder)
    text = skill.description if description is None else description
    return SkillEntry(skill.name, text, skill.body, str(folder), skill.content_hash)


def test_whole_folder_with_full_frontmatter(tmp_path: Path, skill_dir: Path) -> None:
    project = tmp_path / "project"
    install_skills(project, entry(skill_dir), ())
    out = project / ".claude" / "skills" / "pdf-tools"
    assert (out / "SKILL.md").read_bytes() == (skill_dir / "SKILL.md").read_bytes()
    assert (out / "scripts" / "merge.py").read_text() == "print('merge')\n"
    assert os.access(out / "scripts" / "merge.py", os.X_OK)
    assert (out / "references" / "forms.md").is_file()
    assert (out / "FORMS.md").is_symlink() and (out / "FORMS.md").read_text() == "# Forms\n"


def test_candidate_replaces_only_the_description(tmp_path: Path, skill_dir: Path) -> None:
    project = tmp_path / "project"
    install_skills(project, entry(skill_dir, "Use when a PDF needs merging: forms too."), ())
    text = (project / ".claude" / "skills" / "pdf-tools" / "SKILL.md").read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["description"] == "Use when a PDF needs merging: forms too."
    assert front["when_to_use"] == "When the user mentions PDF pages, forms or merging."
    assert front["allowed-tools"] == "Bash(python:*) Read"
    assert "# a comment that must survive" in text
    assert text.endswith("Run `scripts/merge.py`.\n")
    assert (skill_dir / "SKILL.md").read_text() == SKILL_MD  # the source is untouched


def test_entry_without_folder_gets_a_two_key_skill_md(tmp_path: Path) -> None:
    install_skills(tmp_path, SkillEntry("a-b", "Use for a and b.", "# AB\n"), ())
    text = (tmp_path / ".claude" / "skills" / "a-b" / "SKILL.md").read_text()
    assert yaml.safe_load(text.split("---\n")[1]) == {
        "name": "a-b",
        "description": "Use for a and b.",
    }


def test_catalog_entries_carry_their_folder_but_keys_no_path(skill_dir: Path) -> None:
    (catalog,) = load_catalog(skill_dir.parent)
    assert catalog.folder == str(skill_dir)
    request = TriggerRequest(catalog, (), "q", 0)
    blob = json.dumps(request.cache_fields())
    assert str(skill_dir) not in blob
    assert catalog.content_hash is not None and catalog.content_hash in blob
    plain = TriggerRequest(SkillEntry("x", "d", "b"), (), "q", 0).cache_fields()
    assert plain["target"] == {"name": "x", "description": "d", "body": "b"}


async def test_the_cli_sees_the_whole_folder(tmp_path: Path, skill_dir: Path) -> None:
    record = tmp_path / "calls"
    record.mkdir()
    judge = ClaudeCodeJudge(
        claude_bin=FAKE,
        keep_workdirs=True,
        env={
            "FAKE_CLAUDE_SKILL": "pdf-tools",
            "FAKE_CLAUDE_RECORD": str(record),
            "FAKE_CLAUDE_EXPECT_DESCRIPTION": "Use when a PDF needs merging.",
        },
    )
    outcome = await judge.judge(
        TriggerRequest(entry(skill_dir, "Use when a PDF needs merging."), (), "merge", 0)
    )
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.triggered is True
    installed = Path(outcome.detail["workdir"]) / "project" / ".claude" / "skills" / "pdf-tools"
    try:
        assert (installed / "scripts" / "merge.py").is_file()
        assert "when_to_use:" in (installed / "SKILL.md").read_text()
    finally:
        shutil.rmtree(outcome.detail["workdir"])


def test_links_out_of_the_skill_and_big_files_are_left_out(
    tmp_path: Path, skill_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 27 (review): the trigger and capture installs copied `-> /etc/passwd` as a link the
    session could read, and any file whole (a 300 MiB sparse file was written out per query).
    Links inside stay links; links out and files past the copy limit are left out, logged."""
    os.symlink("/etc/passwd", skill_dir / "passwd-link")
    os.symlink("../..", skill_dir / "references" / "up")  # leads out of the skill folder too
    with (skill_dir / "big.bin").open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)
    project = tmp_path / "project"
    with caplog.at_level("WARNING", logger="skillbench.install"):
        install_skills(project, entry(skill_dir), ())
    out = project / ".claude" / "skills" / "pdf-tools"
    assert os.readlink(out / "FORMS.md") == "references/forms.md"  # inside: kept as a link
    for left_out in ("passwd-link", "references/up", "big.bin"):
        assert not os.path.lexists(out / left_out), left_out
        assert any(left_out in record.getMessage() for record in caplog.records), left_out
    assert (out / "scripts" / "merge.py").is_file()


def test_a_skill_md_linked_within_the_catalog_is_installed_as_its_text(tmp_path: Path) -> None:
    """Issue 32 item 7: a catalog whose `.gemini/skills/x/SKILL.md` links to
    `commands/x.md` (inside the catalog, no git repository around it) is loaded with the
    catalog as its root and installed as a regular SKILL.md holding the linked text, never as a
    link (which would dangle, or lead out of the throwaway project)."""
    catalog = tmp_path / "catalog"
    (catalog / "commands").mkdir(parents=True)
    text = SKILL_MD.replace("pdf-tools", "changelog").replace("PDF", "changelog")
    (catalog / "commands" / "changelog.md").write_text(text, encoding="utf-8")
    folder = catalog / ".gemini" / "skills" / "changelog"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to("../../../commands/changelog.md")
    (entry_,) = load_catalog(catalog)
    assert entry_.root == str(catalog)
    project = tmp_path / "project"
    target = SkillEntry("other", "Use when testing.", "body")
    assert install_skills(project, target, [entry_]) == ["other", "changelog"]
    installed = project / ".claude" / "skills" / "changelog" / "SKILL.md"
    assert not installed.is_symlink()
    assert installed.read_text(encoding="utf-8") == text
