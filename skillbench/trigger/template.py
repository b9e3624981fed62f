"""A first trigger eval set to fill in (`skillbench init --trigger SKILL_DIR`).

`trigger_template(skill)` is a seed 001 Format B document: should-trigger slots (exact intent,
paraphrase, partial intent with context, short, long) and should-not-trigger slots that are near
misses: requests sharing words with the skill's description but asking for something else, and,
for each neighbouring skill in the same folder (those whose descriptions share the most words),
a request that belongs to that skill. Each slot's `note` says what to write there.

A slot's query starts with `SLOT_MARK` until it is filled; `evalset.load_eval_set` refuses a
file still holding one (exit 2, naming the file and the slot), so an unfilled template is never
measured.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from skillbench.backends.offline.lexical import STOPWORDS
from skillbench.errors import InputError
from skillbench.skill import Skill
from skillbench.trigger.evalset import SLOT_MARK

DEFAULT_NAME = Path("evals") / "trigger.json"
"""Where the template goes inside the skill folder (where `library` looks for a skill's set)."""
MAX_NEIGHBOURS = 3
"""Neighbouring skills given a near-miss slot of their own."""
KEYWORDS = 5
_WORD = re.compile(r"[a-z0-9][a-z0-9-]*[a-z0-9]")

SHOULD = (
    ("exact-intent", "the request this skill is for, said plainly"),
    ("paraphrase", "the same intent in other words (none of the description's key words)"),
    ("partial-context", "a request where the need is part of a larger task, with its context"),
    ("short", "a terse request of a few words, as people type them"),
    ("long", "a detailed paragraph with file names, numbers and constraints"),
)


def keywords(text: str, limit: int = KEYWORDS) -> list[str]:
    """The description's most frequent content words (stopwords and short words left out)."""
    words = [w for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in STOPWORDS]
    return [word for word, _ in Counter(words).most_common(limit)]


def neighbours(skill: Skill, limit: int = MAX_NEIGHBOURS) -> list[Skill]:
    """The other skills in the skill's parent folder whose descriptions share the most words
    with its own (a folder that is no skill, or fails to load, is left out)."""
    own = set(keywords(skill.description, 50))
    found: list[tuple[int, str, Skill]] = []
    for folder in sorted(p for p in skill.path.parent.iterdir() if p.is_dir()):
        if folder.resolve() == skill.path.resolve() or not (folder / "SKILL.md").is_file():
            continue
        try:
            other = Skill.load(folder)
        except (InputError, OSError):
            continue
        shared = len(own & set(keywords(other.description, 50)))
        found.append((-shared, other.name, other))
    return [other for _, _, other in sorted(found, key=lambda f: f[:2])[:limit]]


def _slot(what: str) -> str:
    return f"{SLOT_MARK} {what}>"


def trigger_template(skill: Skill) -> dict[str, Any]:
    """The eval set to fill in for `skill` (see the module docstring)."""
    words = keywords(skill.description)
    shown = ", ".join(f"'{w}'" for w in words) or "the description's words"
    evals: list[dict[str, Any]] = [
        {
            "query": _slot(f"a request {skill.name} must handle: {what}"),
            "should_trigger": True,
            "family": family,
            "note": "should trigger. Write it as a user would type it, not in the "
            "description's words"
            + (f" (the description: {skill.description.strip()})" if i == 0 else ""),
        }
        for i, (family, what) in enumerate(SHOULD)
    ]
    near = (
        ("shared-words", f"a request using {shown} that asks for something else"),
        ("out-of-scope", "a related task just outside what the skill does"),
        ("surface-pattern", "a generic request with the same shape (same verb, another object)"),
    )
    evals.extend(
        {
            "query": _slot(f"a near miss for {skill.name}: {what}"),
            "should_trigger": False,
            "family": f"near-miss:{family}",
            "note": "should NOT trigger: a near miss shares words or shape with the "
            "should-trigger queries but needs another skill or none; an unrelated request "
            "(the weather) tests nothing",
        }
        for family, what in near
    )
    evals.extend(
        {
            "query": _slot(f"a request for the neighbouring skill {other.name}"),
            "should_trigger": False,
            "family": f"neighbour:{other.name}",
            "note": f"should NOT trigger: it belongs to {other.name} ({other.description.strip()})",
        }
        for other in neighbours(skill)
    )
    return {"evals": evals}
