"""The base skill materialised from git into a scratch folder (skillbench.gate.baseref)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from gate_fakes import git, skill_repo, write_skill

from skillbench.errors import InputError
from skillbench.gate.baseref import default_base, materialise


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if ".git" in path.parts or not path.is_file():
            continue
        h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


def test_base_is_the_committed_skill_and_the_working_tree_is_untouched(tmp_path: Path) -> None:
    skill = skill_repo(tmp_path / "repo", "Old description.", "New description.")
    before = tree_digest(tmp_path / "repo"), git(tmp_path / "repo", "status", "--porcelain")
    base = materialise(skill, "main")
    assert base.folder is not None and base.folder.name == "gate-skill"
    assert base.folder.resolve() != skill.resolve()
    assert "Old description." in (base.folder / "SKILL.md").read_text()
    assert "New description." in (skill / "SKILL.md").read_text()
    assert base.commit == git(tmp_path / "repo", "rev-parse", "main").strip()
    after = tree_digest(tmp_path / "repo"), git(tmp_path / "repo", "status", "--porcelain")
    assert after == before


def test_a_skill_new_at_head_has_no_base(tmp_path: Path) -> None:
    skill_repo(tmp_path / "repo", "Old description.")
    new = write_skill(tmp_path / "repo" / "skills" / "brand-new", "A new skill.", "brand-new")
    assert materialise(new, "main").folder is None


def test_default_base_is_the_merge_base_with_the_default_branch(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    skill_repo(root, "Old description.")
    fork = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "feature")
    write_skill(root / "skills" / "gate-skill", "Feature description.")
    git(root, "commit", "-qam", "feature")
    git(root, "checkout", "-q", "main")
    write_skill(root / "skills" / "gate-skill", "Main moved on.")
    git(root, "commit", "-qam", "main moves")
    git(root, "checkout", "-q", "feature")
    assert default_base(root) == fork
    base = materialise(root / "skills" / "gate-skill")
    assert base.commit == fork
    assert "Old description." in (base.folder / "SKILL.md").read_text()  # type: ignore[operator]


@pytest.mark.parametrize("ref", ["no-such-branch", "--output=/tmp/x"])
def test_a_bad_ref_is_bad_input_naming_base(tmp_path: Path, ref: str) -> None:
    skill = skill_repo(tmp_path / "repo", "Old description.")
    with pytest.raises(InputError) as info:
        materialise(skill, ref)
    assert info.value.path == "--base" or "--base" in str(info.value)


def test_outside_git_is_bad_input(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "loose", "No repository here.")
    with pytest.raises(InputError, match="git"):
        materialise(skill, "main")
