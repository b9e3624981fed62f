"""Static validator for skill folders: one table of rules → seed-001 `ValidationReport`.

A rule is one row of `RULES`: ``Rule(code, level, profiles, check, message)``. ``check(ctx)``
returns a falsy value (pass), ``True`` (one finding with the rule's message), a string or a
list of strings (one finding per string). Stop rules (``stop=True``) end validation when they
fire; ``strict_error=True`` rules are errors under ``strict``. Adding a rule is one row.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from skillbench.backends.spec import SkillLimits, agent_skill_limits
from skillbench.errors import InputError
from skillbench.schemas.validation import Finding, ValidationReport
from skillbench.skill import (
    FrontmatterProblem,
    decode_skill_md,
    find_skills,
    iter_files,
    link_root,
    linked_outside,
    parse_frontmatter,
    read_skill_md,
    shorten,
)

if TYPE_CHECKING:
    import pandas as pd

Profile = str
"""`agentskills`, `claude-code`, or an agent backend's name (`AGENT_PROFILES`)."""
Level = Literal["error", "warning"]
CheckResult = bool | str | list[str] | None

#: Each agent's own limits on a skill, declared by its backend (`BackendSpec.skill_limits`).
AGENT_LIMITS: dict[str, SkillLimits] = agent_skill_limits()
#: The other agents' profiles: the open standard's keys, plus each agent's own limits.
AGENT_PROFILES: tuple[Profile, ...] = tuple(AGENT_LIMITS)
PROFILES: tuple[Profile, ...] = ("agentskills", "claude-code", *AGENT_PROFILES)
AGENTSKILLS_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
#: The Claude Code version whose skill frontmatter keys `CLAUDE_CODE_KEYS` lists (and whose
#: readers the claude-code value rules follow): the newest CLI installed (`make claude-latest`).
CLAUDE_CODE_KEYS_VERSION = "2.1.332"
#: Every key of the skill frontmatter schema in Claude Code 2.1.332 (the schema its own
#: unknown-key check uses; `scripts/claude_skill_keys.py` reads it from the binary), plus the
#: open standard's. The documented ones first, then those the CLI marks internal.
CLAUDE_CODE_DOCUMENTED_KEYS = (
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "context",
    "agent",
    "hooks",
    "when_to_use",
    "disallowed-tools",
    "disallowedTools",
    "effort",
    "shell",
    "paths",
    "background",
)
CLAUDE_CODE_INTERNAL_KEYS = (
    "version",
    "arguments",
    "fallback",
    "created_by",
    "improved_by",
    "mcpServers",
    "lspServers",
    "agents",
    "outputStyles",
    "themes",
    "workflows",
    "channels",
    "monitors",
    "settings",
    "userConfig",
    "defaultEnabled",
    "experimental",
    "dependencies",
    "displayName",
    "author",
    "homepage",
    "repository",
    "keywords",
)
CLAUDE_CODE_KEYS = (*AGENTSKILLS_KEYS, *CLAUDE_CODE_DOCUMENTED_KEYS, *CLAUDE_CODE_INTERNAL_KEYS)
#: What Claude Code 2.1.332 reads as `effort` (case-insensitive; `med` is its alias of medium).
EFFORT_LEVELS = ("low", "medium", "med", "high", "xhigh", "max")
#: Strings Claude Code reads as true / false in a flag key (case-insensitive, trimmed).
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
FLAG_KEYS = ("disable-model-invocation", "user-invocable", "background", "fallback")
STRING_LIST_KEYS = ("disallowed-tools", "paths")
SHELLS = ("bash", "powershell")
_LEADING_INTEGER = re.compile(r"^\s*[+-]?\d")
ALLOWED_KEYS: dict[Profile, frozenset[str]] = {
    "agentskills": frozenset(AGENTSKILLS_KEYS),
    "claude-code": frozenset(CLAUDE_CODE_KEYS),
    # Claude Code's own keys (when_to_use, disable-model-invocation, …) do nothing in these agents
    **{agent: frozenset(AGENTSKILLS_KEYS) for agent in AGENT_PROFILES},
}
NAME_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
RESERVED_PREFIXES = ("claude", "anthropic")
TRIGGER_RE = re.compile(  # "Use when", "Use for", "Use this skill whenever", "should be used when"
    r"\buse\s+for\b|\b(?:use|used|invoke|trigger)\b(?:\s+[\w'-]+){0,3}?\s+(?:when|whenever|if)\b",
    re.IGNORECASE,
)
WHEN_TO_USE_RE = re.compile(r"^ {0,3}#{1,6}[ \t]+when to use", re.IGNORECASE | re.MULTILINE)
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
LINK_RE = re.compile(r"\]\([ \t]*<?([^)\s>]*)")
REFERENCE_LINK_RE = re.compile(r"^ {0,3}\[[^\]\n]{1,200}\]:[ \t]*<?([^\s>]+)", re.MULTILINE)
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
STOP_CODES = frozenset(
    {
        "SKILL_DIR_MISSING",
        "SKILL_PATH_NOT_DIR",
        "SKILL_MD_MISSING",
        "FRONTMATTER_PARSE",
        "FRONTMATTER_INVALID",
        "SKILL_MD_LINK_OUTSIDE",
    }
)
MAX_LINES = 500
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_FINDINGS_PER_RULE = 20
TRIGGER_HINT = "description should usually include explicit trigger language like 'Use when ...'"


