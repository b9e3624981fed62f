"""What the model saw: how Claude Code listed the target skill, and the listing budget.

Claude Code lists skills in one text block of its first request ("The following skills are
available for use with the Skill tool:"; a `<system-reminder>` in the first user message for most
models, after the agent types for opus-4-8), one `- name: description` line each. Its rule
(2.1.197, read from its source and checked byte for byte against real captures):

- every skill is named by its **folder name**; `disable-model-invocation: true` skills are left
  out; the text is the description, `" - " + when_to_use` appended when present, cut to 1,536
  UTF-16 units (the last one `…`);
- the budget is `SLASH_COMMAND_TOOL_CHAR_BUDGET` when set, else 1 % of the model's context
  window times its bytes per token (4 for models up to sonnet-4-6 / haiku-4-5 / opus-4-6, 3 for
  later ones): 8,000 for haiku-4-5 and sonnet-4-6, 6,000 for opus-4-7 and opus-4-8, 30,000 for
  opus-4-8[1m], 40,000 for sonnet-4-6[1m];
- a user skill named like a bundled skill replaces it (the bundled one is dropped); one named
  like another built-in (`init`, `review`, `security-review`) is listed beside it;
- a SKILL.md starting with a UTF-8 BOM has no frontmatter for the CLI (`---` must open the
  file): its description is the first line, `---`;
- widths are terminal columns (`Bun.stringWidth`: a CJK character counts 2, a newline 0), entries
  joined by newlines. When everything fits, everything is shown. Otherwise the CLI's bundled
  skills keep their whole line, every other skill starts as a bare name, and going through them
  in listing order (user skills by folder name, then the other built-ins; a fresh install has no
  usage history to reorder them) a description is added whenever it still fits what is left —
  a long one is skipped, a later short one may still fit. The listing may end up longer than the
  budget (the bundled lines alone can exceed it).

With the replay harness (and the claude-code backend, which captures the same request) the
listing is read from the captured request itself and the budget from the CLI's own debug log
(`from_request`); `estimate` applies the rule above for harnesses without a capture.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skillbench.backends.base import SkillEntry
from skillbench.backends.skill_install import CliSkill, cli_name, cli_skills
from skillbench.schemas.trigger import HarnessInfo, ListingInfo, TriggerReport

LISTING_MARKER = "The following skills are available for use with the Skill tool:"
BUDGET_ENV = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
ENTRY_CAP = 1536
BUDGET_FRACTION = 0.01
#: The model whose budget an estimate uses when the judge names no Claude model (a proxy, or the
#: CLI's default before it reported one): the anthropic backend's default, haiku-4-5 (8,000).
DEFAULT_MODEL = "claude-haiku-4-5"
#: Models Claude Code 2.1.197 counts at 4 bytes per token (all others: 3).
FOUR_BYTE_MODELS = frozenset(
    {
        "claude-3-opus",
        "claude-3-sonnet",
        "claude-3-haiku",
        "claude-3-5-sonnet",
        "claude-3-5-haiku",
        "claude-3-7-sonnet",
        "claude-opus-4-0",
        "claude-opus-4-1",
        "claude-opus-4-5",
        "claude-opus-4-6",
        "claude-sonnet-4-0",
        "claude-sonnet-4-5",
        "claude-sonnet-4-6",
        "claude-haiku-4-5",
    }
)
#: Claude Code 2.1.197's built-in skills after the user's, as (name, width of the whole line,
#: bundled: always listed whole), measured from captures (the same for haiku-4-5, sonnet-4-6,
#: opus-4-7 and opus-4-8). Only `estimate` uses it; captures need no table.
BUILTINS_2_1_197: tuple[tuple[str, int, bool], ...] = (
    ("deep-research", 487, True),
    ("update-config", 707, True),
    ("keybindings-help", 248, True),
    ("verify", 260, True),
    ("code-review", 361, True),
    ("simplify", 188, True),
    ("fewer-permission-prompts", 191, True),
    ("loop", 314, True),
    ("claude-api", 1080, True),
    ("run", 368, True),
    ("init", 67, False),
    ("review", 78, False),
    ("security-review", 90, False),
)
HOW = {
    "full": "listed with its full description",
    "truncated": "listed with a truncated description",
    "name-only": "listed by name only",
    "absent": "not listed",
    "not-applicable": "not applicable (offline proxy)",
}
_LINE = re.compile(r"^- (.+?)(?:: (.*))?$")
_DATE_SUFFIX = re.compile(r"-\d{8}$")


# -- the CLI's rule --------------------------------------------------------------------------


def string_width(text: str) -> int:
    """Terminal columns of `text` as `Bun.stringWidth` counts them (ambiguous = narrow):
    wide and full-width characters 2, combining marks and control characters 0, others 1."""
    if text.isascii() and text.isprintable():  # every character one column: no lookup
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf", "Cc"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def is_cut(description: str, when_to_use: str | None = None) -> bool:
    """True when the CLI cuts this entry's text at `ENTRY_CAP`."""
    return _units(f"{description} - {when_to_use}" if when_to_use else description) > ENTRY_CAP


