"""What the model saw: how Claude Code listed the target skill, and the listing budget.

Claude Code lists skills in one text block of its first request ("The following skills are
available for use with the Skill tool:"; a `<system-reminder>` in the first user message for most
models, after the agent types for opus-4-8), one `- name: description` line each, by the
procedure of `backends.anthropic.listing_rules` (every skill named by its folder, `folder (name)`
where the CLI shows a frontmatter name; descriptions shed past the listing budget).

With the replay harness (and the claude-code backend, which captures the same request) the
listing is read from the captured request itself and the budget from the CLI's own debug log
(`from_request`). Without a capture, `estimate` applies the listing rules of the CLI in use, read
from it by calibration captures (`listing_calibration.rules_for_judge`), or 2.1.197's tabled
rules where no CLI is in use (`listing_rules.table_rules`); the report names which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillbench.backends.anthropic.listing_rules import (  # noqa: F401  (re-exported)
    BUDGET_ENV,
    BUDGET_FRACTION,
    BUILTINS_2_1_197,
    DEFAULT_MODEL,
    ENTRY_CAP,
    FOUR_BYTE_MODELS,
    LISTING_MARKER,
    UNLIMITED,
    Listed,
    ListingRules,
    captured_state,
    entry_text,
    env_budget,
    is_cut,
    listing_content,
    listing_text,
    parse_listing,
    render_listing,
    shown_descriptions,
    string_width,
    table_rules,
)
from skillbench.backends.base import SkillEntry
from skillbench.backends.skill_install import CliSkill, cli_name
from skillbench.schemas.trigger import HarnessInfo, ListingInfo, TriggerReport

HOW = {
    "full": "listed with its full description",
    "truncated": "listed with a truncated description",
    "name-only": "listed by name only",
    "absent": "not listed",
    "not-applicable": "not applicable (offline proxy)",
}


def cli_budget(
    model: str, env: Mapping[str, str] | None = None, rules: ListingRules | None = None
) -> tuple[int | None, str]:
    """(characters, how) of Claude Code's listing budget for `model` without a capture:
    `SLASH_COMMAND_TOOL_CHAR_BUDGET`, else the budget of `rules` (default: 2.1.197's table,
    context window × bytes per token × 1 %); None when the CLI's rules do not know it."""
    return (rules or table_rules(model)).budget_for(env)


# -- reading a captured request ------------------------------------------------------------


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


def _target_skill(target: SkillEntry, rules: ListingRules) -> CliSkill | None:
    try:
        return rules.skills(target, ())[0]
    except Exception:  # an unreadable folder: the capture reported it already
        return None


def listed_entry(
    entries: Sequence[tuple[str, str | None]], name: str
) -> tuple[str, str | None] | None:
    """The entry of the skill in folder `name`: listed as `name`, or as `name (frontmatter
    name)` where the CLI shows one (2.1.332)."""
    exact = next((e for e in entries if e[0] == name), None)
    if exact is not None:
        return exact
    return next((e for e in entries if e[0].startswith(f"{name} (") and e[0][-1] == ")"), None)


def from_request(
    body: Mapping[str, Any],
    target: SkillEntry,
    *,
    budget: int | None = None,
    env: Mapping[str, str] | None = None,
    rules: ListingRules | None = None,
) -> ListingInfo:
    """How the captured request listed `target` (by its folder name, as the CLI names it).

    `budget` is what the CLI logged during the capture (it logs it only when the listing went
    over); otherwise the budget is `SLASH_COMMAND_TOOL_CHAR_BUDGET` when set, or unknown (the
    listing fit, so nothing was cut). `rules` (default: 2.1.197's table) say how the CLI reads
    and cuts the target's entry."""
    rules = rules or table_rules(DEFAULT_MODEL)
    from_env = env_budget(env)
    if budget is not None:
        how = "logged by Claude Code during the capture"
    elif from_env is not None:
        budget, how = from_env, BUDGET_ENV
    else:
        how = "not logged: the whole listing fit within Claude Code's budget"
    text = listing_text(body)
    entries = parse_listing(text) if text is not None else []
    name = cli_name(target)
    shown = listed_entry(entries, name)
    skill = _target_skill(target, rules)
    state = "absent" if shown is None else captured_state(shown[1], skill, rules)
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
    rules: ListingRules | None = None,
) -> ListingInfo:
    """What Claude Code would list for `target` among `catalog`, without a capture: the
    listing rules of the CLI in use (`rules`, read from it; default: 2.1.197's table) applied
    to the skills as that CLI loads them. A budget the rules do not know (the CLI logged none
    for a listing larger than any measured) lists everything."""
    rules = rules or table_rules(model)
    budget, how = rules.budget_for(env)
    skills = rules.skills(target, catalog)
    shown = rules.shown(skills, budget if budget is not None else UNLIMITED)
    states = rules.states(skills, 0, shown)
    index = next((s for s in skills if s.target), None)
    info = ListingInfo(
        target=states[index.name] if index is not None else "absent",
        budget_chars=budget,
        budget_source=how,
        listed_full=sum(shown),
        listed_name_only=len(shown) - sum(shown),
        source="estimate",
        rules=rules.label(),
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
