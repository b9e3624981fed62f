"""The competing skills of a trigger eval: `--catalog DIR | none | installed`.

- `none` (the default): the target alone. Never read from the working directory silently.
- `DIR`: every skill folder under DIR (a missing folder is an input error naming `--catalog`).
- `installed`: what Claude Code itself would load for this user, named and ordered as it lists
  them — `~/.claude/skills` (or `$CLAUDE_CONFIG_DIR/skills`), then the current project's
  `.claude/skills` (each by folder name, in ICU order), then the skills of the plugins enabled
  in the user's `settings.json` whose marketplace lists them (`<plugin>:<folder>`). With the
  replay harness and `--as-user`, the user's own skills reach the capture through the seeded
  HOME, where the CLI lists them itself (`backends/anthropic/as_user.py`).

The report lists the catalog's skills and a hash of their content (`CatalogInfo`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from skillbench.backends.base import SkillEntry
from skillbench.errors import InputError
from skillbench.schemas.trigger import CatalogInfo

NONE = "none"
INSTALLED = "installed"
DEFAULT_CATALOG = NONE
OPTION = "--catalog"


def catalog_hash(entries: Iterable[SkillEntry]) -> str:
    """SHA-256 over the (name, description, body) of the entries, in name order."""
    items = sorted([e.name, e.description, e.body] for e in entries)
    return hashlib.sha256(json.dumps(items, ensure_ascii=False).encode("utf-8")).hexdigest()


def claude_config_dir() -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env) if env else Path.home() / ".claude"


def installed_groups(project: Path | None = None) -> list[tuple[Path, str | None]]:
    """The folders Claude Code loads skills from for this user and project, in its listing
    order, each with the prefix of its skills' names: the user's `skills/`, the project's
    `.claude/skills` (no prefix), then the skills folders of the enabled plugins (their
    plugin's name; `claude_cli.user_plugins`)."""
    from skillbench.backends.claude_cli.user_plugins import enabled_plugins

    config = claude_config_dir()
    groups: list[tuple[Path, str | None]] = [
        (config / "skills", None),
        ((project or Path.cwd()) / ".claude" / "skills", None),
    ]
    for plugin in enabled_plugins(config):
        groups += [(folder, plugin.name) for folder in plugin.skills_dirs()]
    return [(folder, prefix) for folder, prefix in groups if folder.is_dir()]


def installed_skill_dirs(project: Path | None = None) -> list[Path]:
    """The folders Claude Code loads skills from for this user and project (existing ones)."""
    return [folder for folder, _ in installed_groups(project)]


def load_installed(
    groups: Iterable[tuple[Path, str | None]], exclude: str | None
) -> list[SkillEntry]:
    """The skills of `groups` as Claude Code lists them: each folder's `<name>/SKILL.md` in
    ICU order of the listed name (the folder's name; `<plugin>:<folder>` for a plugin's), the
    folders in the order given; a name listed before wins; the target (`exclude`, by listed or
    frontmatter name) left out."""
    from skillbench.backends.claude_cli.user_plugins import skill_name
    from skillbench.backends.skill_install import collation_key
    from skillbench.skill import load_as_claude_code

    entries: dict[str, SkillEntry] = {}
    for root, prefix in groups:
        named = {
            (skill_name(prefix, child.name) if prefix else child.name): child
            for child in root.iterdir()
            if (child / "SKILL.md").is_file()
        }
        for listed in sorted(named, key=collation_key):
            skill, _ = load_as_claude_code(named[listed], root)
            if exclude in (listed, skill.name) or listed in entries:
                continue
            entries[listed] = dataclasses.replace(entry_for(skill), name=listed)
    return list(entries.values())


def load_skill_dirs(folders: Iterable[Path], exclude: str | None) -> list[SkillEntry]:
    """Skills under the folders, first occurrence of a name wins, sorted by name."""
    from skillbench.skill import find_skills, load_as_claude_code

    entries: dict[str, SkillEntry] = {}
    for root in folders:
        for folder in find_skills(root):
            skill, _ = load_as_claude_code(folder, root)  # as Claude Code would load it
            if skill.name == exclude or skill.name in entries:
                continue
            entries[skill.name] = entry_for(skill)
    return [entries[name] for name in sorted(entries)]


def entry_for(skill: Any) -> SkillEntry:
    """A catalog entry for a loaded skill: name, description, body, and (where `SkillEntry`
    carries them) its folder and content hash, so harnesses can install it whole."""
    names = {f.name for f in dataclasses.fields(SkillEntry)}
    extra: dict[str, Any] = {}
    if "folder" in names:
        extra["folder"] = str(skill.path)
    if "content_hash" in names:
        extra["content_hash"] = skill.content_hash
    if "root" in names and getattr(skill, "root", None) is not None:
        extra["root"] = str(skill.root)
    return SkillEntry(skill.name, skill.description, skill.body, **extra)


def resolve_catalog(
    spec: str | os.PathLike[str] | None, *, exclude: str | None = None
) -> tuple[list[SkillEntry], CatalogInfo]:
    """The catalog entries (target `exclude` left out) and their description for the report."""
    text = NONE if spec is None else os.fspath(spec)
    if text.strip().lower() == NONE:
        return [], CatalogInfo(source=NONE, skills=[], sha256=catalog_hash([]))
    if text.strip().lower() == INSTALLED:
        groups = installed_groups()
        entries = load_installed(groups, exclude)
        return entries, CatalogInfo(
            source=INSTALLED,
            skills=[e.name for e in entries],
            sha256=catalog_hash(entries),
            folders=[str(f) for f, _ in groups],
        )
    folder = Path(text)
    if not folder.is_dir():
        raise InputError(
            f"catalog folder not found: {text} (give a folder of skills, `none` or `installed`)",
            path=OPTION,
        )
    entries = load_skill_dirs([folder], exclude)
    return entries, CatalogInfo(
        source=str(folder),
        skills=[e.name for e in entries],
        sha256=catalog_hash(entries),
        folders=[str(folder)],
    )