AgentLimits = SkillLimits  # the validator's older name


class Loaded(NamedTuple):
    """A SKILL.md that passed the stop rules."""

    text: str
    frontmatter: dict[str, Any]
    body: str


class Ctx:
    """What the checks look at, computed lazily: the folder, SKILL.md, frontmatter and body.

    `validate_description` builds one with a ready `frontmatter` and never touches the disk.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        profile: Profile = "claude-code",
        strict: bool = False,
        frontmatter: dict[str, Any] | None = None,
        root: str | Path | None = None,
    ) -> None:
        self.path = Path(path)
        self.profile = profile
        self.strict = strict
        self.root = root
        self._frontmatter = frontmatter

    @cached_property
    def loaded(self) -> Loaded | FrontmatterProblem | InputError:
        """(text, frontmatter, body), or why the skill cannot be examined further."""
        try:
            skill_md, raw = read_skill_md(self.path, self.root)
            _, text = decode_skill_md(raw, skill_md)
        except InputError as exc:
            return exc
        except OSError as exc:  # e.g. a folder we may not search
            return InputError(
                f"cannot access: {exc.strerror or exc}", path=self.path, rule="SKILL_MD_MISSING"
            )
        mapping, body, problem = parse_frontmatter(text)
        if problem is not None or mapping is None:
            return problem or FrontmatterProblem("FRONTMATTER_INVALID", "unusable frontmatter")
        return Loaded(text, mapping, body)

    def stopped(self, code: str) -> str | None:
        """The message if loading stopped with `code`, else None."""
        state = self.loaded
        if isinstance(state, InputError):
            rule = state.rule if state.rule in STOP_CODES else "SKILL_MD_MISSING"
            return state.detail if rule == code else None
        if isinstance(state, FrontmatterProblem):
            return state.message if state.code == code else None
        return None

    @property
    def fm(self) -> dict[str, Any]:
        """The frontmatter mapping (only used once the stop rules have passed)."""
        if self._frontmatter is not None:
            return self._frontmatter
        state = self.loaded
        assert isinstance(state, Loaded), "checks run only after the stop rules pass"
        return state.frontmatter

    @property
    def text(self) -> str:
        """The whole SKILL.md text (BOM removed)."""
        state = self.loaded
        assert isinstance(state, Loaded)
        return state.text

    @property
    def body(self) -> str:
        """SKILL.md after the frontmatter."""
        state = self.loaded
        assert isinstance(state, Loaded)
        return state.body

    @cached_property
    def folder_name(self) -> str:
        """The skill folder's own name (``.`` and trailing slashes resolved)."""
        return os.path.basename(os.path.abspath(self.path))

    @cached_property
    def body_outside_fences(self) -> Callable[[int], bool]:
        """Predicate: is a body offset outside fenced code blocks?"""
        starts: list[int] = []
        ends: list[int] = []
        opener: str | None = None
        for match in FENCE_RE.finditer(self.body):
            fence = match.group(1)
            if opener is None:
                opener = fence
                starts.append(match.start())
            elif fence[0] == opener[0] and len(fence) >= len(opener):
                ends.append(match.end())
                opener = None
        if opener is not None:
            ends.append(len(self.body))

        def outside(offset: int) -> bool:
            i = bisect.bisect_right(starts, offset) - 1
            return i < 0 or offset >= ends[i]

        return outside


