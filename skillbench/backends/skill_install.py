"""Installing skills into a throwaway project as Claude Code would load them.

A skill that comes from a folder (`SkillEntry.folder`) is installed as that whole folder —
SKILL.md with its full frontmatter (`when_to_use`, `allowed-tools`, …), scripts, references —
with only the description replaced when a candidate is tested (a byte-preserving rewrite of
that one value). An entry without a folder (built in code) gets a two-key SKILL.md.

Names are Claude Code's (2.1.197, read from its source and checked against the real CLI): a
skill is called by its **folder name** (`cli_name`), whatever its frontmatter `name` says — that
is only a display name, which the Skill tool also accepts (`resolve_call`). Skills are listed in
the order of their folder names under ICU collation (`collation_key`: `a b` < `a_b` < `a-b` <
`a.b` < `a1` < `ab` < `aB` < `Ab`). A `disable-model-invocation: true` skill is not listed, and a
Skill call to it is answered with a `tool_use_error`: it never runs (`CliSkill.disabled`).
"""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from skillbench.backends.base import SkillEntry
from skillbench.backends.skill_copy import DEFAULT_MAX_COPY, copy_tree
from skillbench.errors import InputError
from skillbench.skill import (
    IGNORED_NAMES,
    SKILL_MD,
    cli_description,
    cli_frontmatter,
    cli_repaired,
    read_skill_md,
    replace_description,
)

LOG = logging.getLogger("skillbench.install")
_WARNED: set[str] = set()

#: A folder name Claude Code can load (any one path component; spaces are fine).
_UNUSABLE_NAME = re.compile(r"[/\\\x00]")
#: ICU root collation order of printable ASCII (what `localeCompare` gives; letters a A b B …).
_ICU_ASCII = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789" + "".join(
    f"{c}{c.upper()}" for c in "abcdefghijklmnopqrstuvwxyz"
)
_PRIMARY = {c: i for i, c in enumerate(_ICU_ASCII)}
for _c in "abcdefghijklmnopqrstuvwxyz":
    _PRIMARY[_c.upper()] = _PRIMARY[_c]


def cli_name(entry: SkillEntry) -> str:
    """What Claude Code calls the skill: its folder's name (an entry without a folder is
    installed under its `name`)."""
    if entry.folder is not None:
        return os.path.basename(os.path.abspath(entry.folder))
    return entry.name


def usable_folder_name(name: str) -> bool:
    """True when `name` can be a skill folder (one path component, not `.`/`..`)."""
    return (
        bool(name)
        and name not in {".", ".."}
        and not _UNUSABLE_NAME.search(name)
        and len(name.encode("utf-8", errors="replace")) <= 255
    )