def entry_text(description: str, when_to_use: str | None = None) -> str:
    """The text after `- name: `: the description, `" - " + when_to_use` appended, cut to
    `ENTRY_CAP` UTF-16 units (the last one `…`) as the CLI cuts it."""
    text = f"{description} - {when_to_use}" if when_to_use else description
    if _units(text) > ENTRY_CAP:
        units = text.encode("utf-16-le")
        text = units[: (ENTRY_CAP - 1) * 2].decode("utf-16-le", errors="ignore") + "…"
    return text


@dataclass(frozen=True)
class Listed:
    """One skill to list: its name, the whole line's width and whether it is always whole."""

    name: str
    line: str
    bundled: bool = False

    @property
    def width(self) -> int:
        return string_width(self.line)


def shown_descriptions(entries: Sequence[Listed], budget: int) -> list[bool]:
    """For each entry (listing order), whether Claude Code shows its description (port of
    2.1.197's listing function; see the module docstring)."""
    widths = [e.width for e in entries]
    if sum(widths) + max(0, len(entries) - 1) <= budget:
        return [True] * len(entries)
    bare = [string_width(e.name) + 2 for e in entries]
    used = sum(w if e.bundled else b for e, w, b in zip(entries, widths, bare, strict=True))
    room = budget - used - max(0, len(entries) - 1)
    shown = [e.bundled for e in entries]
    for index, entry in enumerate(entries):
        if entry.bundled:
            continue
        extra = widths[index] - bare[index]
        if extra <= room:
            shown[index] = True
            room -= extra
    return shown


def render_listing(entries: Sequence[Listed], budget: int) -> str:
    """The listing text Claude Code would send (without the marker)."""
    shown = shown_descriptions(entries, budget)
    return "\n".join(
        e.line if show else f"- {e.name}" for e, show in zip(entries, shown, strict=True)
    )


def listed(skill: CliSkill) -> Listed:
    """A user skill's listing entry."""
    return Listed(skill.name, f"- {skill.name}: {entry_text(skill.description, skill.when_to_use)}")


def builtin_entries(names: set[str]) -> list[Listed]:
    """Claude Code's built-in skills listed after the user's (`BUILTINS_2_1_197`, only widths
    matter): a bundled one is dropped when a user skill has its name, other built-ins stay."""
    return [Listed(n, "x" * w, b) for n, w, b in BUILTINS_2_1_197 if not (b and n in names)]


def cli_budget(model: str, env: Mapping[str, str] | None = None) -> tuple[int, str]:
    """(characters, how) of Claude Code 2.1.197's listing budget for `model` without a capture:
    `SLASH_COMMAND_TOOL_CHAR_BUDGET`, else context window × bytes per token × 1 %."""
    source = os.environ if env is None else env
    raw = (source.get(BUDGET_ENV) or "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw), BUDGET_ENV
    lowered = model.lower()
    window = 1_000_000 if "[1m]" in lowered else 200_000
    family = _DATE_SUFFIX.sub("", lowered.split("[", 1)[0].strip())
    per_token = 4 if family in FOUR_BYTE_MODELS else 3
    budget = max(1, int(window * per_token * BUDGET_FRACTION))
    return budget, f"Claude Code's rule: 1% of {window:,} tokens × {per_token} bytes per token"


# -- reading a captured request ------------------------------------------------------------


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        ]
    return []