@dataclass(frozen=True)
class Rule:
    """One validation rule: a row of `RULES`."""

    code: str
    level: Level
    profiles: frozenset[Profile]
    check: Callable[[Ctx], CheckResult]
    message: str
    stop: bool = False
    strict_error: bool = False

    def level_for(self, strict: bool) -> Level:
        """The level this rule reports at (strict turns `strict_error` rules into errors)."""
        return "error" if strict and self.strict_error else self.level

    def run(self, ctx: Ctx) -> list[Finding]:
        """Apply the check; one Finding per message (capped)."""
        result = self.check(ctx)
        if not result:
            return []
        messages = (
            [self.message] if result is True else [result] if isinstance(result, str) else result
        )
        if len(messages) > MAX_FINDINGS_PER_RULE:
            extra = len(messages) - MAX_FINDINGS_PER_RULE + 1
            messages = [*messages[: MAX_FINDINGS_PER_RULE - 1], f"… and {extra} more"]
        level = self.level_for(ctx.strict)
        return [Finding(level=level, code=self.code, message=m) for m in messages]


class CodeInfo(NamedTuple):
    """A code's default level ("warning/error" when strict makes it an error) and description."""

    level: str
    description: str


# ---------------------------------------------------------------------------------------------
# Checks


def _stopped(code: str) -> Callable[[Ctx], CheckResult]:
    return lambda ctx: ctx.stopped(code)


def _has(ctx: Ctx, key: str) -> bool:
    return key in ctx.fm


def _unknown_keys(ctx: Ctx) -> CheckResult:
    allowed = ALLOWED_KEYS[ctx.profile]
    unknown = [str(k) for k in ctx.fm if k not in allowed]
    if not unknown:
        return None
    shown = ", ".join(shorten(k, 40) for k in unknown[:10])
    more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
    return f"unknown frontmatter keys for profile {ctx.profile}: {shown}{more}"


def _required(ctx: Ctx) -> tuple[str, ...]:
    """Keys whose absence is an error of its own in this profile (the open standard requires a
    description), so MISSING_RECOMMENDED_KEY does not report them twice."""
    return ("description",) if ctx.profile == "agentskills" else ()


def _missing_recommended(ctx: Ctx) -> CheckResult:
    required = _required(ctx)
    return [
        f"missing recommended key: {key}"
        for key in ("name", "description")
        if key not in ctx.fm and key not in required
    ]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _text(ctx: Ctx, key: str) -> str | None:
    """The key's value when it is a non-blank string (the checks after *_EMPTY need one)."""
    value = ctx.fm.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _not_a_string(ctx: Ctx, key: str) -> CheckResult:
    """The key is present, not null, and not a string."""
    value = ctx.fm.get(key)
    if _has(ctx, key) and value is not None and not isinstance(value, str):
        return f"{key} must be a string, found {shorten(value)}"
    return None


def _empty(ctx: Ctx, key: str) -> CheckResult:
    """The key is present with a null or blank value."""
    return _has(ctx, key) and _blank(ctx.fm.get(key))


def _name(ctx: Ctx) -> str | None:
    return _text(ctx, "name")


def _name_type(ctx: Ctx) -> CheckResult:
    return _not_a_string(ctx, "name")


def _name_empty(ctx: Ctx) -> CheckResult:
    return _empty(ctx, "name")