def collation_key(name: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A sort key ordering names as Claude Code's `localeCompare` (ICU root collation) does:
    punctuation < digits < letters, case and accents compared only after the letters.
    Exact for ASCII names; accented letters sort beside their base letter; other characters
    after all ASCII (an approximation)."""
    primary: list[int] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for char in unicodedata.normalize("NFD", name):
        if unicodedata.combining(char):
            if secondary:
                secondary[-1] = secondary[-1] * 1000 + ord(char) % 1000
            continue
        primary.append(_PRIMARY.get(char, 1000 + ord(char.lower())))
        secondary.append(0)
        tertiary.append(1 if char.isupper() else 0)
    return tuple(primary), tuple(secondary), tuple(tertiary)


@dataclass(frozen=True)
class CliSkill:
    """One installed skill as Claude Code sees it."""

    name: str
    display_name: str | None
    description: str
    when_to_use: str | None
    disabled: bool
    target: bool = False


def cli_skill(entry: SkillEntry, *, target: bool = False, skip_bom: bool = False) -> CliSkill:
    """Claude Code's view of one entry (folder name, frontmatter as its parser reads it; with
    `skip_bom`, a leading UTF-8 BOM is passed over, as Claude Code 2.1.332 reads it)."""
    text = skill_md_bytes(entry).decode("utf-8", errors="replace")
    if skip_bom:
        text = text.removeprefix("\ufeff")
    mapping, body, _ = cli_frontmatter(text)
    display = mapping.get("name")
    when = mapping.get("when_to_use")
    flag = mapping.get("disable-model-invocation")
    return CliSkill(
        name=cli_name(entry),
        display_name=None if display is None else str(display),
        description=cli_description(mapping, body),
        when_to_use=None if when is None else str(when),
        disabled=flag is True or flag == "true",
        target=target,
    )


def cli_skills(
    target: SkillEntry, catalog: Sequence[SkillEntry], *, skip_bom: bool = False
) -> list[CliSkill]:
    """The installed skill set as Claude Code loads it, in its listing order (the target wins a
    folder-name clash; `skip_bom`: see `cli_skill`)."""
    seen: dict[str, CliSkill] = {}
    for index, entry in enumerate((target, *catalog)):
        name = cli_name(entry)
        if name not in seen:
            seen[name] = cli_skill(entry, target=index == 0, skip_bom=skip_bom)
    return sorted(seen.values(), key=lambda s: collation_key(s.name))


def resolve_call(called: str, skills: Sequence[CliSkill]) -> CliSkill | None:
    """The skill a Skill call naming `called` runs, as Claude Code resolves it: the first skill
    (listing order) whose folder name or frontmatter name is `called`."""
    for skill in skills:
        if called in (skill.name, skill.display_name):
            return skill
    return None


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

    skill_md, raw = read_skill_md(entry.folder, entry.root)
    text = raw.decode("utf-8-sig", errors="replace")
    strict = parse_frontmatter(text).mapping
    if strict is not None and strict.get("description") == entry.description:
        return raw
    if strict is None:  # not YAML, but Claude Code reads it (see `cli_frontmatter`)
        mapping, body, _ = cli_frontmatter(text)
        if cli_description(mapping, body) == entry.description:
            return raw
        repaired = cli_repaired(text)
        if repaired is not None:  # a candidate: written into the YAML Claude Code would read
            return replace_description(repaired.encode("utf-8"), entry.description, path=skill_md)
    return replace_description(raw, entry.description, path=skill_md)


def copy_folder(
    source: Path, dest: Path, max_bytes: int = DEFAULT_MAX_COPY, root: str | None = None
) -> list[str]:
    """Copy a skill folder's files to `dest` by `skill_copy.copy_tree`'s rules (links inside the
    folder kept as links, a link leading out of it left out, at most `max_bytes` of files);
    SKILL.md is written separately. Returns the warnings naming what was left out; each is also
    logged once per process (a trigger eval installs the same skill for every query)."""
    read_skill_md(source, root)  # refused as before when there is no usable SKILL.md
    label = os.path.basename(os.path.abspath(source))
    plan = copy_tree(
        source,
        dest,
        max_bytes=max_bytes,
        ignore=IGNORED_NAMES,
        skip={SKILL_MD},
        label=label,
        option=None,
    )
    for warning in plan.warnings:
        if warning not in _WARNED:
            _WARNED.add(warning)
            LOG.warning("skill install: %s", warning)
    return plan.warnings


CLAUDE_SKILLS = ".claude/skills"


def install_skill(project: Path, entry: SkillEntry, skills_dir: str = CLAUDE_SKILLS) -> Path:
    """Install one skill at `project/<skills_dir>/<folder name>/` (Claude Code's
    `.claude/skills` unless another agent's folder is given) and return that folder."""
    folder = project / skills_dir / cli_name(entry)
    folder.mkdir(parents=True, exist_ok=False)
    if entry.folder is not None:
        copy_folder(Path(entry.folder), folder, root=entry.root)
    (folder / SKILL_MD).write_bytes(skill_md_bytes(entry))
    return folder


def install_skills(
    project: Path,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    skills_dir: str = CLAUDE_SKILLS,
) -> list[str]:
    """Install the target and the distractors under `project/<skills_dir>/`, each under its
    folder name as Claude Code would find it (`cli_name`); a catalog entry with the target's
    folder name is skipped (the candidate wins). Returns the folder names installed."""
    installed: list[str] = []
    for index, entry in enumerate((target, *catalog)):
        name = cli_name(entry)
        if not usable_folder_name(name):
            where = "target.name" if index == 0 else f"catalog[{index - 1}].name"
            raise InputError(f"not a usable skill folder name: {name!r}", field=where)
        if name in installed:
            continue
        install_skill(project, entry, skills_dir)
        installed.append(name)
    return installed
