"""The competing skills of a trigger eval: `--catalog DIR | none | installed`.

- `none` (the default): the target alone. Never read from the working directory silently.
- `DIR`: every skill folder under DIR (a missing folder is an input error naming `--catalog`).
- `installed`: what Claude Code itself would load for this user — `~/.claude/skills` (or
  `$CLAUDE_CONFIG_DIR/skills`), the current project's `.claude/skills`, and the skills of the
  plugins enabled in the user's `settings.json`.

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


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def enabled_plugin_skill_dirs(config: Path) -> list[Path]:
    """The `skills/` folders of the plugins enabled in `settings.json` (`enabledPlugins`) and
    recorded in `plugins/installed_plugins.json`."""
    settings = _read_json(config / "settings.json")
    enabled = settings.get("enabledPlugins") if isinstance(settings, dict) else None
    if not isinstance(enabled, dict):
        return []
    names = {name for name, on in enabled.items() if on is True}
    installed = _read_json(config / "plugins" / "installed_plugins.json")
    records = installed.get("plugins", installed) if isinstance(installed, dict) else {}
    folders: list[Path] = []
    for name, value in (records or {}).items():
        if name not in names:
            continue
        for record in value if isinstance(value, list) else [value]:
            path = record.get("installPath") if isinstance(record, dict) else None
            if isinstance(path, str) and (Path(path) / "skills").is_dir():
                folders.append(Path(path) / "skills")
    return folders


def installed_skill_dirs(project: Path | None = None) -> list[Path]:
    """The folders Claude Code loads skills from for this user and project (existing ones)."""
    config = claude_config_dir()
    candidates = [config / "skills", (project or Path.cwd()) / ".claude" / "skills"]
    candidates += enabled_plugin_skill_dirs(config)
    return [folder for folder in candidates if folder.is_dir()]


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
        folders = installed_skill_dirs()
        entries = load_skill_dirs(folders, exclude)
        return entries, CatalogInfo(
            source=INSTALLED,
            skills=[e.name for e in entries],
            sha256=catalog_hash(entries),
            folders=[str(f) for f in folders],
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
