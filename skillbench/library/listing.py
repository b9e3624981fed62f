"""What Claude Code's skill listing shows of a whole library, and what would show it all.

Per skill: listed in full, truncated (its entry cut at the CLI's entry cap), by name only (past
the listing budget) or absent (`disable-model-invocation`). Read from the captured request when
the replay harness captured one, else the listing rules applied. The what-if (the listing at
other budgets, `SLASH_COMMAND_TOOL_CHAR_BUDGET`) and the per-skill cut (the longest description
that lists every skill in full when every longer one is cut to it) are predictions of the
listing rules of the CLI in use, read from it (`listing_calibration.rules_for_judge`; 2.1.197's
table where no CLI is in use), and are checked against the CLI's own captured listing of this
library: where the rules' states at the captured budget differ, the report says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from skillbench.backends.anthropic.listing_rules import (
    DEFAULT_MODEL,
    ENTRY_CAP,
    UNLIMITED,
    Listed,
    ListingRules,
    captured_state,
    entry_text,
    listing_text,
    parse_listing,
    shown_descriptions,
    string_width,
    table_rules,
)
from skillbench.backends.base import SkillEntry
from skillbench.backends.describe import CapturedRequest
from skillbench.backends.skill_install import CliSkill, cli_name
from skillbench.library.document import BudgetWhatIf, LibraryListing, ListedSkill, ListingState
from skillbench.trigger import listing as rule

WHAT_IF_BUDGETS = (4_000, 8_000, 16_000, 30_000)


def library_skills(
    entries: Sequence[SkillEntry], rules: ListingRules | None = None
) -> list[CliSkill]:
    """The library as Claude Code loads it (by `rules`; default 2.1.197's), in listing order."""
    if not entries:
        return []
    return (rules or table_rules(DEFAULT_MODEL)).skills(entries[0], entries[1:])


class Lines:
    """The library's listing lines with their widths measured once: the user skills (listing
    order, disabled ones left out) and the CLI's own lines after them, by `rules`."""

    def __init__(self, skills: Sequence[CliSkill], rules: ListingRules | None = None) -> None:
        self.rules = rules = rules or table_rules(DEFAULT_MODEL)
        names = dict(zip((s.name for s in skills), rules.listed_names(skills), strict=True))
        self.skills = [s for s in skills if not s.disabled]
        self.disabled = [s.name for s in skills if s.disabled]
        self.names = [names[s.name] for s in self.skills]
        self.texts = [rules.text(s) for s in self.skills]
        self.heads = [string_width(n) + 4 for n in self.names]  # "- " and ": "
        self.text_widths = [string_width(t) for t in self.texts]
        self.lines = [
            Listed(n, "", size=h + w)
            for n, h, w in zip(self.names, self.heads, self.text_widths, strict=True)
        ]
        self.builtin = rules.builtin_lines(skills)

    def shown(self, budget: int, lines: Sequence[Listed] | None = None) -> list[bool]:
        """Whether each user skill's description is shown at `budget` (the CLI's rule)."""
        user = list(self.lines if lines is None else lines)
        return shown_descriptions([*user, *self.builtin], budget)[: len(user)]

    def states(self, budget: int) -> dict[str, ListingState]:
        states: dict[str, ListingState] = {name: "absent" for name in self.disabled}
        for skill, visible in zip(self.skills, self.shown(budget), strict=True):
            if not visible:
                states[skill.name] = "name-only"
            elif self.rules.is_cut(skill):
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
                widths.append(widths[-1] + string_width(char))
            prefix.append(widths)

        def fits(cut: int) -> bool:
            lines = [
                Listed(n, "", size=h + p[min(cut, len(p) - 1)])
                for n, h, p in zip(self.names, self.heads, prefix, strict=True)
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


def states_at(
    skills: Sequence[CliSkill], budget: int, rules: ListingRules | None = None
) -> dict[str, ListingState]:
    """The listing rule at `budget`: each skill's state, by its folder name."""
    return Lines(skills, rules).states(budget)


def full_width(skills: Sequence[CliSkill], rules: ListingRules | None = None) -> int:
    """Columns the listing takes with every entry whole (skills and the CLI's own, newlines)."""
    return Lines(skills, rules).full_width()


def cut_to_fit(
    skills: Sequence[CliSkill], budget: int, rules: ListingRules | None = None
) -> int | None:
    """See `Lines.cut_to_fit`."""
    return Lines(skills, rules).cut_to_fit(budget)


def captured_states(
    body: Any, skills: Sequence[CliSkill], rules: ListingRules | None = None
) -> dict[str, ListingState]:
    """Each skill's state in a captured request's listing (parsed once), by folder name."""
    rules = rules or table_rules(DEFAULT_MODEL)
    text = listing_text(body)
    names = {s.name for s in skills}
    shown: dict[str, str | None] = {}
    for name, description in parse_listing(text, names) if text is not None else []:
        shown.setdefault(name, description)  # a user skill, before a same-named CLI line
    states: dict[str, ListingState] = {}
    for skill in skills:
        name = skill.name
        states[name] = captured_state(shown[name], skill, rules) if name in shown else "absent"
    return states


def rule_check(
    captured: Mapping[str, ListingState], predicted: Mapping[str, ListingState], by: str
) -> tuple[str, list[str]]:
    """(the check's line, the skills whose state the rules predict wrongly)."""
    wrong = sorted(n for n, state in captured.items() if predicted.get(n) != state)
    total = len(captured)
    if not wrong:
        return f"{by} reproduces the captured listing: {total} of {total} skills", []
    return f"{by} predicts {total - len(wrong)} of {total} skills as captured", wrong


def library_listing(
    entries: Sequence[SkillEntry],
    model: str,
    *,
    env: Mapping[str, str] | None = None,
    captured: CapturedRequest | None = None,
    budgets: Sequence[int] = WHAT_IF_BUDGETS,
    rules: ListingRules | None = None,
    predict: bool = True,
) -> LibraryListing:
    """The listing of the library for `model`: from `captured` (a replay template: its `body`
    and logged `listing_budget`) when given, else `rules` (the CLI in use's, read from it;
    default 2.1.197's table) applied; with the what-if and the cut by `rules` (left out when
    not `predict`: the CLI's rules are not known)."""
    rules = rules or table_rules(model)
    skills = library_skills(entries, rules)
    lines = Lines(skills, rules)
    by_folder = {cli_name(e): e.name for e in entries}
    budget, how = rules.budget_for(env)
    check: str | None = None
    wrong: list[str] = []
    if captured is not None and entries:
        info = rule.from_request(
            captured.body, entries[0], budget=captured.listing_budget, env=env, rules=rules
        )
        if info.budget_chars:
            budget, how = info.budget_chars, info.budget_source or how
        elif budget is not None:
            how = f"{how}; this listing fit within it (nothing logged)"
        states = captured_states(captured.body, skills, rules)
        source: Literal["captured-request", "estimate"] = "captured-request"
        if predict:
            predicted = lines.states(budget if budget is not None else UNLIMITED)
            check, wrong = rule_check(states, predicted, rules.label())
    else:
        states = lines.states(budget if budget is not None else UNLIMITED)
        source = "estimate"
    names = dict(zip((s.name for s in skills), rules.listed_names(skills), strict=True))
    listed = [
        ListedSkill(
            name=by_folder.get(s.name, s.name),
            state=states.get(s.name, "absent"),
            chars=string_width(f"- {names[s.name]}: {rules.text(s)}"),
        )
        for s in skills
    ]
    what_if = []
    cut: int | None = None
    shortened: list[str] = []
    if predict:
        for other in sorted({*budgets, *([budget] if budget is not None else [])}):
            at = lines.states(other)
            hidden = [by_folder.get(n, n) for n, state in at.items() if state == "name-only"]
            cut_off = [by_folder.get(n, n) for n, state in at.items() if state == "truncated"]
            full = sum(1 for state in at.values() if state == "full")
            what_if.append(
                BudgetWhatIf(
                    budget_chars=other,
                    full=full,
                    truncated=sorted(cut_off),
                    name_only=sorted(hidden),
                )
            )
        cut = lines.cut_to_fit(budget) if budget is not None else None
        if cut is not None:
            if rules.entry_cap is not None:  # past the cap an entry is cut, never whole
                cut = min(cut, rules.entry_cap)
            shortened = [
                by_folder.get(s.name, s.name)
                for s, text in zip(lines.skills, lines.texts, strict=True)
                if len(text) > cut or rules.is_cut(s)
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
        rules=rules.label() if predict or source == "estimate" else None,
        rule_check=check,
        rule_mismatch=[by_folder.get(n, n) for n in wrong],
        entry_cap=rules.entry_cap,
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
        text = entry_text(entry.description, cap=listing.entry_cap) if how == "truncated" else ""
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
            f"the first {listing.entry_cap or ENTRY_CAP:,} characters of those descriptions"
        )
    if listing.rule_mismatch:
        warnings.append(
            f"LISTING: {listing.rule_check} ({', '.join(listing.rule_mismatch[:8])} differ): "
            "its what-if and cut advice may be wrong"
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
        parts.append(
            f"{len(cut)} truncated at {listing.entry_cap or ENTRY_CAP:,} characters: "
            f"{', '.join(cut[:8])}"
        )
    return "; ".join(parts) + f" (listing budget {listing.budget_chars or 0:,} characters)"