def _name_too_long(ctx: Ctx) -> CheckResult:
    name = _name(ctx)
    if name is not None and len(name) > MAX_NAME:
        return f"name is {len(name)} characters, over {MAX_NAME}: {shorten(name)}"
    return None


def _name_format(ctx: Ctx) -> CheckResult:
    name = _name(ctx)
    if name is not None and not NAME_RE.fullmatch(name):
        return (
            f"name must be kebab-case (lowercase letters, digits, single hyphens): {shorten(name)}"
        )
    return None


def _name_reserved(ctx: Ctx) -> CheckResult:
    name = _name(ctx)
    if name is not None and name.lower().startswith(RESERVED_PREFIXES):
        return f"name must not start with 'claude' or 'anthropic': {shorten(name)}"
    return None


def _name_folder(ctx: Ctx) -> CheckResult:
    name = _name(ctx)
    if name is not None and name != ctx.folder_name:
        return f"name {shorten(name)} differs from the folder name {shorten(ctx.folder_name)}"
    return None


def _description(ctx: Ctx) -> str | None:
    return _text(ctx, "description")


def _description_type(ctx: Ctx) -> CheckResult:
    return _not_a_string(ctx, "description")


def _description_empty(ctx: Ctx) -> CheckResult:
    if "description" in _required(ctx) and not _has(ctx, "description"):
        return "description is missing; the Agent Skills specification requires one"
    return _empty(ctx, "description")


def _description_too_long(ctx: Ctx) -> CheckResult:
    text = _description(ctx)
    if text is not None and len(text) > MAX_DESCRIPTION:
        return f"description is {len(text)} characters, over {MAX_DESCRIPTION}"
    return None


def _description_brackets(ctx: Ctx) -> CheckResult:
    text = _description(ctx)
    if text is None:
        return None
    found = sorted({c for c in text if c in "<>"})
    if not found:
        return None
    at = min(i for i in (text.find("<"), text.find(">")) if i >= 0)
    snippet = shorten(text[max(0, at - 15) : at + 15], 40)
    return f"description contains {' and '.join(repr(c) for c in found)} near {snippet}"


def _description_trigger(ctx: Ctx) -> CheckResult:
    text = _description(ctx)
    return text is not None and not TRIGGER_RE.search(text)


def _type_is(key: str, kinds: type | tuple[type, ...], what: str) -> Callable[[Ctx], CheckResult]:
    def check(ctx: Ctx) -> CheckResult:
        value = ctx.fm.get(key)
        if _has(ctx, key) and not isinstance(value, kinds):
            return f"{key} must be {what}, found {shorten(value)}"
        return None

    return check


def _compatibility_too_long(ctx: Ctx) -> CheckResult:
    value = ctx.fm.get("compatibility")
    if isinstance(value, str) and len(value) > MAX_COMPATIBILITY:
        return f"compatibility is {len(value)} characters, over {MAX_COMPATIBILITY}"
    return None


def _allowed_tools_items(ctx: Ctx) -> CheckResult:
    value = ctx.fm.get("allowed-tools")
    if not isinstance(value, list):
        return None
    return [
        f"allowed-tools[{i}] must be a string, found {shorten(item)}"
        for i, item in enumerate(value)
        if not isinstance(item, str)
    ]


def _fork_without_agent(ctx: Ctx) -> CheckResult:
    return ctx.fm.get("context") == "fork" and _blank(ctx.fm.get("agent"))


def _agent_without_fork(ctx: Ctx) -> CheckResult:
    if not _blank(ctx.fm.get("agent")) and ctx.fm.get("context") != "fork":
        context = ctx.fm.get("context")
        return f"agent is set but context is {shorten(context)}, not 'fork'"
    return None


def _effort_value(ctx: Ctx) -> CheckResult:
    """Claude Code's `effort`: a level or an integer; anything else is ignored with a warning."""
    if not _has(ctx, "effort"):
        return None
    value = ctx.fm["effort"]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return None
    if isinstance(value, str) and (value.lower() in EFFORT_LEVELS or _LEADING_INTEGER.match(value)):
        return None
    levels = ", ".join(level for level in EFFORT_LEVELS if level != "med")
    return (
        f"effort must be one of {levels} or an integer, found {shorten(value)} "
        f"(Claude Code {CLAUDE_CODE_KEYS_VERSION} ignores it)"
    )


