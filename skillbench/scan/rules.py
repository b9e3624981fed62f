"""The scan's rules: one `Rule` per id, with its severity, a one-line summary and its check.

``check(ctx)`` returns `Hit` s (file, line, reason); the rule's id and severity make each a
`ScanFinding`. Adding a rule is one row of `RULES` (its hostile example goes under
``tests/data/scan/hostile/<id>/``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from skillbench.scan import patterns as p
from skillbench.scan.files import SkillFile
from skillbench.scan.findings import Severity
from skillbench.scan.hidden import HiddenKind, hidden_runs
from skillbench.scan.secrets import SecretHit, find_secrets
from skillbench.skill import SKILL_MD, parse_frontmatter, shorten

MAX_HITS_PER_RULE_AND_FILE = 20
SHELL_TOOLS = frozenset({"bash", "powershell", "shell", "run_shell_command", "exec_command"})


class Hit(NamedTuple):
    """Where a rule fired and why."""

    file: str
    line: int
    reason: str


@dataclass
class Ctx:
    """One skill's files, read once, and what the rules share (secrets are found once)."""

    files: list[SkillFile]
    _secrets: dict[str, list[SecretHit]] = field(default_factory=dict)

    @property
    def skill_md(self) -> SkillFile | None:
        return next((f for f in self.files if f.rel == SKILL_MD), None)

    def of_kind(self, *kinds: str) -> list[SkillFile]:
        return [f for f in self.files if f.kind in kinds]

    def secrets(self, file: SkillFile) -> list[SecretHit]:
        if file.rel not in self._secrets:
            self._secrets[file.rel] = find_secrets(file.path)
        return self._secrets[file.rel]

    def frontmatter(self) -> dict[str, Any]:
        skill_md = self.skill_md
        if skill_md is None:
            return {}
        return parse_frontmatter(skill_md.text).mapping or {}


@dataclass(frozen=True)
class Rule:
    """One row of the table: id, severity, what it finds (SARIF's short description), check."""

    id: str
    severity: Severity
    summary: str
    check: Callable[[Ctx], Iterable[Hit]]


# ---------------------------------------------------------------------------------------------
# checks


def _secrets(likely: bool) -> Callable[[Ctx], Iterable[Hit]]:
    def check(ctx: Ctx) -> Iterable[Hit]:
        for file in ctx.files:
            for hit in ctx.secrets(file):
                if hit.likely_only == likely:
                    yield Hit(file.rel, hit.line, f"{hit.kind} (detect-secrets); value not shown")

    return check


def _hidden(kind: HiddenKind, what: str) -> Callable[[Ctx], Iterable[Hit]]:
    def check(ctx: Ctx) -> Iterable[Hit]:
        kinds = ("instructions",) if kind == "zero-width" else ("instructions", "script", "other")
        for file in ctx.of_kind(*kinds):
            for run in hidden_runs(file.text):
                if run.kind == kind:
                    yield Hit(file.rel, run.line, f"{what}: {run.shown}")

    return check


def _line_hits(files: Iterable[SkillFile], pattern: re.Pattern[str], reason: str) -> Iterable[Hit]:
    for file in files:
        count = 0
        for number, line in enumerate(file.lines, start=1):
            match = pattern.search(line)
            if match and count < MAX_HITS_PER_RULE_AND_FILE:
                count += 1
                yield Hit(file.rel, number, f"{reason}: {shorten(match.group().strip(), 80)}")


def _ignore_instructions(ctx: Ctx) -> Iterable[Hit]:
    return _line_hits(
        ctx.of_kind("instructions"),
        p.IGNORE_INSTRUCTIONS,
        "tells the agent to drop its instructions",
    )


def _download_run_order(ctx: Ctx) -> Iterable[Hit]:
    files = ctx.of_kind("instructions")
    yield from _line_hits(files, p.DOWNLOAD_RUN, "has the agent download code and run it unread")
    yield from _line_hits(files, p.DOWNLOAD_RUN_PROSE, "orders a download-and-run")


def _credential_order(ctx: Ctx) -> Iterable[Hit]:
    files = ctx.of_kind("instructions")
    yield from _line_hits(files, p.READ_KEY_FILE_ORDER, "orders the agent to read credential files")
    yield from _line_hits(files, p.SEND_SECRET_ORDER, "orders the agent to send credentials away")


def _script_download_run(ctx: Ctx) -> Iterable[Hit]:
    return _line_hits(
        ctx.of_kind("script", "other"), p.DOWNLOAD_RUN, "downloads code and runs it unread"
    )


def _first_line(file: SkillFile, pattern: re.Pattern[str]) -> int | None:
    return next((n for n, line in enumerate(file.lines, 1) if pattern.search(line)), None)


def _reads_sent(pattern: re.Pattern[str], what: str) -> Callable[[Ctx], Iterable[Hit]]:
    def check(ctx: Ctx) -> Iterable[Hit]:
        for file in ctx.of_kind("script"):
            network = _first_line(file, p.NETWORK)
            if network is None:
                continue
            for hit in _line_hits([file], pattern, f"reads {what}"):
                yield hit._replace(reason=f"{hit.reason}; it uses the network on line {network}")

    return check


