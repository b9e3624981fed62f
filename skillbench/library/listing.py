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
from dataclasses import dataclass, replace
from typing import Any, Literal

from skillbench.backends.base import SkillEntry
from skillbench.backends.describe import CapturedRequest
from skillbench.backends.skill_install import CliSkill, cli_name, cli_skills
from skillbench.library.document import BudgetWhatIf, LibraryListing, ListedSkill, ListingState
from skillbench.trigger import listing as rule

WHAT_IF_BUDGETS = (4_000, 8_000, 16_000, 30_000)


def library_skills(entries: Sequence[SkillEntry]) -> list[CliSkill]:
    """The library as Claude Code loads it, in listing order."""
    return cli_skills(entries[0], entries[1:]) if entries else []


@dataclass(frozen=True)
class Sized(rule.Listed):
    """A listing line whose width is known (computed once, not at every look)."""

    size: int = 0

    @property
    def width(self) -> int:
        return self.size


class Lines:
    """The library's listing lines with their widths measured once: the user skills (listing
    order, disabled ones left out) and Claude Code's built-ins after them."""

    def __init__(self, skills: Sequence[CliSkill]) -> None:
        self.skills = [s for s in skills if not s.disabled]
        self.disabled = [s.name for s in skills if s.disabled]
        self.texts = [rule.entry_text(s.description, s.when_to_use) for s in self.skills]
        self.heads = [rule.string_width(s.name) + 4 for s in self.skills]  # "- " and ": "
        self.text_widths = [rule.string_width(t) for t in self.texts]
        self.lines = [
            Sized(s.name, f"- {s.name}: {t}", size=h + w)
            for s, t, h, w in zip(
                self.skills, self.texts, self.heads, self.text_widths, strict=True
            )
        ]
        self.builtin = [
            Sized(b.name, b.line, b.bundled, size=b.width)
            for b in rule.builtin_entries({s.name for s in self.skills})
        ]

    def shown(self, budget: int, lines: Sequence[rule.Listed] | None = None) -> list[bool]:
        """Whether each user skill's description is shown at `budget` (Claude Code's rule)."""
        user = list(self.lines if lines is None else lines)
        return rule.shown_descriptions([*user, *self.builtin], budget)[: len(user)]

    def states(self, budget: int) -> dict[str, ListingState]:
        states: dict[str, ListingState] = {name: "absent" for name in self.disabled}
        for skill, visible in zip(self.skills, self.shown(budget), strict=True):
            if not visible:
                states[skill.name] = "name-only"
            elif rule.is_cut(skill.description, skill.when_to_use):
                states[skill.name] = "truncated"
            else:
                states[skill.name] = "full"
        return states

    def full_width(self) -> int:
        lines = [*self.lines, *self.builtin]
        return sum(line.width for line in lines) + len(lines) - 1

    def cut_to_fit(self, budget: int) -> int | None:
        """The longest entry text (characters) such that, every longer one cut to it, every
        skill is listed in full at `budget`; None when no cut does (bare names overflow)."""
        prefix: list[Sequence[int]] = []  # width of each text's first k characters, k = 0 … len
        for text in self.texts:
            if text.isascii() and text.isprintable():  # one column a character
                prefix.append(range(len(text) + 1))
                continue
            widths = [0]
            for char in text:
                widths.append(widths[-1] + rule.string_width(char))
            prefix.append(widths)

        def fits(cut: int) -> bool:
            lines = [
                Sized(s.name, "", size=h + p[min(cut, len(p) - 1)])
                for s, h, p in zip(self.skills, self.heads, prefix, strict=True)
            ]
            return all(self.shown(budget, lines))

        longest = max((len(t) for t in self.texts), default=0)
        if fits(longest):
            return longest
        if not fits(0):
            return None
        low, high = 0, longest  # fits(low), not fits(high)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if fits(middle) else (low, middle)
        return low


def states_at(skills: Sequence[CliSkill], budget: int) -> dict[str, ListingState]:
    """Claude Code's rule at `budget`: each skill's state, by its folder name."""
    return Lines(skills).states(budget)


def full_width(skills: Sequence[CliSkill]) -> int:
    """Columns the listing takes with every entry whole (skills and built-ins, newlines)."""
    return Lines(skills).full_width()


def cut_to_fit(skills: Sequence[CliSkill], budget: int) -> int | None:
    """See `Lines.cut_to_fit`."""
    return Lines(skills).cut_to_fit(budget)


def captured_states(body: Any, entries: Sequence[SkillEntry]) -> dict[str, ListingState]:
    """Each skill's state in a captured request's listing (parsed once), by folder name."""
    text = rule.listing_text(body)
    shown = dict(rule.parse_listing(text)) if text is not None else {}
    states: dict[str, ListingState] = {}
    for skill in library_skills(entries):
        name = skill.name
        if name not in shown:
            states[name] = "absent"
        elif shown[name] is None:
            states[name] = "name-only"
        elif shown[name] == rule.entry_text(skill.description, skill.when_to_use):
            states[name] = (
                "truncated" if rule.is_cut(skill.description, skill.when_to_use) else "full"
            )
        else:
            states[name] = rule.classify(shown[name], skill.description)  # type: ignore[assignment]
    return states


