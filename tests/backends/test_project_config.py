"""`project_config`: every key of the installed CLI's settings schema is classified (re-derived
from the CLI itself, so a new CLI version with a new key fails here), and what the copy keeps."""

from __future__ import annotations

import functools
import re

import pytest
from real_cli import real_cli_skip_reason

from skillbench.backends.anthropic.project_config import (
    CLI_COMMAND_SETTINGS,
    LEFT_OUT,
    SANDBOX_PROGRAMS,
    SCHEMA_VERSION,
    SETTINGS_KEYS,
    env_kept,
    sanitise_mcp,
    sanitise_settings,
    strip_agent_commands,
)
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.errors import InputError

#: The `sandbox` keys kept (the others name programs: `SANDBOX_PROGRAMS`).
SANDBOX_KEPT = {
    "enabled",
    "failIfUnavailable",
    "autoAllowBashIfSandboxed",
    "allowUnsandboxedCommands",
    "network",
    "filesystem",
    "credentials",
    "ignoreViolations",
    "enableWeakerNestedSandbox",
    "enableWeakerNetworkIsolation",
    "allowAppleEvents",
    "excludedCommands",
}
_KEY = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*:")
needs_cli = pytest.mark.skipif(
    real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())
)


@functools.cache
def bundle() -> str:
    """The installed CLI's code (the native build embeds its cli.js; latin-1 keeps offsets)."""
    return REPO_CLAUDE.resolve().read_bytes().decode("latin-1")


def _skip_string(text: str, at: int) -> int:
    """The index after the JavaScript string (or template literal) starting at `at`."""
    quote = text[at]
    at += 1
    while text[at] != quote:
        if text[at] == "\\":
            at += 2
        elif quote == "`" and text.startswith("${", at):
            at = _close(text, at + 1)
        else:
            at += 1
    return at + 1


def _close(text: str, at: int) -> int:
    """The index after the bracket closing the one at `at`."""
    depth = 0
    while True:
        char = text[at]
        if char in "\"'`":
            at = _skip_string(text, at)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1


def object_keys(text: str, at: int) -> list[str]:
    """The top-level keys of the object literal whose `{` is at `at` (a spread `...x&&{k:…}`
    gives its keys; a spread of a call gives none)."""
    entries, depth, start, index = [], 0, at + 1, at
    while True:
        char = text[index]
        if char in "\"'`":
            index = _skip_string(text, index)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                entries.append(text[start:index])
                break
        elif char == "," and depth == 1:
            entries.append(text[start:index])
            start = index + 1
        index += 1
    keys = []
    for entry in entries:
        if entry.startswith("..."):
            inner = entry.find("&&{")
            if inner >= 0:
                keys += object_keys(entry, inner + 2)
        elif match := _KEY.match(entry):
            keys.append(match.group(1))
    return keys


def find_all(literal: str) -> list[int]:
    """Where `literal` occurs in the bundle (str.find: a regex over 245 MB takes seconds)."""
    text, found, at = bundle(), [], bundle().find(literal)
    while at >= 0:
        found.append(at)
        at = text.find(literal, at + 1)
    return found


def _object_at(literal: str, before: str) -> list[str]:
    """The keys of the object literal opening just before the one occurrence of `literal`
    that the text `before` it ends with (a regex, tried on the 200 characters before)."""
    text = bundle()
    found = [
        at for at in find_all(literal) if re.search(before + r"\Z", text[max(0, at - 200) : at])
    ]
    assert len(found) == 1, f"{literal!r} found {len(found)} times in {REPO_CLAUDE}"
    return object_keys(text, text.rindex("{", 0, found[0]))


def schema_keys() -> set[str]:
    """Every settings key of the installed CLI: its settings object and the feature shapes it
    spreads in (`shape:()=>({…})`)."""
    described = '.string().optional().describe("JSON Schema reference for Claude Code settings")'
    keys = set(_object_at(described, r"\{\$schema:[\w$]+"))
    for at in find_all("shape:()=>({"):
        keys |= set(object_keys(bundle(), at + len("shape:()=>(")))
    return keys


@needs_cli
def test_every_settings_key_of_the_installed_cli_is_classified() -> None:
    """A key added by a newer CLI fails here until it is classified (kept or `LEFT_OUT`)."""
    assert sorted(schema_keys() - SETTINGS_KEYS) == [], f"not classified ({SCHEMA_VERSION})"
    assert sorted(SETTINGS_KEYS - schema_keys()) == []
    assert set(LEFT_OUT) <= SETTINGS_KEYS