def _base64_exec(ctx: Ctx) -> Iterable[Hit]:
    for file in ctx.of_kind("script", "other", "instructions"):
        lines = file.lines
        for number, line in enumerate(lines, start=1):
            if not p.BASE64_DECODE.search(line):
                continue
            window = lines[number - 1 : number + p.BASE64_WINDOW]
            runs = next((i for i, text in enumerate(window) if p.EXECUTE.search(text)), None)
            if runs is not None:
                where = "on the same line" if runs == 0 else f"on line {number + runs}"
                yield Hit(file.rel, number, f"decodes base64 and executes it ({where})")


def _key_line(file: SkillFile, key: str) -> int:
    match = re.search(rf"^{re.escape(key)}[ \t]*:", file.text, re.MULTILINE)
    return file.text.count("\n", 0, match.start()) + 1 if match else 1


def _hook_commands(hooks: Any) -> list[str]:
    """Every ``command`` string anywhere under the hooks mapping."""
    if isinstance(hooks, dict):
        found = [hooks["command"]] if isinstance(hooks.get("command"), str) else []
        return found + [c for value in hooks.values() for c in _hook_commands(value)]
    if isinstance(hooks, list):
        return [c for item in hooks for c in _hook_commands(item)]
    return []


def _hooks(ctx: Ctx) -> Iterable[Hit]:
    hooks = ctx.frontmatter().get("hooks")
    skill_md = ctx.skill_md
    if not hooks or skill_md is None:
        return
    events = ", ".join(map(str, hooks)) if isinstance(hooks, dict) else shorten(hooks)
    commands = _hook_commands(hooks)
    runs = f"; runs {shorten(commands[0], 80)}" if commands else ""
    more = f" (+{len(commands) - 1} more)" if len(commands) > 1 else ""
    yield Hit(
        SKILL_MD, _key_line(skill_md, "hooks"),
        f"hooks run commands on tool use without the agent deciding ({events}){runs}{more}",
    )  # fmt: skip


def _tool_entries(value: Any) -> list[str]:
    if isinstance(value, str):
        return re.findall(r"[^\s,()]+(?:\([^)]*\))?|\*", value)
    if isinstance(value, list):
        return [str(v).strip() for v in value]
    return []


def _wildcard(entry: str) -> str | None:
    """Why a tool permission is unrestricted, or None."""
    match = re.fullmatch(r"([\w.-]+)(?:\((.*)\))?", entry.strip())
    if entry.strip() in {"*", "**"}:
        return "every tool"
    if match is None:
        return None
    tool, scope = match.group(1), match.group(2)
    if scope is not None and re.fullmatch(r"\s*:?\s*\*+\s*(?::\s*\*+)?\s*", scope):
        return f"{tool} with any argument"
    if scope is None and tool.lower() in SHELL_TOOLS:
        return f"unscoped {tool}: any command"
    return None


def _wildcard_tools(ctx: Ctx) -> Iterable[Hit]:
    skill_md = ctx.skill_md
    if skill_md is None:
        return
    for entry in _tool_entries(ctx.frontmatter().get("allowed-tools")):
        why = _wildcard(entry)
        if why:
            yield Hit(
                SKILL_MD, _key_line(skill_md, "allowed-tools"),
                f"allowed-tools grants {why} without asking: {shorten(entry)}",
            )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# the table

RULES: tuple[Rule, ...] = (
    Rule("SECRET", "error", "a credential in a recognised format (detect-secrets)", _secrets(False)),
    Rule("SECRET_LIKELY", "warning",
         "a likely secret: high-entropy string or secret-named value (detect-secrets)", _secrets(True)),
    Rule("HIDDEN_TAG_TEXT", "error",
         "invisible Unicode tag characters spelling text an agent reads", _hidden("tag", "Unicode tag characters")),
    Rule("HIDDEN_BIDI", "error",
         "bidi controls: the text displayed differs from the text read", _hidden("bidi", "bidi control")),
    Rule("HIDDEN_ZERO_WIDTH", "warning",
         "zero-width characters in the instructions", _hidden("zero-width", "zero-width text")),
    Rule("INJECTED_IGNORE_INSTRUCTIONS", "error",
         "instructions telling the agent to ignore its previous instructions", _ignore_instructions),
    Rule("INJECTED_DOWNLOAD_RUN", "error",
         "instructions to download code and run it", _download_run_order),
    Rule("INJECTED_CREDENTIAL_ACCESS", "error",
         "instructions to read or send credentials", _credential_order),
    Rule("SCRIPT_DOWNLOAD_EXEC", "error",
         "a script piping a download into a shell or interpreter", _script_download_run),
    Rule("SCRIPT_CREDENTIAL_EXFIL", "error",
         "a script reading credential files (~/.ssh, ~/.aws, …) that talks to the network",
         _reads_sent(p.KEY_FILE, "credential files")),
    Rule("SCRIPT_DOTENV_EXFIL", "warning",
         "a script reading a .env file that talks to the network", _reads_sent(p.DOTENV, ".env")),
    Rule("SCRIPT_BASE64_EXEC", "error", "base64-decoded text executed", _base64_exec),
    Rule("FRONTMATTER_HOOKS", "error",
         "frontmatter hooks: commands that run on tool use", _hooks),
    Rule("FRONTMATTER_WILDCARD_TOOLS", "error",
         "wildcard or unscoped shell tool permissions in allowed-tools", _wildcard_tools),
)  # fmt: skip
RULE_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
