"""What Gemini CLI shows the model of the skills: the `<available_skills>` block of its system
instruction (name, description, location per skill), read from a captured request body.

Gemini CLI 0.61.0 lists every discovered skill with its whole description (measured against the
loopback capture: 301 project skills, 300 of about 425 characters and one of 1,498, were all
listed in full, 177k characters; no budget seen), so a skill is `full` or `absent`; the parser
still reports what it finds, so a later CLI that cuts descriptions shows as `shortened`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skillbench.backends.replay.agent import Listing

_BLOCK = re.compile(r"<available_skills>(.*?)</available_skills>", re.DOTALL)
_SKILL = re.compile(r"<skill>(.*?)</skill>", re.DOTALL)


@dataclass(frozen=True)
class ListedSkill:
    """One `<skill>` entry."""

    name: str
    description: str | None
    location: str | None


def system_text(body: Mapping[str, Any]) -> str:
    """The system instruction's text (all parts), from a camelCase or snake_case body."""
    system = body.get("systemInstruction") or body.get("system_instruction") or {}
    if isinstance(system, str):
        return system
    parts = system.get("parts") if isinstance(system, Mapping) else None
    return "".join(str(p.get("text") or "") for p in parts or () if isinstance(p, Mapping))


def _field(entry: str, tag: str) -> str | None:
    found = re.search(rf"<{tag}>(.*?)</{tag}>", entry, re.DOTALL)
    return html.unescape(found.group(1)) if found else None


def parse_listing(body: Mapping[str, Any]) -> list[ListedSkill]:
    """The listed skills, in order (empty when the request lists none)."""
    block = _BLOCK.search(system_text(body))
    if block is None:
        return []
    found: list[ListedSkill] = []
    for entry in _SKILL.findall(block.group(1)):
        name = _field(entry, "name")
        if name:
            found.append(ListedSkill(name, _field(entry, "description"), _field(entry, "location")))
    return found


def gemini_listing(body: Mapping[str, Any]) -> Listing:
    """The listing as a `Listing` (no budget: Gemini CLI 0.61.0 has none)."""
    block = _BLOCK.search(system_text(body))
    entries = parse_listing(body)
    return Listing(
        shown={e.name: e.description for e in entries},
        chars=len(block.group(0)) if block else 0,
        budget=None,
    )
