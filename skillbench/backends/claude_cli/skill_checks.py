"""Claude Code's readers of its own frontmatter keys (`skill_keys`): the value checks the
validator's `claude-code` profile adds to its rules, each a `SkillCheck` given the frontmatter
mapping. A value Claude Code 2.1.332 would ignore or replace is flagged, saying what it does."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from skillbench.backends.claude_cli.skill_keys import CLAUDE_CODE_KEYS_VERSION
from skillbench.backends.spec import SkillCheck, SkillCheckResult
from skillbench.skill import blank, shorten, wrong_type

Frontmatter = Mapping[str, Any]

EFFORT_LEVELS = ("low", "medium", "med", "high", "xhigh", "max")
"""What Claude Code 2.1.332 reads as `effort` (case-insensitive; `med` is its alias of medium)."""
TRUE_WORDS = ("1", "true", "yes", "on")
"""Strings Claude Code reads as true in a flag key (case-insensitive, trimmed)."""
FALSE_WORDS = ("0", "false", "no", "off")
FLAG_KEYS = ("disable-model-invocation", "user-invocable", "background", "fallback")
STRING_LIST_KEYS = ("disallowed-tools", "paths")
SHELLS = ("bash", "powershell")
_LEADING_INTEGER = re.compile(r"^\s*[+-]?\d")


def _type_is(key: str, kinds: type | tuple[type, ...], what: str) -> Callable[..., Any]:
    return lambda fm: wrong_type(fm, key, kinds, what)


def _effort_value(fm: Frontmatter) -> SkillCheckResult:
    """`effort`: a level or an integer; anything else is ignored with a warning."""
    if "effort" not in fm:
        return None
    value = fm["effort"]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return None
    if isinstance(value, str) and (value.lower() in EFFORT_LEVELS or _LEADING_INTEGER.match(value)):
        return None
    levels = ", ".join(level for level in EFFORT_LEVELS if level != "med")
    return (
        f"effort must be one of {levels} or an integer, found {shorten(value)} "
        f"(Claude Code {CLAUDE_CODE_KEYS_VERSION} ignores it)"
    )


def _context_value(fm: Frontmatter) -> SkillCheckResult:
    value = fm.get("context")
    if value is None or value in ("inline", "fork"):
        return None
    return (
        f"context must be 'inline' or 'fork', found {shorten(value)} (Claude Code runs it inline)"
    )


def _flag_values(fm: Frontmatter) -> SkillCheckResult:
    """Flag keys: a boolean, or a string/number among the true and false words; anything else
    falls back to the key's default."""
    found = []
    for key in FLAG_KEYS:
        if key not in fm:
            continue
        value = fm[key]
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


def _string_lists(fm: Frontmatter) -> SkillCheckResult:
    """`disallowed-tools` and `paths`: a comma-separated string or a list of strings (Claude
    Code drops other items)."""
    found = []
    for key in STRING_LIST_KEYS:
        value = fm.get(key)
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


def _shell_value(fm: Frontmatter) -> SkillCheckResult:
    value = fm.get("shell")
    if value is None or str(value).strip().lower() in ("", *SHELLS):
        return None
    return (
        f"shell must be bash or powershell, found {shorten(value)} (Claude Code falls back to bash)"
    )


def _fork_without_agent(fm: Frontmatter) -> SkillCheckResult:
    return fm.get("context") == "fork" and blank(fm.get("agent"))


def _agent_without_fork(fm: Frontmatter) -> SkillCheckResult:
    if not blank(fm.get("agent")) and fm.get("context") != "fork":
        return f"agent is set but context is {shorten(fm.get('context'))}, not 'fork'"
    return None


CLAUDE_CODE_CHECKS: tuple[SkillCheck, ...] = (
    SkillCheck("MODEL_TYPE", "error", _type_is("model", str, "a string"), "model is not a string"),
    SkillCheck("HOOKS_TYPE", "error", _type_is("hooks", dict, "a mapping"), "hooks is not a mapping"),
    SkillCheck("EFFORT_VALUE", "error", _effort_value, "effort is not a level or an integer"),
    SkillCheck("CONTEXT_VALUE", "error", _context_value, "context is not inline or fork"),
    SkillCheck("FLAG_VALUE", "error", _flag_values, "a true/false key has another value"),
    SkillCheck("STRING_LIST_TYPE", "error", _string_lists, "disallowed-tools or paths is not a string or list of strings"),
    SkillCheck("SHELL_VALUE", "error", _shell_value, "shell is not bash or powershell"),
    SkillCheck("CONTEXT_FORK_NO_AGENT", "warning", _fork_without_agent, "context: fork but no agent set"),
    SkillCheck("AGENT_WITHOUT_FORK", "warning", _agent_without_fork, "agent set but context is not fork"),
)  # fmt: skip
"""The checks, in the order the validator runs them (after the open standard's type rules)."""