def _context_value(ctx: Ctx) -> CheckResult:
    value = ctx.fm.get("context")
    if value is None or value in ("inline", "fork"):
        return None
    return (
        f"context must be 'inline' or 'fork', found {shorten(value)} (Claude Code runs it inline)"
    )


def _flag_values(ctx: Ctx) -> CheckResult:
    """Flag keys as Claude Code reads them: a boolean, or a string/number among the true and
    false words; anything else falls back to the key's default."""
    found = []
    for key in FLAG_KEYS:
        if not _has(ctx, key):
            continue
        value = ctx.fm[key]
        if isinstance(value, bool):
            continue
        if isinstance(value, str | int | float) and str(value).strip().lower() in (
            *TRUE_WORDS,
            *FALSE_WORDS,
        ):
            continue
        found.append(
            f"{key} must be true or false, found {shorten(value)} "
            f"(Claude Code {CLAUDE_CODE_KEYS_VERSION} uses its default instead)"
        )
    return found


def _string_lists(ctx: Ctx) -> CheckResult:
    """`disallowed-tools` and `paths`: a comma-separated string or a list of strings (Claude
    Code drops other items)."""
    found = []
    for key in STRING_LIST_KEYS:
        value = ctx.fm.get(key)
        if value is None or isinstance(value, str):
            continue
        if not isinstance(value, list):
            found.append(f"{key} must be a string or a list of strings, found {shorten(value)}")
            continue
        found.extend(
            f"{key}[{i}] must be a string, found {shorten(item)}"
            for i, item in enumerate(value)
            if not isinstance(item, str)
        )
    return found


def _shell_value(ctx: Ctx) -> CheckResult:
    value = ctx.fm.get("shell")
    if value is None or str(value).strip().lower() in ("", *SHELLS):
        return None
    return (
        f"shell must be bash or powershell, found {shorten(value)} (Claude Code falls back to bash)"
    )


def _linked_skill_md(ctx: Ctx) -> CheckResult:
    """SKILL.md links to a file outside the skill folder (inside the root, or it would not have
    been read): valid, but the folder alone is not the skill."""
    target = linked_outside(ctx.path)
    if target is None:
        return None
    return (
        f"SKILL.md is a symlink to {shorten(target, 120)}, outside the skill folder (inside "
        f"{link_root(ctx.path, ctx.root)}): read and validated, but a copy of the folder alone "
        "loses it"
    )


def _too_many_lines(ctx: Ctx) -> CheckResult:
    text = ctx.text
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    return f"SKILL.md has {lines} lines, over {MAX_LINES}" if lines > MAX_LINES else None


def _agent_limits(enforced: bool) -> Callable[[Ctx], CheckResult]:
    """The check of the agent profile's own limits (`AGENT_LIMITS`) for the agents that enforce
    them (`enforced`) or only document them."""

    def check(ctx: Ctx) -> CheckResult:
        limits = AGENT_LIMITS.get(ctx.profile)
        if limits is None or limits.enforced is not enforced:
            return None
        found = _limits_broken(ctx, limits)
        if enforced:
            return found
        return [f"{m} (documented; {limits.note})" for m in found]

    return check


def _limits_broken(ctx: Ctx, limits: AgentLimits) -> list[str]:
    found: list[str] = []
    name, text = _name(ctx), _description(ctx)
    for key, value in (("name", name), ("description", text)):
        if value is None or not value.strip():
            found.append(f"{limits.agent} needs a {key}")
    if name and limits.max_name is not None and len(name) > limits.max_name:
        found.append(f"{limits.agent}: a name of at most {limits.max_name} characters")
    if text and limits.max_description is not None and len(text) > limits.max_description:
        found.append(
            f"{limits.agent}: a description of at most {limits.max_description} characters "
            f"(this one has {len(text)})"
        )
    if text and limits.single_line_description and "\n" in text.strip():
        found.append(f"{limits.agent}: a one-line description")
    if name and limits.name_matches_folder and name != ctx.folder_name:
        found.append(
            f"{limits.agent}: the name must match the folder name "
            f"({shorten(name)} in {shorten(ctx.folder_name)})"
        )
    return found


