"""Issue 32 item 5: Codex counts a trigger only for a read of the skill's SKILL.md content
(`codex/reads.py`), one case per edge, each folded by `CodexFold` as a replayed first move is.

The rule before counted any call naming a skill's SKILL.md: an `ls` of it, and a 3-line peek at
one skill before the model turned to another, both counted for the first skill (the first two
cases fail on it)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.backends.codex.listing import parse_listing
from skillbench.backends.codex.reads import PEEK_LINES
from skillbench.backends.codex.session import as_response_event
from skillbench.backends.codex.stream import CodexFold
from skillbench.backends.replay.move import OTHER_SKILL, OTHER_TOOL, TARGET
from skillbench.backends.skill_install import cli_skills

ROOT = "/tmp/skillbench-agent/project/.agents/skills"
SYSTEM = "/tmp/skillbench-agent/home/.codex/skills/.system"
T = f"{ROOT}/csv-cleanup/SKILL.md"
S = f"{ROOT}/sql-query-reviewer/SKILL.md"
TARGET_SKILL = SkillEntry("csv-cleanup", "Clean CSV files: duplicates, delimiters, encodings.")
OTHER = SkillEntry("sql-query-reviewer", "Review SQL queries for bugs and performance.")
LISTING = (
    "<skills_instructions>\n## Skills\n### Skill roots\n"
    f"- `r0` = `{SYSTEM}`\n- `r1` = `{ROOT}`\n### Available skills\n"
    "- imagegen: Generate or edit raster images (file: r0/imagegen/SKILL.md)\n"
    f"- csv-cleanup: {TARGET_SKILL.description} (file: r1/csv-cleanup/SKILL.md)\n"
    f"- sql-query-reviewer: {OTHER.description} (file: r1/sql-query-reviewer/SKILL.md)\n"
    "</skills_instructions>"
)
BODY = {"input": [{"role": "developer", "content": [{"type": "input_text", "text": LISTING}]}]}


def exec_command(cmd: str, workdir: str | None = None) -> dict[str, Any]:
    """Codex's `exec_command` function call."""
    args: dict[str, Any] = {"cmd": cmd}
    if workdir is not None:
        args["workdir"] = workdir
    return {"type": "function_call", "name": "exec_command", "arguments": json.dumps(args)}


def exec_cell(*commands: str) -> dict[str, Any]:
    """A responses-lite `exec` JavaScript cell running `commands` one after the other."""
    lines = [f"await tools.exec_command({{cmd: {json.dumps(c)}}});" for c in commands]
    return {
        "type": "custom_tool_call",
        "name": "exec",
        "namespace": "functions",
        "input": "\n".join(lines),
    }


def move_of(item: dict[str, Any]) -> tuple[str, str | None]:
    fold = CodexFold("csv-cleanup", cli_skills(TARGET_SKILL, (OTHER,)), parse_listing(BODY))
    fold.feed({"type": "response.output_item.done", "item": item})
    fold.feed({"type": "response.completed", "response": {"status": "completed", "usage": {}}})
    move = fold.finish()
    return move.kind, move.fired


