"""Static validator for skill folders: one table of rules → seed-001 `ValidationReport`.

A rule is one row of `FRONTMATTER_RULES` or `BODY_RULES`: ``Rule(code, level, profiles,
check, message)``. ``check(ctx)`` returns a falsy value (pass), ``True`` (one finding with the
rule's message), a string or a list of strings (one finding per string). Stop rules
(``stop=True``) end validation when they fire; ``strict_error=True`` rules are errors under
``strict``. Adding a rule is one row.

The profiles are the open standard's (`agentskills`) and one per agent whose backend declares
one (`BackendSpec.skill_keys`: the keys it reads beyond the standard's and the checks of their
values, which run between the two tables; `BackendSpec.skill_limits`: its limits; the default
profile is the one a spec marks `default_profile`). They are read from the specs when a skill is
validated (`profiles()`): no agent is named here.
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

from skillbench.backends.spec import (
    OPEN_STANDARD,
    SkillCheck,
    SkillLimits,
    default_skill_profile,
    load_target,
    skill_profiles,
)
from skillbench.errors import InputError
from skillbench.schemas.validation import Finding, ValidationReport
from skillbench.skill import (
    FrontmatterProblem,
    blank,
    decode_skill_md,
    find_skills,
    iter_files,
    link_root,
    linked_outside,
    parse_frontmatter,
    read_skill_md,
    shorten,
    wrong_type,
)

if TYPE_CHECKING:
    import pandas as pd

    from skillbench.backends.spec import BackendSpec

Profile = str
"""`agentskills` (the open standard), or the name of a backend whose agent has a profile of
its own (`backends.spec.skill_profiles`)."""
Level = Literal["error", "warning"]
CheckResult = bool | str | list[str] | None

STANDARD: Profile = OPEN_STANDARD
"""The open standard's profile: its keys only, a description required."""
AGENTSKILLS_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
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
        profiles: Profiles,
        profile: Profile,
        strict: bool = False,
        frontmatter: dict[str, Any] | None = None,
        root: str | Path | None = None,
    ) -> None:
        self.path = Path(path)
        self.profiles = profiles
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
    profiles: frozenset[Profile] | None
    """The profiles it runs in (None: every profile)."""
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
    allowed = ctx.profiles.allowed[ctx.profile]
    unknown = [str(k) for k in ctx.fm if k not in allowed]
    if not unknown:
        return None
    shown = ", ".join(shorten(k, 40) for k in unknown[:10])
    more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
    return f"unknown frontmatter keys for profile {ctx.profile}: {shown}{more}"


def _required(ctx: Ctx) -> tuple[str, ...]:
    """Keys whose absence is an error of its own in this profile (the open standard requires a
    description), so MISSING_RECOMMENDED_KEY does not report them twice."""
    return ("description",) if ctx.profile == STANDARD else ()


def _missing_recommended(ctx: Ctx) -> CheckResult:
    required = _required(ctx)
    return [
        f"missing recommended key: {key}"
        for key in ("name", "description")
        if key not in ctx.fm and key not in required
    ]


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
    return _has(ctx, key) and blank(ctx.fm.get(key))


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
    return lambda ctx: wrong_type(ctx.fm, key, kinds, what)


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
    """The check of the agent profile's own limits (`BackendSpec.skill_limits`) for the agents
    that enforce them (`enforced`) or only document them."""

    def check(ctx: Ctx) -> CheckResult:
        limits = ctx.profiles.limits.get(ctx.profile)
        if limits is None or limits.enforced is not enforced:
            return None
        found = _limits_broken(ctx, limits)
        if enforced:
            return found
        return [f"{m} (documented; {limits.note})" for m in found]

    return check


def _limits_broken(ctx: Ctx, limits: SkillLimits) -> list[str]:
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