def _when_to_use(ctx: Ctx) -> CheckResult:
    headings = [m for m in WHEN_TO_USE_RE.finditer(ctx.body) if ctx.body_outside_fences(m.start())]
    if not headings:
        return None
    line = ctx.body[headings[0].start() :].split("\n", 1)[0].strip()
    return f"body heading {shorten(line, 50)}: trigger guidance belongs in the description"


def _escapes(target: str) -> bool:
    """Does a relative link target climb out of the skill folder (SKILL.md is at its top)?"""
    if ".." not in target or target.startswith(("#", "/", "\\")) or SCHEME_RE.match(target):
        return False
    path = re.split(r"[?#]", target, maxsplit=1)[0].replace("\\", "/")
    return bool(path) and posixpath.normpath(path).split("/")[0] == ".."


def _deep_links(ctx: Ctx) -> CheckResult:
    if ".." not in ctx.body:  # no link can climb out (the common case, checked cheaply)
        return None
    targets: list[str] = []
    for pattern in (LINK_RE, REFERENCE_LINK_RE):
        for match in pattern.finditer(ctx.body):
            if _escapes(match.group(1)) and ctx.body_outside_fences(match.start()):
                targets.append(match.group(1))
    return [f"link target {shorten(t)} escapes the skill folder" for t in targets]


MAX_NAMED_FILES = 5


def _readme(ctx: Ctx) -> CheckResult:
    """One finding per skill, naming every README.md found (the first few, then a count)."""
    try:
        found = sorted(
            rel for rel in iter_files(ctx.path) if rel.rsplit("/", 1)[-1].lower() == "readme.md"
        )
    except InputError as exc:
        return f"could not list the folder to look for README.md: {exc.detail}"
    except OSError as exc:
        return f"could not list the folder to look for README.md: {exc.strerror or exc}"
    if not found:
        return None
    named = ", ".join(shorten(rel, 80) for rel in found[:MAX_NAMED_FILES])
    more = f" and {len(found) - MAX_NAMED_FILES} more" if len(found) > MAX_NAMED_FILES else ""
    files = "file" if len(found) == 1 else "files"
    return f"README {files} in the skill folder: {named}{more} (skill folders should not hold one)"


# ---------------------------------------------------------------------------------------------
# The table

ALL: frozenset[Profile] = frozenset(PROFILES)
CC: frozenset[Profile] = frozenset({"claude-code"})
AGENTS: frozenset[Profile] = frozenset(AGENT_PROFILES)