CASES = [
    # the issue's: naming the file is not reading it; a peek then another skill is the other's
    ("ls of the SKILL.md", exec_command(f"ls -la {T}"), OTHER_TOOL, None),
    (
        "3 lines then another skill",
        exec_command(f"head -n 3 {T} && cat {S}"),
        OTHER_SKILL,
        "sql-query-reviewer",
    ),
    (
        "3 lines then another skill, two commands of one cell",
        exec_cell(f"sed -n 1,3p {T}", f"cat {S}"),
        OTHER_SKILL,
        "sql-query-reviewer",
    ),
    ("test -f", exec_command(f"test -f {T} && echo present"), OTHER_TOOL, None),
    ("[ -f ]", exec_command(f"[ -f {T} ] && echo ok"), OTHER_TOOL, None),
    ("wc -l", exec_command(f"wc -l {T}"), OTHER_TOOL, None),
    ("stat", exec_command(f"stat {T}"), OTHER_TOOL, None),
    ("grep for a name", exec_command(f"grep -n '^name:' {T} {S}"), OTHER_TOOL, None),
    ("rg over the skills folder", exec_command(f"rg -l csv {ROOT}"), OTHER_TOOL, None),
    ("a read piped into wc", exec_command(f"cat {T} | wc -l"), OTHER_TOOL, None),
    ("a read into a file", exec_command(f"cat {T} > /tmp/copy.md"), OTHER_TOOL, None),
    (
        "an edit of the SKILL.md",
        {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "input": f"*** Begin Patch\n*** Update File: {T}\n@@\n-a\n+b\n*** End Patch",
        },
        OTHER_TOOL,
        None,
    ),
    # reads
    ("cat", exec_command(f"cat {T}"), TARGET, "csv-cleanup"),
    (
        "sed -n 1,200p (Codex's whole read)",
        exec_command(f"sed -n '1,200p' {T}"),
        TARGET,
        "csv-cleanup",
    ),
    ("a peek alone counts", exec_command(f"head -n 3 {T}"), TARGET, "csv-cleanup"),
    ("a read piped into head", exec_command(f"cat {T} | head -5"), TARGET, "csv-cleanup"),
    (
        "a whole read first, then another skill",
        exec_command(f"sed -n '1,200p' {T}; cat {S}"),
        TARGET,
        "csv-cleanup",
    ),
    ("exists, then read", exec_command(f"test -f {T} && cat {T}"), TARGET, "csv-cleanup"),
    (
        "the frontmatter only, then another skill",
        exec_command(f"sed -n '/^---$/,/^---$/p' {T}; cat {S}"),
        OTHER_SKILL,
        "sql-query-reviewer",
    ),
    (
        "two peeks: the one turned to",
        exec_command(f"head -3 {T}; head -3 {S}"),
        OTHER_SKILL,
        "sql-query-reviewer",
    ),
    (
        "cd, then a relative read",
        exec_command(f"cd {ROOT}/csv-cleanup && cat SKILL.md"),
        TARGET,
        "csv-cleanup",
    ),
    (
        "a relative read in the call's workdir",
        exec_command("cat SKILL.md", workdir=f"{ROOT}/csv-cleanup"),
        TARGET,
        "csv-cleanup",
    ),
    (
        "a relative path from the project",
        exec_command("cat .agents/skills/csv-cleanup/SKILL.md"),
        TARGET,
        "csv-cleanup",
    ),
    ("input redirection", exec_command(f"cat < {T}"), TARGET, "csv-cleanup"),
    (
        "stderr to /dev/null still shows it",
        exec_command(f"cat {T} 2>/dev/null"),
        TARGET,
        "csv-cleanup",
    ),
    (
        "a shell argv",
        {
            "type": "local_shell_call",
            "action": {"type": "exec", "command": ["bash", "-lc", f"cat {T}"]},
        },
        TARGET,
        "csv-cleanup",
    ),
    (
        "an interpreter reading it",
        exec_command(f"python3 -c \"print(open('{T}').read())\""),
        TARGET,
        "csv-cleanup",
    ),
    ("a built-in skill", exec_cell(f"cat {SYSTEM}/imagegen/SKILL.md"), OTHER_SKILL, "imagegen"),
]


@pytest.mark.parametrize(
    ("item", "kind", "fired"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_trigger_is_a_read_of_the_skill_md_content(
    item: dict[str, Any], kind: str, fired: str | None
) -> None:
    assert move_of(item) == (kind, fired)


def test_a_peek_is_at_most_peek_lines() -> None:
    """A bounded read longer than a peek decides even when another skill is read after it."""
    longer = exec_command(f"head -n {PEEK_LINES + 1} {T}; cat {S}")
    peek = exec_command(f"head -n {PEEK_LINES} {T}; cat {S}")
    assert move_of(longer) == (TARGET, "csv-cleanup")
    assert move_of(peek) == (OTHER_SKILL, "sql-query-reviewer")


@pytest.mark.parametrize(
    ("command", "kind"),
    [(f"/bin/bash -lc 'cat {T}'", TARGET), (f"/bin/bash -lc 'ls {T}'", OTHER_TOOL)],
    ids=["read", "ls"],
)
def test_the_session_harness_applies_the_same_rule(command: str, kind: str) -> None:
    """`codex exec --json`'s `command_execution` (the session harness) is folded by the same
    rule."""
    event = as_response_event(
        {
            "type": "item.started",
            "item": {"id": "i", "type": "command_execution", "command": command},
        }
    )
    assert event is not None
    assert move_of(event["item"])[0] == kind