def library_listing(
    entries: Sequence[SkillEntry],
    model: str,
    *,
    env: Mapping[str, str] | None = None,
    captured: CapturedRequest | None = None,
    budgets: Sequence[int] = WHAT_IF_BUDGETS,
) -> LibraryListing:
    """The listing of the library for `model`: from `captured` (a replay template: its `body`
    and logged `listing_budget`) when given, else Claude Code's rule; with the what-if."""
    skills = library_skills(entries)
    lines = Lines(skills)
    by_folder = {cli_name(e): e.name for e in entries}
    budget, how = rule.cli_budget(model, env)
    if captured is not None and entries:
        info = rule.from_request(captured.body, entries[0], budget=captured.listing_budget, env=env)
        if info.budget_chars:
            budget, how = info.budget_chars, info.budget_source or how
        states = captured_states(captured.body, entries)
        source: Literal["captured-request", "estimate"] = "captured-request"
    else:
        states = lines.states(budget)
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
        at = lines.states(other)
        hidden = [by_folder.get(n, n) for n, state in at.items() if state == "name-only"]
        cut_off = [by_folder.get(n, n) for n, state in at.items() if state == "truncated"]
        full = sum(1 for state in at.values() if state == "full")
        what_if.append(
            BudgetWhatIf(
                budget_chars=other, full=full, truncated=sorted(cut_off), name_only=sorted(hidden)
            )
        )
    cut = lines.cut_to_fit(budget)
    shortened = []
    if cut is not None:
        cut = min(cut, rule.ENTRY_CAP)  # past the per-entry cap an entry is cut, never whole
        shortened = [
            by_folder.get(s.name, s.name)
            for s, text in zip(lines.skills, lines.texts, strict=True)
            if len(text) > cut or rule.is_cut(s.description, s.when_to_use)
        ]
    return LibraryListing(
        source=source,
        budget_chars=budget,
        budget_source=how,
        listing_chars=lines.full_width(),
        skills=listed,
        what_if=what_if,
        cut_to_fit=cut,
        cut_skills=shortened,
    )


def agent_listing(entries: Sequence[SkillEntry], view: Any) -> LibraryListing:
    """The library as another agent's captured request lists it (`view`: the template's
    `replay.agent.Listing`): each skill full, truncated, name only or absent, the agent's own
    budget when it has one; no what-if (Claude Code's budget rule is not that agent's)."""
    states: dict[str, ListingState] = {
        "full": "full",
        "shortened": "truncated",
        "name-only": "name-only",
        "absent": "absent",
    }
    listed = []
    for entry in entries:
        name = entry.name if entry.name in view.shown else cli_name(entry)
        seen = view.visibility(name, entry.description)
        listed.append(
            ListedSkill(
                name=entry.name,
                state=states[seen],
                chars=len(entry.name) + 2 + len(entry.description),
            )
        )
    return LibraryListing(
        source="captured-request",
        budget_chars=view.budget,
        budget_source="captured" if view.budget is not None else None,
        listing_chars=view.chars,
        skills=listed,
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
        shown.append(replace(entry, description=text))
    return shown


def listing_warnings(listing: LibraryListing) -> list[str]:
    """The report's warnings on the listing: the skills by name only (the model never saw their
    descriptions) and the truncated ones (it saw only their first 1,536 characters)."""
    if not listing.applied:
        return []
    hidden = [s.name for s in listing.skills if s.state == "name-only"]
    cut = [s.name for s in listing.skills if s.state == "truncated"]
    budget = f"listing budget {listing.budget_chars or 0:,} characters"
    warnings = []
    if hidden:
        warnings.append(
            f"LISTING: {len(hidden)} skill(s) listed by name only ({budget}): "
            f"{', '.join(hidden[:8])}: the model never saw those descriptions"
        )
    if cut:
        warnings.append(
            f"LISTING: {len(cut)} skill(s) truncated: {', '.join(cut[:8])}: the model saw only "
            f"the first {rule.ENTRY_CAP:,} characters of those descriptions"
        )
    if (hidden or cut) and listing.cut_to_fit is not None and listing.cut_skills:
        warnings.append(
            f"LISTING: cut every description to {listing.cut_to_fit:,} characters and every "
            f"skill is listed in full (shortens {', '.join(listing.cut_skills[:8])})"
        )
    return warnings


def hidden_line(listing: LibraryListing) -> str | None:
    """The verdict's sentence on hidden skills, or None when every skill is listed in full or
    the harness did not apply the listing (it sent every description in full)."""
    if not listing.applied:
        return None
    hidden = [s.name for s in listing.skills if s.state == "name-only"]
    cut = [s.name for s in listing.skills if s.state == "truncated"]
    if not hidden and not cut:
        return None
    parts = []
    if hidden:
        parts.append(f"{len(hidden)} skill(s) listed by name only: {', '.join(hidden[:8])}")
    if cut:
        parts.append(f"{len(cut)} truncated at {rule.ENTRY_CAP:,} characters: {', '.join(cut[:8])}")
    return "; ".join(parts) + f" (listing budget {listing.budget_chars or 0:,} characters)"
