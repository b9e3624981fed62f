"""What Codex CLI shows the model of the skills: the `<skills_instructions>` developer text of its
request ("### Skill roots" `r0` = …, then "### Available skills" `- name: description (file:
r1/<folder>/SKILL.md)`), read from a captured body.

Measured on Codex 0.169.0 (gpt-6.1-sol, loopback capture): its four built-in `.system` skills are
always listed first; 40 skills of 425-character descriptions (a 20.8k-character block) were listed
in full, while 300 such skills were all listed with every description cut to about 28 characters
(a 22.2k-character block). The binary also knows "… omitted from this bounded skills list": past
its bound a skill can be left out. So a skill is `full`, `shortened` or `absent`, read from the
request itself rather than predicted from a budget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skillbench.backends.replay.agent import Listing

_BLOCK = re.compile(r"<skills_instructions>(.*?)</skills_instructions>", re.DOTALL)
_ROOT = re.compile(r"^- `(r\d+)` = `(.*)`$", re.MULTILINE)
_ENTRY = re.compile(
    r"^- (?P<name>[^\n]*?)(?:: (?P<description>[^\n]*?))? \(file: (?P<file>[^\n]*)\)$"
)


@dataclass(frozen=True)
class ListedSkill:
    """One entry of the listing: its name, description as shown, and SKILL.md path (roots
    expanded)."""

    name: str
    description: str | None
    file: str

    @property
    def folder(self) -> str:
        """The skill's folder name (the path component before `/SKILL.md`)."""
        parts = self.file.rsplit("/", 2)
        return parts[-2] if len(parts) >= 2 else self.name


def _texts(body: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    for item in body.get("input") or ():
        if not isinstance(item, Mapping):
            continue
        content = item.get("content")
        if isinstance(content, str):
            found.append(content)
        for part in content if isinstance(content, list) else ():
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                found.append(part["text"])
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        found.append(instructions)
    return found


def listing_block(body: Mapping[str, Any]) -> str | None:
    """The `<skills_instructions>` block of the request, if any."""
    for text in _texts(body):
        match = _BLOCK.search(text)
        if match is not None:
            return match.group(0)
    return None


_parsed: dict[int, tuple[Any, list[ListedSkill]]] = {}


def parse_listing(body: Mapping[str, Any]) -> list[ListedSkill]:
    """The listed skills in order, their `rN/…` paths expanded with the roots table. Read once
    per developer message holding the listing: every query's body of a template shares it
    (`ReplayTemplate.body_for` copies only what leads to the query and the date)."""
    items = [i for i in body.get("input") or () if isinstance(i, Mapping)]
    holder = next((i for i in items if "<skills_instructions>" in json_text(i)), None)
    if holder is not None:
        known = _parsed.get(id(holder))
        if known is not None and known[0] is holder:
            return known[1]
    found = _parse(body)
    if holder is not None:
        if len(_parsed) >= 64:
            _parsed.clear()
        _parsed[id(holder)] = (holder, found)
    return found


def json_text(item: Mapping[str, Any]) -> str:
    """The texts of one input item, joined (what `_texts` reads of it)."""
    return "".join(_texts({"input": [item]}))


def _parse(body: Mapping[str, Any]) -> list[ListedSkill]:
    block = listing_block(body)
    if block is None:
        return []
    roots = dict(_ROOT.findall(block))
    _, _, listed = block.partition("### Available skills")
    found: list[ListedSkill] = []
    for line in listed.splitlines():
        match = _ENTRY.match(line.strip())
        if match is None:
            continue
        file = match.group("file")
        short, _, rest = file.partition("/")
        if short in roots:
            file = f"{roots[short]}/{rest}"
        found.append(ListedSkill(match.group("name"), match.group("description"), file))
    return found


def codex_listing(body: Mapping[str, Any]) -> Listing:
    """The listing as a `Listing` (no budget figure: see the module docstring)."""
    block = listing_block(body) or ""
    return Listing(
        shown={e.name: e.description for e in parse_listing(body)},
        chars=len(block),
        budget=None,
    )