def listing_text(body: Mapping[str, Any]) -> str | None:
    """The text block of a captured request (system or messages) holding the skill listing."""
    texts = _texts(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            texts.extend(_texts(message.get("content")))
    for text in texts:
        if LISTING_MARKER in text:
            return text
    return None


def listing_content(text: str) -> str:
    """The listing itself: the lines after the marker, up to the end of the reminder."""
    start = text.find(LISTING_MARKER)
    body = text[start + len(LISTING_MARKER) :] if start >= 0 else text
    return body.removeprefix("\n\n").split("\n</system-reminder>", 1)[0]


def parse_listing(text: str) -> list[tuple[str, str | None]]:
    """(name, description or None for a bare name) for every listed skill, in order.

    A description may run over several lines (built-in skills do); continuation lines are
    joined to the entry above. Names may hold spaces (a folder name is any name)."""
    entries: list[tuple[str, str | None]] = []
    for line in listing_content(text).split("\n"):
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
    budget = f"{info.budget_chars:,} characters" if info.budget_chars else "not logged"
    what = {
        "name-only": f"{name!r} was listed by name only: the model never saw its description",
        "truncated": f"{name!r} was listed with a truncated description",
        "absent": f"{name!r} was not listed at all",
    }[info.target]
    return (
        f"LISTING: in Claude Code's skill listing {what} (skill listing budget {budget}, "
        f"{info.budget_source}). Trigger rates measured this way describe what was shown, not "
        "the description. Use fewer or shorter catalog skills (--catalog), a shorter "
        f"description, or raise {BUDGET_ENV}."
    )


def _target_skill(target: SkillEntry) -> CliSkill | None:
    try:
        return cli_skills(target, ())[0]
    except Exception:  # an unreadable folder: the capture reported it already
        return None


def from_request(
    body: Mapping[str, Any],
    target: SkillEntry,
    *,
    budget: int | None = None,
    env: Mapping[str, str] | None = None,
) -> ListingInfo:
    """How the captured request listed `target` (by its folder name, as the CLI names it).

    `budget` is what the CLI logged during the capture (it logs it only when the listing went
    over); otherwise the budget is `SLASH_COMMAND_TOOL_CHAR_BUDGET` when set, or unknown (the
    listing fit, so nothing was cut)."""
    source = os.environ if env is None else env
    if budget is not None:
        how = "logged by Claude Code during the capture"
    elif (source.get(BUDGET_ENV) or "").strip().isdigit() and int(source[BUDGET_ENV]) > 0:
        budget, how = int(source[BUDGET_ENV]), BUDGET_ENV
    else:
        how = "not logged: the whole listing fit within Claude Code's budget"
    text = listing_text(body)
    entries = parse_listing(text) if text is not None else []
    name = cli_name(target)
    shown = next((e for e in entries if e[0] == name), None)
    skill = _target_skill(target)
    expected = entry_text(skill.description, skill.when_to_use) if skill else target.description
    if shown is None:
        state = "absent"
    elif shown[1] is None:
        state = "name-only"
    elif shown[1] == expected and skill is not None:
        state = "truncated" if is_cut(skill.description, skill.when_to_use) else "full"
    else:
        state = classify(shown[1], target.description)
    info = ListingInfo(
        target=state,
        budget_chars=budget,
        budget_source=how,
        listing_chars=string_width(listing_content(text)) if text is not None else None,
        listed_full=sum(1 for _, d in entries if d is not None),
        listed_name_only=sum(1 for _, d in entries if d is None),
        source="captured-request",
        shown=None
        if shown is None
        else (f"- {shown[0]}" + (f": {shown[1]}" if shown[1] else ""))[:600],
    )
    info.warning = warning_for(info, name)
    return info


def estimate(
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    model: str,
    env: Mapping[str, str] | None = None,
) -> ListingInfo:
    """What Claude Code 2.1.197 would list for `target` among `catalog`, without a capture:
    its rule applied to the skills as it would load them (folder names, disabled skills left
    out, `when_to_use`) and its built-in skills (`BUILTINS_2_1_197`)."""
    budget, how = cli_budget(model, env)
    skills = [s for s in cli_skills(target, catalog) if not s.disabled]
    entries = [listed(s) for s in skills]
    builtin = builtin_entries({s.name for s in skills})
    shown = shown_descriptions([*entries, *builtin], budget)
    user_shown = shown[: len(entries)]
    index = next((i for i, s in enumerate(skills) if s.target), None)
    if index is None:
        state = "absent"
    elif not user_shown[index]:
        state = "name-only"
    else:
        state = (
            "truncated" if is_cut(skills[index].description, skills[index].when_to_use) else "full"
        )
    full = sum(user_shown) + sum(shown[len(entries) :])
    info = ListingInfo(
        target=state,
        budget_chars=budget,
        budget_source=how,
        listed_full=full,
        listed_name_only=len(shown) - full,
        source="estimate",
    )
    info.warning = warning_for(info, cli_name(target))
    return info


# -- report lines -----------------------------------------------------------------------------


def listing_phrase(info: ListingInfo) -> str:
    """What the model saw of the target, e.g. `target listed by name only; budget 8,000
    characters (logged by Claude Code during the capture) [captured-request]`."""
    budget = ""
    if info.budget_chars:
        budget = f"; budget {info.budget_chars:,} characters ({info.budget_source})"
    elif info.budget_source:
        budget = f"; budget {info.budget_source}"
    return f"target {HOW[info.target]}{budget} [{info.source}]"


CLI_MODE_PHRASE = {"interactive": "interactive CLI", "print": "print mode, claude -p"}


def harness_phrase(report: TriggerReport) -> str | None:
    """`replay (Claude Code's own request, interactive CLI)` / `minimal (NOT Claude Code's
    request)`, or None (`harness_line`)."""
    return harness_line(report.harness) if report.harness is not None else None


def harness_line(h: HarnessInfo) -> str:
    """The harness, whose request it sends and, with a Claude Code CLI, the CLI's mode."""
    whose = "Claude Code's own request" if h.claude_code_request else "NOT Claude Code's request"
    if h.cli_mode is not None:
        whose += f", {CLI_MODE_PHRASE.get(h.cli_mode, h.cli_mode)}"
    if h.cache_before_query:
        whose += ", + 1 cache breakpoint before the query"
    if h.as_user:
        whose += f", {h.as_user}"
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