RULES: tuple[Rule, ...] = (
    Rule("SKILL_DIR_MISSING", "error", ALL, _stopped("SKILL_DIR_MISSING"), "Skill directory does not exist", stop=True),
    Rule("SKILL_PATH_NOT_DIR", "error", ALL, _stopped("SKILL_PATH_NOT_DIR"), "Path is not a directory", stop=True),
    Rule("SKILL_MD_MISSING", "error", ALL, _stopped("SKILL_MD_MISSING"), "Missing SKILL.md", stop=True),
    Rule("FRONTMATTER_PARSE", "error", ALL, _stopped("FRONTMATTER_PARSE"), "Cannot parse frontmatter", stop=True),
    Rule("FRONTMATTER_INVALID", "error", ALL, _stopped("FRONTMATTER_INVALID"), "Frontmatter is not a valid YAML mapping", stop=True),
    Rule("SKILL_MD_LINK_OUTSIDE", "error", ALL, _stopped("SKILL_MD_LINK_OUTSIDE"), "SKILL.md links outside the library or repository root", stop=True),
    Rule("SKILL_MD_LINKED", "warning", ALL, _linked_skill_md, "SKILL.md links to a file outside the skill folder"),
    Rule("UNKNOWN_KEYS", "warning", ALL, _unknown_keys, "Unrecognized frontmatter keys", strict_error=True),
    Rule("MISSING_RECOMMENDED_KEY", "warning", ALL, _missing_recommended, "Missing name or description", strict_error=True),
    Rule("NAME_TYPE", "error", ALL, _name_type, "name is not a string"),
    Rule("NAME_EMPTY", "error", ALL, _name_empty, "name is empty"),
    Rule("NAME_TOO_LONG", "error", ALL, _name_too_long, "name exceeds 64 characters"),
    Rule("NAME_FORMAT", "error", ALL, _name_format, "name is not kebab-case"),
    Rule("NAME_RESERVED_PREFIX", "error", ALL, _name_reserved, "name starts with reserved prefix"),
    Rule("NAME_FOLDER_MISMATCH", "warning", ALL, _name_folder, "name doesn't match folder name"),
    Rule("DESCRIPTION_TYPE", "error", ALL, _description_type, "description is not a string"),
    Rule("DESCRIPTION_EMPTY", "error", ALL, _description_empty, "description is empty"),
    Rule("DESCRIPTION_TOO_LONG", "error", ALL, _description_too_long, "description exceeds 1024 characters"),
    Rule("DESCRIPTION_ANGLE_BRACKETS", "error", ALL, _description_brackets, "description contains `<` or `>`"),
    Rule("DESCRIPTION_TRIGGER_HINT", "warning", ALL, _description_trigger, TRIGGER_HINT),
    Rule("COMPATIBILITY_TYPE", "error", ALL, _type_is("compatibility", str, "a string"), "compatibility is not a string"),
    Rule("COMPATIBILITY_TOO_LONG", "error", ALL, _compatibility_too_long, "compatibility exceeds 500 characters"),
    Rule("ALLOWED_TOOLS_TYPE", "error", ALL, _type_is("allowed-tools", (str, list), "a string or a list of strings"), "allowed-tools is not string or list"),
    Rule("ALLOWED_TOOLS_ITEM_TYPE", "error", ALL, _allowed_tools_items, "allowed-tools list item is not a string"),
    Rule("MODEL_TYPE", "error", CC, _type_is("model", str, "a string"), "model is not a string"),
    Rule("HOOKS_TYPE", "error", CC, _type_is("hooks", dict, "a mapping"), "hooks is not a mapping"),
    Rule("EFFORT_VALUE", "error", CC, _effort_value, "effort is not a level or an integer"),
    Rule("CONTEXT_VALUE", "error", CC, _context_value, "context is not inline or fork"),
    Rule("FLAG_VALUE", "error", CC, _flag_values, "a true/false key has another value"),
    Rule("STRING_LIST_TYPE", "error", CC, _string_lists, "disallowed-tools or paths is not a string or list of strings"),
    Rule("SHELL_VALUE", "error", CC, _shell_value, "shell is not bash or powershell"),
    Rule("CONTEXT_FORK_NO_AGENT", "warning", CC, _fork_without_agent, "context: fork but no agent set"),
    Rule("AGENT_WITHOUT_FORK", "warning", CC, _agent_without_fork, "agent set but context is not fork"),
    Rule("SKILL_MD_TOO_LONG", "warning", ALL, _too_many_lines, "SKILL.md exceeds 500 lines"),
    Rule("WHEN_TO_USE_IN_BODY", "warning", ALL, _when_to_use, "Trigger guidance should be in description"),
    Rule("DEEP_LINK_TARGET", "warning", ALL, _deep_links, "Link escapes skill directory"),
    Rule("README_PRESENT", "warning", ALL, _readme, "README.md found in skill folder", strict_error=True),
    Rule("AGENT_LIMIT", "error", AGENTS, _agent_limits(True), "breaks a limit the agent enforces"),
    Rule("AGENT_DOCUMENTED_LIMIT", "warning", AGENTS, _agent_limits(False), "breaks a limit the agent documents"),
)  # fmt: skip

CODES: dict[str, CodeInfo] = {
    rule.code: CodeInfo("warning/error" if rule.strict_error else rule.level, rule.message)
    for rule in RULES
}
DESCRIPTION_RULES: tuple[Rule, ...] = tuple(r for r in RULES if r.code.startswith("DESCRIPTION_"))


