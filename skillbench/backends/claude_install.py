"""Installing skills into a throwaway project as Claude Code would load them.

A skill that comes from a folder (`SkillEntry.folder`) is installed as that whole folder —
SKILL.md with its full frontmatter (`when_to_use`, `allowed-tools`, …), scripts, references —
with only the description replaced when a candidate is tested (a byte-preserving rewrite of
that one value). An entry without a folder (built in code) gets a two-key SKILL.md.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import yaml

from skillbench.backends.base import SkillEntry
from skillbench.errors import InputError
from skillbench.skill import SKILL_MD, iter_files, read_skill_md, replace_description

SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def skill_markdown(entry: SkillEntry) -> str:
    """SKILL.md text for an entry without a folder: frontmatter (name, description), body."""
    front = yaml.safe_dump(
        {"name": entry.name, "description": entry.description},
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )
    body = entry.body if entry.body.endswith("\n") or not entry.body else entry.body + "\n"
    return f"---\n{front}---\n\n{body}"


def skill_md_bytes(entry: SkillEntry) -> bytes:
    """The SKILL.md to install: the folder's own, description replaced when it differs; or a
    generated one for an entry without a folder."""
    if entry.folder is None:
        return skill_markdown(entry).encode("utf-8")
    from skillbench.skill import parse_frontmatter

    skill_md, raw = read_skill_md(entry.folder)
    text = raw.decode("utf-8-sig", errors="replace")
    mapping = parse_frontmatter(text).mapping or {}
    current = mapping.get("description")
    if current == entry.description:
        return raw
    return replace_description(raw, entry.description, path=skill_md)


def copy_folder(source: Path, dest: Path) -> None:
    """Copy a skill folder's files (as `skillbench.skill.iter_files` lists them; symlinks as
    links) to `dest`; SKILL.md is written separately."""
    skill_md = read_skill_md(source)[0].relative_to(source).as_posix()
    for rel in sorted(iter_files(source)):
        if rel == skill_md:
            continue
        src = source / rel
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), out)
        else:
            shutil.copy2(src, out)


def install_skill(project: Path, entry: SkillEntry) -> Path:
    """Install one skill at `project/.claude/skills/<name>/` and return that folder."""
    folder = project / ".claude" / "skills" / entry.name
    folder.mkdir(parents=True, exist_ok=False)
    if entry.folder is not None:
        copy_folder(Path(entry.folder), folder)
    (folder / SKILL_MD).write_bytes(skill_md_bytes(entry))
    return folder


def install_skills(project: Path, target: SkillEntry, catalog: Sequence[SkillEntry]) -> list[str]:
    """Install the target and the distractors under `project/.claude/skills/`; a catalog entry
    with the target's name is skipped (the candidate wins)."""
    installed: list[str] = []
    for index, entry in enumerate((target, *catalog)):
        where = "target.name" if index == 0 else f"catalog[{index - 1}].name"
        if not SKILL_NAME.match(entry.name) or entry.name in {".", ".."}:
            raise InputError(f"not a usable skill folder name: {entry.name!r}", field=where)
        if entry.name in installed:
            continue
        install_skill(project, entry)
        installed.append(entry.name)
    return installed
