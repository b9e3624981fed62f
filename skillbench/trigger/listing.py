"""What the model saw: how Claude Code listed the target skill, and the listing budget.

Claude Code lists skills in a `<system-reminder>` of the first user message ("The following
skills are available for use with the Skill tool:"), one `- name: description` line each, within a
character budget of 1 % of the model's context window (about 4 characters per token for 200k
models: 8,000 characters for haiku-4-5 and sonnet-4-6; 3 for 1M-context ones: 30,000), which
`SLASH_COMMAND_TOOL_CHAR_BUDGET` overrides. Past the budget, skills are listed by bare name: the
model never sees their description. Entries are capped at 1,536 characters.

With the replay harness the listing is read from the captured request itself
(`from_request`); other harnesses get an estimate of what Claude Code would do (`estimate`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from skillbench.backends.base import SkillEntry
from skillbench.schemas.trigger import ListingInfo, TriggerReport

LISTING_MARKER = "The following skills are available for use with the Skill tool:"
BUDGET_ENV = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
ENTRY_CAP = 1536
#: Characters Claude Code 2.1.197's built-in skill lines take from the budget (measured from
#: captures: ~4,100 of the 8,000).
BUILTIN_CHARS = 4100
HOW = {
    "full": "listed with its full description",
    "truncated": "listed with a truncated description",
    "name-only": "listed by name only",
    "absent": "not listed",
    "not-applicable": "not applicable (offline proxy)",
}
_LINE = re.compile(r"^- ([^\s:]+)(?:: (.*))?$")


def context_window(model: str) -> int:
    """Tokens of context Claude Code assumes for `model` (1M for `[1m]` and opus-4-8+)."""
    lowered = model.lower()
    if "[1m]" in lowered or "opus-4-8" in lowered:
        return 1_000_000
    return 200_000


def listing_budget(model: str, env: Mapping[str, str] | None = None) -> tuple[int, str]:
    """(characters, how it was found) of the skill listing budget for `model`."""
    source = os.environ if env is None else env
    raw = (source.get(BUDGET_ENV) or "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw), BUDGET_ENV
    window = context_window(model)
    chars_per_token = 3 if window > 200_000 else 4
    return window * chars_per_token // 100, f"1% of {window:,}-token context window"


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        ]
    return []


def listing_text(body: Mapping[str, Any]) -> str | None:
    """The skill listing block of a captured request (system or messages), or None."""
    texts = _texts(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            texts.extend(_texts(message.get("content")))
    for text in texts:
        if LISTING_MARKER in text:
            return text
    return None


def parse_listing(text: str) -> list[tuple[str, str | None]]:
    """(name, description or None for a bare name) for every listed skill, in order.

    A description may run over several lines (built-in skills do); continuation lines are
    joined to the entry above."""
    start = text.find(LISTING_MARKER)
    body = text[start + len(LISTING_MARKER) :] if start >= 0 else text
    body = body.split("</system-reminder>", 1)[0]
    entries: list[tuple[str, str | None]] = []
    for line in body.splitlines():
        match = _LINE.match(line)
        if match:
            entries.append((match.group(1), match.group(2)))
        elif entries and line.strip() and entries[-1][1] is not None:
            name, description = entries[-1]
            entries[-1] = (name, f"{description}\n{line}")
    return entries


def classify(shown: str | None, expected: str) -> str:
    """`full`, `truncated` or `name-only` for one listed entry."""
    if shown is None:
        return "name-only"
    if shown.strip() == expected.strip() or shown.strip().startswith(expected.strip()):
        return "full"
    return "truncated"


def warning_for(info: ListingInfo, name: str) -> str | None:
    """The loud warning when the target was not listed with its full description."""
    if info.target in ("full", "not-applicable"):
        return None
    budget = f"{info.budget_chars:,}" if info.budget_chars else "?"
    what = {
        "name-only": f"{name!r} was listed by name only: the model never saw its description",
        "truncated": f"{name!r} was listed with a truncated description",
        "absent": f"{name!r} was not listed at all",
    }[info.target]
    return (
        f"LISTING: in Claude Code's skill listing {what} (skill listing budget {budget} characters, "
        f"{info.budget_source}). Trigger rates measured this way describe what was shown, not "
        "the description. Use fewer or shorter catalog skills (--catalog), a shorter "
        f"description, or raise {BUDGET_ENV}."
    )


def from_request(body: Mapping[str, Any], target: SkillEntry, model: str) -> ListingInfo:
    """How the captured request listed `target` (the replay harness)."""
    budget, source = listing_budget(model)
    text = listing_text(body)
    entries = parse_listing(text) if text is not None else []
    shown = next((e for e in entries if e[0] == target.name), None)
    state = "absent" if shown is None else classify(shown[1], target.description)
    info = ListingInfo(
        target=state,
        budget_chars=budget,
        budget_source=source,
        listing_chars=len(text) if text is not None else None,
        listed_full=sum(1 for _, d in entries if d is not None),
        listed_name_only=sum(1 for _, d in entries if d is None),
        source="captured-request",
        shown=None
        if shown is None
        else (f"- {shown[0]}" + (f": {shown[1]}" if shown[1] else ""))[:600],
    )
    info.warning = warning_for(info, target.name)
    return info


def estimate(target: SkillEntry, catalog: Sequence[SkillEntry], model: str) -> ListingInfo:
    """What Claude Code would list for `target` among `catalog`: an estimate of its rule as
    observed on 2.1.197 (built-ins reserved first; every skill gets at least its name; going
    alphabetically, a skill's description is shown when it still fits the remaining budget)."""
    budget, source = listing_budget(model)
    skills = sorted({s.name: s for s in (target, *catalog)}.values(), key=lambda s: s.name)
    remaining = budget - BUILTIN_CHARS - len(LISTING_MARKER)
    remaining -= sum(len(f"- {s.name}") + 1 for s in skills)
    shown: dict[str, bool] = {}
    for skill in skills:
        extra = len(": ") + len(skill.description[:ENTRY_CAP])
        shown[skill.name] = extra <= remaining
        if shown[skill.name]:
            remaining -= extra
    full = sum(shown.values())
    state = "full" if shown[target.name] else "name-only"
    if state == "full" and len(target.description) > ENTRY_CAP:
        state = "truncated"
    info = ListingInfo(
        target=state,
        budget_chars=budget,
        budget_source=source,
        listed_full=full,
        listed_name_only=len(skills) - full,
        source="estimate",
    )
    info.warning = warning_for(info, target.name)
    return info


def listing_phrase(info: ListingInfo) -> str:
    """What the model saw of the target, e.g. `target listed by name only; budget 8,000
    characters (1% of 200,000-token context window) [captured-request]`."""
    budget = ""
    if info.budget_chars:
        budget = f"; budget {info.budget_chars:,} characters ({info.budget_source})"
    return f"target {HOW[info.target]}{budget} [{info.source}]"


def harness_phrase(report: TriggerReport) -> str | None:
    """`replay (Claude Code's own request)` / `minimal (NOT Claude Code's request)`, or None."""
    h = report.harness
    if h is None:
        return None
    whose = "Claude Code's own request" if h.claude_code_request else "NOT Claude Code's request"
    if h.cache_before_query:
        whose += ", + 1 cache breakpoint before the query"
    return f"{h.name} ({whose})"


def catalog_line(report: TriggerReport) -> str | None:
    """`catalog <source>: N skill(s), sha256 …  (names…)`, or None when not recorded."""
    c = report.catalog
    if c is None:
        return None
    digest = f", sha256 {c.sha256[:12]}" if c.sha256 else ""
    names = ", ".join(c.skills[:12]) + (", ..." if len(c.skills) > 12 else "")
    return f"catalog {c.source}: {len(c.skills)} skill(s){digest}" + (
        f" ({names})" if names else ""
    )


def listing_lines(report: TriggerReport) -> list[str]:
    """The harness, what the model saw of the target (and the budget) and the catalog, as
    plain lines."""
    lines: list[str] = []
    harness = harness_phrase(report)
    if harness is not None:
        lines.append(f"harness: {harness}")
    if report.listing is not None:
        lines.append(f"listing: {listing_phrase(report.listing)}")
    catalog = catalog_line(report)
    if catalog is not None:
        lines.append(catalog)
    return lines
