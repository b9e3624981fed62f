"""What Claude Code's skill listing shows of a whole library, and what would show it all.

Per skill: listed in full, truncated (its entry cut at 1,536 characters), by name only (past the
listing budget) or absent (`disable-model-invocation`). Read from the captured request when the
replay harness captured one, else Claude Code's rule applied (`trigger.listing`, the same port
the single-skill report uses). The what-if applies the rule at other budgets
(`SLASH_COMMAND_TOOL_CHAR_BUDGET`), and finds the per-skill cut: the longest description that
lists every skill in full when every longer one is cut to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.install import CliSkill, cli_name, cli_skills
from skillbench.library.document import BudgetWhatIf, LibraryListing, ListedSkill, ListingState
from skillbench.trigger import listing as rule

WHAT_IF_BUDGETS = (4_000, 8_000, 16_000, 30_000)


def library_skills(entries: Sequence[SkillEntry]) -> list[CliSkill]:
    """The library as Claude Code loads it, in listing order."""
    return cli_skills(entries[0], entries[1:]) if entries else []


def states_at(skills: Sequence[CliSkill], budget: int) -> dict[str, ListingState]:
    """Claude Code's rule at `budget`: each skill's state, by its folder name."""
    shown_skills = [s for s in skills if not s.disabled]
    lines = [rule.listed(s) for s in shown_skills]
    builtin = rule.builtin_entries({s.name for s in shown_skills})
    shown = rule.shown_descriptions([*lines, *builtin], budget)
    states: dict[str, ListingState] = {s.name: "absent" for s in skills if s.disabled}
    for skill, visible in zip(shown_skills, shown, strict=False):
        if not visible:
            states[skill.name] = "name-only"
        elif rule.is_cut(skill.description, skill.when_to_use):
            states[skill.name] = "truncated"
        else:
            states[skill.name] = "full"
    return states


def full_width(skills: Sequence[CliSkill]) -> int:
    """Columns the listing takes with every entry whole (skills and built-ins, newlines)."""
    shown = [rule.listed(s) for s in skills if not s.disabled]
    lines = [*shown, *rule.builtin_entries({s.name for s in skills if not s.disabled})]
    return sum(line.width for line in lines) + len(lines) - 1


def cut_to_fit(skills: Sequence[CliSkill], budget: int) -> int | None:
    """The longest entry text (characters) such that, every longer one cut to it, Claude Code's
    rule lists every skill in full at `budget`; None when no cut does (bare names overflow)."""
    shown = [s for s in skills if not s.disabled]
    texts = [rule.entry_text(s.description, s.when_to_use) for s in shown]
    builtin = rule.builtin_entries({s.name for s in shown})

    def fits(cut: int) -> bool:
        lines = [
            rule.Listed(s.name, f"- {s.name}: {t[:cut]}") for s, t in zip(shown, texts, strict=True)
        ]
        return all(rule.shown_descriptions([*lines, *builtin], budget)[: len(lines)])

    longest = max((len(t) for t in texts), default=0)
    if fits(longest):
        return longest
    if not fits(0):
        return None
    low, high = 0, longest  # fits(low), not fits(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


def library_listing(
    entries: Sequence[SkillEntry],
    model: str,
    *,
    env: Mapping[str, str] | None = None,
    captured: Any = None,
    budgets: Sequence[int] = WHAT_IF_BUDGETS,
) -> LibraryListing:
    """The listing of the library for `model`: from `captured` (a replay template: its `body`
    and logged `listing_budget`) when given, else Claude Code's rule; with the what-if."""
    skills = library_skills(entries)
    by_folder = {cli_name(e): e.name for e in entries}
    budget, how = rule.cli_budget(model, env)
    if captured is not None:
        states: dict[str, ListingState] = {}
        for entry in entries:
            info = rule.from_request(
                captured.body, entry, budget=getattr(captured, "listing_budget", None), env=env
            )
            states[cli_name(entry)] = info.target  # type: ignore[assignment]
            if info.budget_chars:
                budget, how = info.budget_chars, info.budget_source or how
        source = "captured-request"
    else:
        states = states_at(skills, budget)
        source = "estimate"
    listed = [
        ListedSkill(
            name=by_folder.get(s.name, s.name),
            state=states.get(s.name, "absent"),
            chars=rule.listed(s).width,
        )
        for s in skills
    ]
    what_if = []
    for other in sorted({*budgets, budget}):
        at = states_at(skills, other)
        hidden = [by_folder.get(n, n) for n, state in at.items() if state == "name-only"]
        full = sum(1 for state in at.values() if state in ("full", "truncated"))
        what_if.append(BudgetWhatIf(budget_chars=other, full=full, name_only=sorted(hidden)))
    cut = cut_to_fit(skills, budget)
    shortened = []
    if cut is not None:
        shortened = [
            by_folder.get(s.name, s.name)
            for s in skills
            if not s.disabled and len(rule.entry_text(s.description, s.when_to_use)) > cut
        ]
    return LibraryListing(
        source=source,
        budget_chars=budget,
        budget_source=how,
        listing_chars=full_width(skills),
        skills=listed,
        what_if=what_if,
        cut_to_fit=cut,
        cut_skills=shortened,
    )


def as_listed(entries: Sequence[SkillEntry], listing: LibraryListing) -> list[SkillEntry]:
    """The entries as the listing shows them: a name-only skill without its description, a
    truncated one cut as Claude Code cuts it (for proxies, which read descriptions directly)."""
    state = {s.name: s.state for s in listing.skills}
    shown = []
    for entry in entries:
        how = state.get(entry.name, "full")
        if how == "full":
            shown.append(entry)
            continue
        text = rule.entry_text(entry.description) if how == "truncated" else ""
        shown.append(SkillEntry(entry.name, text, entry.body, entry.folder, entry.content_hash))
    return shown


def hidden_line(listing: LibraryListing) -> str | None:
    """The verdict's sentence on hidden skills, or None when every skill is listed in full."""
    hidden = [s.name for s in listing.skills if s.state == "name-only"]
    cut = [s.name for s in listing.skills if s.state == "truncated"]
    if not hidden and not cut:
        return None
    parts = []
    if hidden:
        parts.append(f"{len(hidden)} skill(s) listed by name only: {', '.join(hidden[:8])}")
    if cut:
        parts.append(f"{len(cut)} truncated: {', '.join(cut[:8])}")
    return "; ".join(parts) + f" (listing budget {listing.budget_chars or 0:,} characters)"