# ---------------------------------------------------------------------------------------------
# Entry points


def _run(rules: Iterable[Rule], ctx: Ctx) -> list[Finding]:
    findings: list[Finding] = []
    for rule in rules:
        if ctx.profile not in rule.profiles:
            continue
        found = rule.run(ctx)
        findings.extend(found)
        if rule.stop and found:
            break
    return findings


def _check_profile(profile: str) -> Profile:
    if profile not in PROFILES:
        raise InputError(
            f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}", field="profile"
        )
    return profile


def validate_skill(
    path: str | Path,
    *,
    profile: Profile = "claude-code",
    strict: bool = False,
    root: str | Path | None = None,
) -> ValidationReport:
    """Validate one skill folder; never raises for bad skill content (findings instead). A
    SKILL.md linking outside the skill folder is read when it stays inside `link_root(path,
    root)` (`root`: the library being validated; SKILL_MD_LINKED, a warning), else an error
    (SKILL_MD_LINK_OUTSIDE): not read."""
    ctx = Ctx(path, profile=_check_profile(profile), strict=strict, root=root)
    return ValidationReport.from_findings(os.path.abspath(path), _run(RULES, ctx))


def validate_description(text: object, *, name: str | None = None) -> list[Finding]:
    """The description rules alone (type, empty, length, brackets, trigger language).

    `name` is accepted so callers can pass the skill's name; the seed rules do not use it.
    """
    frontmatter: dict[str, Any] = {"description": text}
    if name is not None:
        frontmatter["name"] = name
    return _run(DESCRIPTION_RULES, Ctx(".", frontmatter=frontmatter))


def validate_library(
    root: str | Path, *, profile: Profile = "claude-code", strict: bool = False
) -> list[ValidationReport]:
    """Validate every skill folder under `root` (see `find_skills`; a SKILL.md may link anywhere
    inside `root`); a missing root or a root without skills gives the single report of
    `validate_skill(root)`."""
    skills = find_skills(root) if Path(root).is_dir() else []
    if not skills:
        return [validate_skill(root, profile=profile, strict=strict)]
    profile = _check_profile(profile)
    return [validate_skill(p, profile=profile, strict=strict, root=root) for p in skills]


def _skill_label(report: ValidationReport, root: str | Path | None = None) -> str:
    """The skill's path relative to the library `root` (POSIX), else its folder name."""
    if root is not None:
        rel = os.path.relpath(report.skill_path, os.path.abspath(root))
        return Path(rel).as_posix()
    return os.path.basename(report.skill_path.rstrip("/\\")) or report.skill_path


def findings_frame(
    reports: Iterable[ValidationReport], root: str | Path | None = None
) -> pd.DataFrame:
    """One row per finding (skill, skill_path, valid, level, code, message); a skill with no
    findings appears once with level/code/message None. `skill` is the path relative to the
    library `root` when given (two libraries' `.claude/skills/x` and `.gemini/skills/x` differ),
    else the folder name."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for report in reports:
        base = {
            "skill": _skill_label(report, root),
            "skill_path": report.skill_path,
            "valid": report.valid,
        }
        findings = [*report.errors, *report.warnings]
        if not findings:
            rows.append({**base, "level": None, "code": None, "message": None})
        rows.extend(
            {**base, "level": f.level, "code": f.code, "message": f.message} for f in findings
        )
    columns = ["skill", "skill_path", "valid", "level", "code", "message"]
    return pd.DataFrame(rows, columns=columns)


def summary_frame(
    reports: Iterable[ValidationReport], root: str | Path | None = None
) -> pd.DataFrame:
    """One row per skill: skill (relative to `root` when given), valid, errors, warnings."""
    import pandas as pd

    rows = [
        {
            "skill": _skill_label(r, root),
            "valid": r.valid,
            "errors": r.summary.error_count,
            "warnings": r.summary.warning_count,
        }
        for r in reports
    ]
    return pd.DataFrame(rows, columns=["skill", "valid", "errors", "warnings"])
