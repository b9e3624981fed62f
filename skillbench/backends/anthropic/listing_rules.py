"""Claude Code's skill listing: the procedure the CLI follows, its parameters read from the CLI.

Claude Code lists skills in one text block of its first request ("The following skills are
available for use with the Skill tool:"), one `- name: text` line each: the user's skills in
listing order (`skill_install.cli_skills`), then the CLI's own. Every version measured (2.1.197,
2.1.332) builds it the same way:

- the text of a line is the description, `joiner + when_to_use` appended when present, cut to
  `entry_cap` UTF-16 units (the last one `…`); `disable-model-invocation` skills are left out;
- widths are terminal columns (`string_width`: a CJK character counts 2, a newline 0), lines
  joined by newlines. When everything fits the budget, everything is shown. Otherwise the
  CLI's fixed lines (its bundled skills) stay whole, every other skill starts as a bare name,
  and going through them in shed order a description is added whenever it still fits what is
  left: a long one is skipped, a later short one may still fit. The shed order is the listing
  order when no skill has a usage history (an isolated HOME: every capture's).

What differs between versions are the parameters, held by `ListingRules`: the budget for the
model (the CLI logs it when the listing goes over), the entry cap, the joiner, the CLI's own
lines and which of them are fixed, whether a user skill named like one of them replaces it,
whether a frontmatter `name` unlike the folder is shown as `folder (name)` (2.1.332), whether a
SKILL.md with a UTF-8 BOM still has frontmatter (2.1.332: yes; 2.1.197: no), whether `<` and `>`
are listed as `&lt;` and `&gt;` (2.1.332, before the cap and the budget count them). Those are read from
the CLI by calibration captures (`listing_calibration`); `table_rules` is 2.1.197's, tabled from
its source before calibration existed and checked against calibration of that CLI by the
real-CLI tests, used where no CLI is in use (a proxy, the minimal harness).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from skillbench.backends.base import SkillEntry
from skillbench.backends.skill_install import CliSkill, cli_skills

LISTING_MARKER = "The following skills are available for use with the Skill tool:"
BUDGET_ENV = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
#: 2.1.197's cap of one entry's text (UTF-16 units); calibrated rules carry their CLI's own.
ENTRY_CAP = 1536
JOINER = " - "
RULES_FORMAT = 1
#: A budget no listing reaches (what a budget the rules do not know is taken as).
UNLIMITED = 2**62
TABLE_VERSION = "2.1.197"
BUDGET_FRACTION = 0.01
#: The model whose budget applies when the judge names no Claude model (a proxy, or the CLI's
#: default before it reported one): the anthropic backend's default, haiku-4-5.
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
#: Claude Code 2.1.197's own skills after the user's, as (name, width of the whole line, fixed:
#: always listed whole), measured from captures (the same for haiku-4-5, sonnet-4-6, opus-4-7
#: and opus-4-8). Only `table_rules` uses it.
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
_LINE = re.compile(r"^- (.+?)(?:: (.*))?$")
_LISTING_END = re.compile(r"\n</system-reminder>|\n\n(?=<[a-z_]+>)")
_SHOWN_NAME = re.compile(r"^(.+) \(([^()]+)\)$")
_DATE_SUFFIX = re.compile(r"-\d{8}$")
_RELEASE = re.compile(r"^(\d+\.\d+\.\d+)")
#: The longest frontmatter name Claude Code shows beside the folder name.
_DISPLAY_MAX = 256

ListingState = Literal["full", "truncated", "name-only", "absent"]


# -- widths and entry texts -------------------------------------------------------------------


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


def utf16_units(text: str) -> int:
    """Length of `text` in UTF-16 code units (JavaScript's `length`)."""
    return len(text.encode("utf-16-le")) // 2


def whole_text(description: str, when_to_use: str | None = None, joiner: str = JOINER) -> str:
    """The description with `when_to_use` appended, before any cut."""
    return f"{description}{joiner}{when_to_use}" if when_to_use else description


def is_cut(description: str, when_to_use: str | None = None, cap: int | None = ENTRY_CAP) -> bool:
    """True when the CLI cuts this entry's text at `cap` (None: no cap)."""
    return cap is not None and utf16_units(whole_text(description, when_to_use)) > cap


def entry_text(
    description: str,
    when_to_use: str | None = None,
    cap: int | None = ENTRY_CAP,
    joiner: str = JOINER,
) -> str:
    """The text after `- name: `: the description, `joiner + when_to_use` appended, cut to `cap`
    UTF-16 units (the last one `…`) as the CLI cuts it."""
    text = whole_text(description, when_to_use, joiner)
    if cap is not None and utf16_units(text) > cap:
        units = text.encode("utf-16-le")
        text = units[: (cap - 1) * 2].decode("utf-16-le", errors="ignore") + "…"
    return text


@dataclass(frozen=True)
class Listed:
    """One listing line: the skill's name, the whole line (or only its width: `size`) and
    whether it is fixed (always listed whole)."""

    name: str
    line: str
    bundled: bool = False
    size: int | None = None

    @property
    def width(self) -> int:
        return self.size if self.size is not None else string_width(self.line)


def shown_descriptions(entries: Sequence[Listed], budget: int) -> list[bool]:
    """For each entry (listing order, which is the shed order here), whether Claude Code shows
    its description at `budget` (see the module docstring)."""
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


# -- the rules ---------------------------------------------------------------------------------


class BuiltinLine(BaseModel):
    """One of the CLI's own listing lines (after the user's skills)."""

    name: str
    width: int = Field(description="columns of its whole line (newlines count 0)")
    fixed: bool = Field(description="kept whole when the listing is over budget (bundled)")
    line: str | None = Field(default=None, description="the line as captured (None: tabled)")


class ListingRules(BaseModel):
    """The parameters of one Claude Code version's listing for one model (module docstring)."""

    format: int = RULES_FORMAT
    cli_version: str
    model: str
    cli_mode: str = "print"
    source: Literal["calibrated", "table"]
    budget: int | None = Field(
        description=f"the budget without {BUDGET_ENV} (characters); None: not known"
    )
    budget_note: str = Field(description="how the budget is known")
    entry_cap: int | None = Field(description="UTF-16 units of one entry's text; None: no cap")
    joiner: str = JOINER
    shows_display_name: bool = Field(
        default=False, description="a frontmatter name unlike the folder is listed `folder (name)`"
    )
    bom_frontmatter: bool = Field(
        default=False, description="a SKILL.md opening with a UTF-8 BOM still has frontmatter"
    )
    escapes_angle_brackets: bool = Field(
        default=False,
        description="`<` and `>` of a description and `when_to_use` listed as `&lt;` and `&gt;` "
        "(counted so by the budget and the entry cap)",
    )
    builtins: list[BuiltinLine] = Field(default_factory=list)
    user_replaces_fixed: bool = Field(
        default=True, description="a user skill named like a fixed line drops that line"
    )
    user_replaces_other: bool = Field(
        default=False, description="a user skill named like another CLI line drops that line"
    )
    checked: list[str] = Field(
        default_factory=list, description="the calibration listings these rules reproduce"
    )
    unread: str | None = Field(
        default=None,
        description="the version of the CLI in use whose own rules were not read yet (a plan)",
    )

    def label(self) -> str:
        """Whose rule this is and how it is known, for reports."""
        if self.unread is not None:
            return (
                f"Claude Code {self.cli_version}'s listing rule, tabled: the rules of Claude Code "
                f"{self.unread} in use are read from it when it runs"
            )
        if self.source == "calibrated":
            return (
                f"Claude Code {self.cli_version}'s listing rule, read from that CLI "
                f"({self.model}, calibration captures)"
            )
        return (
            f"Claude Code {self.cli_version}'s listing rule, tabled from its source (no "
            "Claude Code CLI in use to read it from)"
        )

    def skills(self, target: SkillEntry, catalog: Sequence[SkillEntry]) -> list[CliSkill]:
        """The skill set as this CLI loads it, in listing order (`cli_skills`)."""
        return cli_skills(target, catalog, skip_bom=self.bom_frontmatter)

    def _parts(self, skill: CliSkill) -> tuple[str, str | None]:
        """(description, when_to_use) as this CLI puts them in the listing."""
        if not self.escapes_angle_brackets:
            return skill.description, skill.when_to_use
        return escape_angles(skill.description), (
            None if skill.when_to_use is None else escape_angles(skill.when_to_use)
        )

    def text(self, skill: CliSkill) -> str:
        """The text of `skill`'s line after `- name: `."""
        description, when = self._parts(skill)
        return entry_text(description, when, self.entry_cap, self.joiner)

    def is_cut(self, skill: CliSkill) -> bool:
        """Whether `skill`'s text is cut at the entry cap."""
        if self.entry_cap is None:
            return False
        return utf16_units(whole_text(*self._parts(skill), self.joiner)) > self.entry_cap

    def kept_builtins(self, user_names: set[str]) -> list[BuiltinLine]:
        """The CLI's own lines listed beside these user skills (a same-named one dropped when
        this CLI drops it)."""
        return [
            b
            for b in self.builtins
            if b.name not in user_names
            or not (self.user_replaces_fixed if b.fixed else self.user_replaces_other)
        ]

    def listed_names(self, skills: Sequence[CliSkill]) -> list[str]:
        """The name each skill is listed by: its folder's, or `folder (name)` where this CLI
        shows the frontmatter name (2.1.332: a valid name no other skill or line is called by,
        first of its display name in listing order)."""
        if not self.shows_display_name:
            return [s.name for s in skills]
        exact = {s.name for s in skills} | {b.name for b in self.builtins}
        first: dict[str, str] = {}
        for skill in skills:
            if skill.display_name is not None:
                first.setdefault(skill.display_name, skill.name)
        names = []
        for skill in skills:
            shown = skill.display_name
            if (
                shown is None
                or shown == skill.name
                or skill.name.endswith(f":{shown}")
                or not valid_display_name(shown)
                or shown in exact
                or first.get(shown) != skill.name
            ):
                names.append(skill.name)
            else:
                names.append(f"{skill.name} ({shown})")
        return names

    def user_lines(self, skills: Sequence[CliSkill]) -> list[Listed]:
        """The listing lines of the enabled skills among `skills` (listing order)."""
        names = self.listed_names(skills)
        return [
            Listed(name, f"- {name}: {self.text(s)}")
            for s, name in zip(skills, names, strict=True)
            if not s.disabled
        ]

    def builtin_lines(self, skills: Sequence[CliSkill]) -> list[Listed]:
        """The CLI's own lines listed after `skills`."""
        kept = self.kept_builtins({s.name for s in skills if not s.disabled})
        return [Listed(b.name, b.line or "", b.fixed, size=b.width) for b in kept]

    def budget_for(self, env: Mapping[str, str] | None = None) -> tuple[int | None, str]:
        """(characters, how) of the budget: `SLASH_COMMAND_TOOL_CHAR_BUDGET` when set in
        `env` (default: the process environment), else this CLI's budget for the model."""
        value = env_budget(env)
        if value is not None:
            return value, BUDGET_ENV
        return self.budget, self.budget_note

    def shown(self, skills: Sequence[CliSkill], budget: int) -> list[bool]:
        """Whether each listed line (the enabled skills', then the CLI's own) shows its
        description at `budget`."""
        return shown_descriptions([*self.user_lines(skills), *self.builtin_lines(skills)], budget)

    def states(
        self, skills: Sequence[CliSkill], budget: int, shown: Sequence[bool] | None = None
    ) -> dict[str, ListingState]:
        """Each skill's state at `budget` (or as `shown` says), by folder name."""
        enabled = [s for s in skills if not s.disabled]
        visible = list(self.shown(skills, budget) if shown is None else shown)[: len(enabled)]
        states: dict[str, ListingState] = {s.name: "absent" for s in skills if s.disabled}
        for skill, seen in zip(enabled, visible, strict=True):
            if not seen:
                states[skill.name] = "name-only"
            else:
                states[skill.name] = "truncated" if self.is_cut(skill) else "full"
        return states

    def render(self, skills: Sequence[CliSkill], budget: int) -> str:
        """The listing this CLI would send for `skills` at `budget` (without the marker; the
        CLI's own lines only where they were captured)."""
        return render_listing([*self.user_lines(skills), *self.builtin_lines(skills)], budget)


def captured_state(shown: str | None, skill: CliSkill | None, rules: ListingRules) -> ListingState:
    """The state of a skill's captured entry (`shown`: its text, None for a bare name): by
    `rules` when they give that text, else by the text itself (rules of another version:
    `&lt;` for `<`, a BOM read; cut only when it ends in `…` short of the whole)."""
    if shown is None:
        return "name-only"
    if skill is None:
        return "truncated" if shown.endswith("…") else "full"
    if shown == rules.text(skill):
        return "truncated" if rules.is_cut(skill) else "full"
    whole = whole_text(skill.description, skill.when_to_use, rules.joiner)
    if shown in (whole, escape_angles(whole)):
        return "full"
    return "truncated" if shown.endswith("…") else "full"


def escape_angles(text: str) -> str:
    """`<` and `>` as `&lt;` and `&gt;` (2.1.332's listing; `&` is kept)."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def valid_display_name(name: str) -> bool:
    """Whether Claude Code 2.1.332 shows `name` beside a folder: letters, marks, digits, `_`,
    `:`, `.` and `-` only, at most 256 characters."""
    return 0 < len(name) <= _DISPLAY_MAX and all(
        c in "_:.-" or unicodedata.category(c)[0] in "LMN" for c in name
    )


def env_budget(env: Mapping[str, str] | None = None) -> int | None:
    """`SLASH_COMMAND_TOOL_CHAR_BUDGET` of `env` (default: the process environment) when it is
    a positive whole number, else None."""
    source = os.environ if env is None else env
    raw = (source.get(BUDGET_ENV) or "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


def release(version: str) -> str:
    """The release numbers of a CLI version (`2.1.197-fake` → `2.1.197`)."""
    match = _RELEASE.match(version.strip())
    return match.group(1) if match else version.strip()


def table_budget(model: str) -> tuple[int, str]:
    """(characters, how) of Claude Code 2.1.197's budget for `model`: context window × bytes
    per token × 1 % (read from its source)."""
    lowered = model.lower()
    window = 1_000_000 if "[1m]" in lowered else 200_000
    family = _DATE_SUFFIX.sub("", lowered.split("[", 1)[0].strip())
    per_token = 4 if family in FOUR_BYTE_MODELS else 3
    budget = max(1, int(window * per_token * BUDGET_FRACTION))
    return budget, f"Claude Code's rule: 1% of {window:,} tokens × {per_token} bytes per token"


def table_rules(model: str, cli_mode: str = "print") -> ListingRules:
    """Claude Code 2.1.197's listing rules for `model`, as tabled from its source."""
    budget, note = table_budget(model)
    return ListingRules(
        cli_version=TABLE_VERSION,
        model=model,
        cli_mode=cli_mode,
        source="table",
        budget=budget,
        budget_note=note,
        entry_cap=ENTRY_CAP,
        builtins=[BuiltinLine(name=n, width=w, fixed=f) for n, w, f in BUILTINS_2_1_197],
        user_replaces_fixed=True,
        user_replaces_other=False,
    )


# -- reading a captured listing ---------------------------------------------------------------


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
    """The listing itself: the lines after the marker, up to the end of the reminder (or, where
    the listing is in the system prompt (opus-4-8), up to the next tagged block)."""
    start = text.find(LISTING_MARKER)
    body = text[start + len(LISTING_MARKER) :] if start >= 0 else text
    return _LISTING_END.split(body.removeprefix("\n\n"), 1)[0]


def parse_listing(
    text: str, names: Sequence[str] | set[str] | None = None
) -> list[tuple[str, str | None]]:
    """(name, description or None for a bare name) for every listed skill, in order.

    A description may run over several lines (built-in skills do); continuation lines are
    joined to the entry above. Names may hold spaces (a folder name is any name). With `names`
    (the folder names installed), a line listed as `folder (frontmatter name)` (2.1.332) is
    named by its folder."""
    known = set(names) if names is not None else None
    entries: list[tuple[str, str | None]] = []
    for line in listing_content(text).split("\n"):
        match = _LINE.match(line)
        if match:
            entries.append((folder_of(match.group(1), known), match.group(2)))
        elif entries and line.strip() and entries[-1][1] is not None:
            name, description = entries[-1]
            entries[-1] = (name, f"{description}\n{line}")
    return entries


def folder_of(listed: str, names: set[str] | None) -> str:
    """The folder a listed name stands for: `folder (name)` → `folder` when `folder` is one of
    `names` (and the whole is not); a name as it is otherwise."""
    if names is None or listed in names:
        return listed
    match = _SHOWN_NAME.match(listed)
    return match.group(1) if match and match.group(1) in names else listed


def captured_lines(text: str) -> list[tuple[str, str]]:
    """(listed name, whole line with continuation lines) of every entry, in order."""
    lines: list[tuple[str, str]] = []
    for line in listing_content(text).split("\n"):
        match = _LINE.match(line)
        if match:
            lines.append((match.group(1), line))
        elif lines and line.strip():
            name, whole = lines[-1]
            lines[-1] = (name, f"{whole}\n{line}")
    return lines