@needs_cli
def test_the_clis_own_command_settings_are_all_left_out() -> None:
    """The CLI's list of settings that run a command (the one its settings trust check walks
    for `shellSettings`) is ours, left out."""
    text = bundle()
    walks = [text[at : at + 300] for at in find_all("return{shellSettings:{},")]
    check = {m.group(1) for w in walks if (m := re.search(r"for\(let \w+ of ([\w$]+)\)", w))}
    assert len(check) == 1
    name = check.pop()
    lists = {
        m.group(1)
        for at in find_all(f"{name}=[")
        if not re.match(r"[\w$]", text[at - 1])
        and (m := re.match(r'\[((?:"\w+",?)*)\]', text[at + len(name) + 1 : at + 2000]))
    }
    assert len(lists) == 1
    lists = list(lists)
    assert tuple(re.findall(r'"(\w+)"', lists[0])) == CLI_COMMAND_SETTINGS
    assert set(CLI_COMMAND_SETTINGS) <= set(LEFT_OUT)


@needs_cli
def test_the_sandbox_keys_naming_programs_are_known() -> None:
    keys = _object_at("failIfUnavailable:", r"\{enabled:[\w$]+\.boolean\(\)\.optional\(\),")
    assert set(keys) == SANDBOX_KEPT | set(SANDBOX_PROGRAMS)


def test_settings_keep_only_what_runs_nothing() -> None:
    data = {
        "permissions": {"allow": ["Read"]},
        "model": "haiku",
        "statusLine": {"type": "command", "command": "date"},
        "hooks": {},
        "futureHelper": "run-me",
        "env": {
            "MAX_THINKING_TOKENS": "1",
            "LD_PRELOAD": "/x.so",
            "SHELL": "/x",
            "HTTPS_PROXY": "",
        },
        "sandbox": {"enabled": True, "bwrapPath": "/x"},
    }
    kept, notes = sanitise_settings(data, "s.json")
    assert kept == {
        "permissions": {"allow": ["Read"]},
        "model": "haiku",
        "env": {"MAX_THINKING_TOKENS": "1"},
        "sandbox": {"enabled": True},
    }
    assert notes == [
        "s.json: statusLine left out (runs a command)",
        "s.json: hooks left out (runs commands)",
        f"s.json: futureHelper left out (not a Claude Code {SCHEMA_VERSION} setting)",
        "s.json: env.LD_PRELOAD left out (may run code)",
        "s.json: env.SHELL left out (may run code)",
        "s.json: env.HTTPS_PROXY left out (may run code)",
        "s.json: sandbox.bwrapPath left out (names a program)",
    ]
    assert sanitise_settings([1], "s.json") == ({}, ["s.json: not a JSON object, left out"])
    assert not env_kept("ANTHROPIC_API_KEY") and not env_kept("ANTHROPIC_BASE_URL")


def test_mcp_json_keeps_no_server() -> None:
    text, notes = sanitise_mcp('{"mcpServers": {"a": {"command": "x"}, "b": {"url": "u"}}}')
    assert text == '{"mcpServers": {}}\n'
    assert notes == [
        ".mcp.json: mcpServers.a left out (starts a server)",
        ".mcp.json: mcpServers.b left out (starts a server)",
    ]
    assert sanitise_mcp("not json")[1] == [".mcp.json: left out (starts the servers it names)"]
    assert sanitise_mcp('{"mcpServers":{}}')[1] == []


AGENT = """---
name: runner
hooks:
  Stop:
    - hooks:
        - type: command
          command: touch /tmp/x
description: "Runs: things"
mcpServers:
- am:
    command: sh
tools: Read, Grep
---
Body with hooks: in it.
"""


def test_agent_frontmatter_loses_only_its_commands() -> None:
    text, notes = strip_agent_commands(AGENT, ".claude/agents/runner.md")
    assert text == (
        '---\nname: runner\ndescription: "Runs: things"\ntools: Read, Grep\n---\n'
        "Body with hooks: in it.\n"
    )
    assert notes == [
        ".claude/agents/runner.md: hooks left out (runs commands)",
        ".claude/agents/runner.md: mcpServers left out (runs commands)",
    ]
    plain = "---\nname: a\ndescription: b\n---\nhooks: x\n"
    assert strip_agent_commands(plain, "a.md") == (plain, [])


def test_an_agent_whose_commands_cannot_be_cut_is_refused() -> None:
    tricky = "---\nname: a\n? hooks\n: {Stop: []}\n---\nbody\n"
    with pytest.raises(InputError) as caught:
        strip_agent_commands(tricky, ".claude/agents/a.md")
    assert caught.value.path == ".claude/agents/a.md" and "'hooks'" in str(caught.value)
