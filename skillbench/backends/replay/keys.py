"""The hashes the replay family keys on: the skill set as the CLI reads it (part of every
template key) and one replayed request as sent (the call cache's key for it).

Both are pinned (`tests/backends/test_replay_key_pins.py`): changing either would orphan every
stored template or cached answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from skillbench.backends.base import SkillEntry
from skillbench.backends.skill_install import cli_name, skill_md_bytes


def skill_set_hash(target: SkillEntry, catalog: Sequence[SkillEntry]) -> str:
    """SHA-256 over what the CLI reads of the installed skills: each installed folder name and
    its SKILL.md as installed (`skill_md_bytes`: frontmatter with `when_to_use`, the description
    under test, the body), in the order of install precedence: the target first, then the
    catalog, the first entry of a folder name winning (as `install_skills` does), so which of
    two same-named folders is installed is part of the key. Other files of a skill folder
    (evals/, notes, scripts) are not read for the request, so adding or editing them keeps the
    template."""
    installed: dict[str, str] = {}
    for entry in (target, *catalog):
        installed.setdefault(cli_name(entry), hashlib.sha256(skill_md_bytes(entry)).hexdigest())
    blob = json.dumps(sorted(installed.items()), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def common_fields(
    template_format: int,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    model: str,
    cli_version: str,
    settings: Mapping[str, str],
) -> dict[str, Any]:
    """What every agent's template key holds: its template format, the skill set's content
    (`skill_set_hash`), the model, the CLI version and the settings."""
    return {
        "format": template_format,
        "skills": skill_set_hash(target, catalog),
        "model": model,
        "cli": cli_version,
        "settings": dict(sorted(settings.items())),
    }


def request_hash(path: str, headers: Mapping[str, str], body: dict[str, Any]) -> str:
    """SHA-256 of one replayed request as sent (path, kept headers, body)."""
    blob = json.dumps(
        {"p": path, "h": dict(headers), "b": body}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def short_key(fields: Mapping[str, Any]) -> str:
    """A template key: the first 32 hex digits of SHA-256 over `fields` (sorted JSON)."""
    blob = json.dumps(dict(fields), sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]