FRONTMATTER_RULES: tuple[Rule, ...] = (
    Rule("SKILL_DIR_MISSING", "error", None, _stopped("SKILL_DIR_MISSING"), "Skill directory does not exist", stop=True),
    Rule("SKILL_PATH_NOT_DIR", "error", None, _stopped("SKILL_PATH_NOT_DIR"), "Path is not a directory", stop=True),
    Rule("SKILL_MD_MISSING", "error", None, _stopped("SKILL_MD_MISSING"), "Missing SKILL.md", stop=True),
    Rule("FRONTMATTER_PARSE", "error", None, _stopped("FRONTMATTER_PARSE"), "Cannot parse frontmatter", stop=True),
    Rule("FRONTMATTER_INVALID", "error", None, _stopped("FRONTMATTER_INVALID"), "Frontmatter is not a valid YAML mapping", stop=True),
    Rule("SKILL_MD_LINK_OUTSIDE", "error", None, _stopped("SKILL_MD_LINK_OUTSIDE"), "SKILL.md links outside the library or repository root", stop=True),
    Rule("SKILL_MD_LINKED", "warning", None, _linked_skill_md, "SKILL.md links to a file outside the skill folder"),
    Rule("UNKNOWN_KEYS", "warning", None, _unknown_keys, "Unrecognized frontmatter keys", strict_error=True),
    Rule("MISSING_RECOMMENDED_KEY", "warning", None, _missing_recommended, "Missing name or description", strict_error=True),
    Rule("NAME_TYPE", "error", None, _name_type, "name is not a string"),
    Rule("NAME_EMPTY", "error", None, _name_empty, "name is empty"),
    Rule("NAME_TOO_LONG", "error", None, _name_too_long, "name exceeds 64 characters"),
    Rule("NAME_FORMAT", "error", None, _name_format, "name is not kebab-case"),
    Rule("NAME_RESERVED_PREFIX", "error", None, _name_reserved, "name starts with reserved prefix"),
    Rule("NAME_FOLDER_MISMATCH", "warning", None, _name_folder, "name doesn't match folder name"),
    Rule("DESCRIPTION_TYPE", "error", None, _description_type, "description is not a string"),
    Rule("DESCRIPTION_EMPTY", "error", None, _description_empty, "description is empty"),
    Rule("DESCRIPTION_TOO_LONG", "error", None, _description_too_long, "description exceeds 1024 characters"),
    Rule("DESCRIPTION_ANGLE_BRACKETS", "error", None, _description_brackets, "description contains `<` or `>`"),
    Rule("DESCRIPTION_TRIGGER_HINT", "warning", None, _description_trigger, TRIGGER_HINT),
    Rule("COMPATIBILITY_TYPE", "error", None, _type_is("compatibility", str, "a string"), "compatibility is not a string"),
    Rule("COMPATIBILITY_TOO_LONG", "error", None, _compatibility_too_long, "compatibility exceeds 500 characters"),
    Rule("ALLOWED_TOOLS_TYPE", "error", None, _type_is("allowed-tools", (str, list), "a string or a list of strings"), "allowed-tools is not string or list"),
    Rule("ALLOWED_TOOLS_ITEM_TYPE", "error", None, _allowed_tools_items, "allowed-tools list item is not a string"),
)  # fmt: skip
"""Every profile's: the stop rules, the keys, name, description and the open standard's other
keys. An agent's own value checks (`SkillKeys.checks`) run after these, in its profile only."""
BODY_RULES: tuple[Rule, ...] = (
    Rule("SKILL_MD_TOO_LONG", "warning", None, _too_many_lines, "SKILL.md exceeds 500 lines"),
    Rule("WHEN_TO_USE_IN_BODY", "warning", None, _when_to_use, "Trigger guidance should be in description"),
    Rule("DEEP_LINK_TARGET", "warning", None, _deep_links, "Link escapes skill directory"),
    Rule("README_PRESENT", "warning", None, _readme, "README.md found in skill folder", strict_error=True),
    Rule("AGENT_LIMIT", "error", None, _agent_limits(True), "breaks a limit the agent enforces"),
    Rule("AGENT_DOCUMENTED_LIMIT", "warning", None, _agent_limits(False), "breaks a limit the agent documents"),
)  # fmt: skip
"""Every profile's: the body, the folder, and the agent's own limits (none in a profile
without `skill_limits`)."""
DESCRIPTION_RULES: tuple[Rule, ...] = tuple(
    r for r in FRONTMATTER_RULES if r.code.startswith("DESCRIPTION_")
)


def _agent_rule(profile: Profile, check: SkillCheck) -> Rule:
    """An agent's value check as a rule of its profile, given the frontmatter."""
    level: Level = "warning" if check.level == "warning" else "error"
    return Rule(
        check.code, level, frozenset({profile}), lambda ctx: check.check(ctx.fm), check.message
    )


