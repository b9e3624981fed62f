"""Issue 32 item 6: the claude-code profile knows every skill frontmatter key of the newest
Claude Code (`CLAUDE_CODE_KEYS_VERSION`) and flags the values that CLI would ignore; the
open standard's profile does not take them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.backends.claude_cli.skill_keys import (
    CLAUDE_CODE_KEYS_VERSION,
    CLAUDE_CODE_SKILL_KEYS,
)
from skillbench.validate.rules import AGENTSKILLS_KEYS, validate_skill

CLAUDE_CODE_KEYS = (*AGENTSKILLS_KEYS, *CLAUDE_CODE_SKILL_KEYS.keys)

ROOT = Path(__file__).resolve().parents[2]
LATEST_BINARY = (
    ROOT
    / ".tools"
    / f"claude-{CLAUDE_CODE_KEYS_VERSION}"
    / "node_modules"
    / "@anthropic-ai"
    / "claude-code"
    / "bin"
    / "claude.exe"
)

#: A valid value for each key the newest CLI added (YAML text).
GOOD = {
    "paths": "['src/**/*.py', 'docs/*.md']",
    "effort": "high",
    "disallowed-tools": "Bash, WebFetch",
    "background": "true",
    "shell": "powershell",
    "fallback": "false",
    "displayName": "CSV tidy",
    "defaultEnabled": "true",
    "disallowedTools": "[Bash]",
}
#: A value the CLI cannot read for each typed key, and the code that flags it.
BAD = [
    ("effort", "turbo", "EFFORT_VALUE"),
    ("effort", "true", "EFFORT_VALUE"),
    ("effort", "", "EFFORT_VALUE"),
    ("context", "forked", "CONTEXT_VALUE"),
    ("background", "sometimes", "FLAG_VALUE"),
    ("fallback", "[true]", "FLAG_VALUE"),
    ("user-invocable", "2", "FLAG_VALUE"),
    ("disable-model-invocation", "maybe", "FLAG_VALUE"),
    ("paths", "{src: x}", "STRING_LIST_TYPE"),
    ("paths", "[src, 3]", "STRING_LIST_TYPE"),
    ("disallowed-tools", "42", "STRING_LIST_TYPE"),
    ("shell", "zsh", "SHELL_VALUE"),
]


def skill(tmp_path: Path, key: str, value: str) -> Path:
    return make_skill(
        tmp_path, frontmatter=f"name: csv-tidy\ndescription: {GOOD_DESCRIPTION}\n{key}: {value}\n"
    )


@pytest.mark.parametrize("key", sorted(GOOD))
def test_new_keys_are_known_to_the_claude_code_profile_only(tmp_path: Path, key: str) -> None:
    path = skill(tmp_path, key, GOOD[key])
    report = validate_skill(path, profile="claude-code", strict=True)
    assert report.valid and not report.warnings, report
    spec = validate_skill(path, profile="agentskills")
    assert [f.code for f in spec.warnings] == ["UNKNOWN_KEYS"]
    assert key in spec.warnings[0].message


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("effort", "MAX"),
        ("effort", "xhigh"),
        ("effort", "med"),
        ("effort", "12"),
        ("effort", "'3'"),
        ("background", "'yes'"),
        ("background", "0"),
        ("context", "inline"),
        ("paths", "src/**"),
        ("shell", "Bash"),
    ],
)
def test_values_claude_code_reads_are_accepted(tmp_path: Path, key: str, value: str) -> None:
    report = validate_skill(skill(tmp_path, key, value), profile="claude-code")
    assert report.valid and not report.warnings, report


@pytest.mark.parametrize(("key", "value", "code"), BAD)
def test_values_claude_code_ignores_are_errors(
    tmp_path: Path, key: str, value: str, code: str
) -> None:
    path = skill(tmp_path, key, value)
    report = validate_skill(path, profile="claude-code")
    assert [f.code for f in report.errors] == [code], report
    assert key in report.errors[0].message
    assert code not in {f.code for f in validate_skill(path, profile="agentskills").errors}


@pytest.mark.skipif(not LATEST_BINARY.exists(), reason=f"{LATEST_BINARY} not installed")
def test_key_list_is_the_newest_cli_schema() -> None:
    """The keys come from the CLI itself: its skill frontmatter schema, read from the binary
    of the version recorded in `CLAUDE_CODE_KEYS_VERSION` (`make claude-latest`)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "claude_skill_keys.py"), str(LATEST_BINARY)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    read = {item["key"] for item in json.loads(done.stdout)}
    assert {"paths", "effort", "disallowed-tools", "background"} <= read
    assert read | set(AGENTSKILLS_KEYS) == set(CLAUDE_CODE_KEYS)