@dataclass(frozen=True)
class Profiles:
    """The validator's profiles as the installed backends declare them."""

    names: tuple[Profile, ...]
    """`agentskills`, then each agent's (by backend name)."""
    default: Profile
    allowed: dict[Profile, frozenset[str]]
    """The frontmatter keys each profile knows: the standard's, plus the agent's own."""
    limits: dict[Profile, SkillLimits]
    rules: tuple[Rule, ...]
    """Every rule, in the order they run (`FRONTMATTER_RULES`, the agents' checks, `BODY_RULES`)."""
    agents: dict[Profile, str]
    """How each agent profile names its agent (`SkillKeys.agent`, `SkillLimits.agent`)."""

    def check(self, profile: str | None) -> Profile:
        """`profile`, else the default; InputError naming `profile` for an unknown one."""
        chosen = profile or self.default
        if chosen not in self.names:
            raise InputError(
                f"unknown profile {chosen!r}; choose one of {', '.join(self.names)}",
                field="profile",
            )
        return chosen

    def codes(self) -> dict[str, CodeInfo]:
        """Each code's default level ("warning/error" when strict makes it an error) and
        description, in the order the rules run."""
        return {
            rule.code: CodeInfo("warning/error" if rule.strict_error else rule.level, rule.message)
            for rule in self.rules
        }


_built: dict[tuple[tuple[str, int], ...], Profiles] = {}


def profiles() -> Profiles:
    """The profiles of the backends installed now (`backends.spec.skill_profiles`; a backend
    registered at run time included), built once per set of declaring specs."""
    declared = skill_profiles()
    key = tuple((name, id(spec)) for name, spec in declared.items())
    if key not in _built:
        _built[key] = _build(declared, default_skill_profile())
    return _built[key]


def _build(declared: dict[str, BackendSpec], default: Profile) -> Profiles:
    allowed = {STANDARD: frozenset(AGENTSKILLS_KEYS)}
    limits: dict[Profile, SkillLimits] = {}
    checks: list[Rule] = []
    agents: dict[Profile, str] = {}
    for name, spec in declared.items():
        keys, own = spec.skill_keys, spec.skill_limits
        allowed[name] = frozenset((*AGENTSKILLS_KEYS, *(keys.keys if keys else ())))
        if own is not None:
            limits[name] = own
        if keys is not None and keys.checks:
            rows: tuple[SkillCheck, ...] = load_target(keys.checks, name)
            checks.extend(_agent_rule(name, row) for row in rows)
        agents[name] = next(x.agent for x in (keys, own) if x is not None)
    return Profiles(
        names=(STANDARD, *declared),
        default=default,
        allowed=allowed,
        limits=limits,
        rules=(*FRONTMATTER_RULES, *checks, *BODY_RULES),
        agents=agents,
    )


# ---------------------------------------------------------------------------------------------
# Entry points


def _run(rules: Iterable[Rule], ctx: Ctx) -> list[Finding]:
    findings: list[Finding] = []
    for rule in rules:
        if rule.profiles is not None and ctx.profile not in rule.profiles:
            continue
        found = rule.run(ctx)
        findings.extend(found)
        if rule.stop and found:
            break
    return findings


def validate_skill(
    path: str | Path,
    *,
    profile: Profile | None = None,
    strict: bool = False,
    root: str | Path | None = None,
) -> ValidationReport:
    """Validate one skill folder against `profile` (None: the default, `profiles().default`);
    never raises for bad skill content (findings instead). A SKILL.md linking outside the skill
    folder is read when it stays inside `link_root(path, root)` (`root`: the library being
    validated; SKILL_MD_LINKED, a warning), else an error (SKILL_MD_LINK_OUTSIDE): not read."""
    table = profiles()
    ctx = Ctx(path, profiles=table, profile=table.check(profile), strict=strict, root=root)
    return ValidationReport.from_findings(os.path.abspath(path), _run(table.rules, ctx))


def validate_description(text: object, *, name: str | None = None) -> list[Finding]:
    """The description rules alone (type, empty, length, brackets, trigger language), as the
    default profile applies them.

    `name` is accepted so callers can pass the skill's name; the seed rules do not use it.
    """
    frontmatter: dict[str, Any] = {"description": text}
    if name is not None:
        frontmatter["name"] = name
    table = profiles()
    ctx = Ctx(".", profiles=table, profile=table.default, frontmatter=frontmatter)
    return _run(DESCRIPTION_RULES, ctx)


def validate_library(
    root: str | Path, *, profile: Profile | None = None, strict: bool = False
) -> list[ValidationReport]:
    """Validate every skill folder under `root` (see `find_skills`; a SKILL.md may link anywhere
    inside `root`); a missing root or a root without skills gives the single report of
    `validate_skill(root)`."""
    skills = find_skills(root) if Path(root).is_dir() else []
    if not skills:
        return [validate_skill(root, profile=profile, strict=strict)]
    profile = profiles().check(profile)
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
