"""What opencode 1.18.33 reads of a project and of HOME at start (measured against the loopback
capture server, one marker per file; docs/agents.md), and how `--project` keeps its
configuration.

- Project (at its git top): `AGENTS.md`, else `CLAUDE.md` (opencode's fallback); the files its
  configuration lists under `instructions`; the skills of `.opencode/skills`, `.opencode/skill`,
  `.claude/skills`, `.agents/skills`. Nested `AGENTS.md` files are not read at start; above a git
  repository nothing is read, above a folder outside git every parent's `AGENTS.md` and
  `opencode.json` up to `/` is (`reads_above`).
- HOME: `~/.config/opencode/AGENTS.md`, else `~/.claude/CLAUDE.md`; the skills of
  `~/.config/opencode/skills`, `~/.config/opencode/skill`, `~/.opencode/skills`,
  `~/.opencode/skill`, `~/.claude/skills`, `~/.agents/skills`.

The project's `opencode.json(c)` (and `.opencode/opencode.json(c)`) is copied with the `KEPT`
keys only: what runs a program (MCP servers, plugins, language servers, formatters, the shell,
the server) or sends a request elsewhere (providers, sharing, remote instructions and skills) is
left out, each key one note; so is a value with an `{env:…}` or `{file:…}` substitution. Code
opencode loads at start (`.opencode/plugin(s)`, `.opencode/tool(s)`) is removed from the copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillbench.backends.replay.jsonc import jsonc_object, kept_items, loads_jsonc

PROJECT_INSTRUCTIONS = ("AGENTS.md", "CLAUDE.md")
PROJECT_SKILL_DIRS = (".opencode/skills", ".opencode/skill", ".claude/skills", ".agents/skills")
CONFIG_FILES = (
    "opencode.json",
    "opencode.jsonc",
    ".opencode/opencode.json",
    ".opencode/opencode.jsonc",
)
_CODE = "code opencode loads at start"
CODE_PATHS = (
    (".opencode/plugin", _CODE),
    (".opencode/plugins", _CODE),
    (".opencode/tool", _CODE),
    (".opencode/tools", _CODE),
)
USER_INSTRUCTIONS = (".config/opencode/AGENTS.md", ".claude/CLAUDE.md")
USER_SKILL_DIRS = (
    ".config/opencode/skills",
    ".config/opencode/skill",
    ".opencode/skills",
    ".opencode/skill",
    ".claude/skills",
    ".agents/skills",
)
_USER_CONFIG = "opencode's configuration: MCP servers, plugins, providers; never copied"
USER_LEFT_OUT = (
    (".config/opencode/opencode.json", _USER_CONFIG),
    (".config/opencode/opencode.jsonc", _USER_CONFIG),
    (".config/opencode/config.json", _USER_CONFIG),
    (".opencode/opencode.json", _USER_CONFIG),
    (".opencode/opencode.jsonc", _USER_CONFIG),
    (".config/opencode/agent", "user agents: not copied"),
    (".config/opencode/agents", "user agents: not copied"),
    (".config/opencode/plugin", _CODE),
    (".config/opencode/plugins", _CODE),
)
#: The configuration keys the copy keeps: they change the request and run nothing.
KEPT = frozenset(
    {
        "$schema",
        "instructions",
        "permission",
        "tools",
        "agent",
        "mode",
        "default_agent",
        "subagent_depth",
        "username",
        "model",
        "small_model",
        "disabled_providers",
        "enabled_providers",
        "tool_output",
        "compaction",
        "layout",
        "attachment",
        "command",
        "keybinds",
        "theme",
        "tui",
        "logLevel",
    }
)
#: Keys left out, with why (any other key: "not a key the capture keeps").
LEFT_OUT = {
    "mcp": "starts MCP servers",
    "plugin": "loads plugins, which run code",
    "lsp": "starts language servers",
    "formatter": "runs formatters",
    "shell": "names the shell the CLI runs",
    "server": "starts a server",
    "provider": "can send the CLI's requests to another host",
    "enterprise": "sends the CLI's requests to another host",
    "share": "uploads the session",
    "autoshare": "uploads the session",
    "autoupdate": "updates the CLI",
    "snapshot": "runs git in the project",
    "watcher": "watches the project",
    "skills": "other skill folders and skill URLs: not reproduced",
    "references": "fetches references",
    "experimental": "experimental features",
}
_SUBSTITUTIONS = ("{env:", "{file:")


def _local(entry: str) -> bool:
    """Whether an `instructions` entry names files inside the project (a relative path or glob
    that does not leave it; not a URL)."""
    path = Path(entry)
    return (
        "://" not in entry
        and not entry.startswith("~")
        and not path.is_absolute()
        and ".." not in path.parts
    )


def config_instructions(root: Path) -> list[str]:
    """The local files the project's configuration lists under `instructions` (globs expanded
    inside the project, files only)."""
    found: list[str] = []
    for rel in CONFIG_FILES:
        file = root / rel
        if not file.is_file():
            continue
        try:
            data = loads_jsonc(file.read_text(encoding="utf-8", errors="replace"))
        except ValueError:
            continue
        entries = data.get("instructions") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, str) or not _local(entry):
                continue
            found += sorted(
                p.relative_to(root).as_posix()
                for p in root.glob(entry)
                if p.is_file() and p.resolve().is_relative_to(root)
            )
    return list(dict.fromkeys(found))


def sanitise(rel: str, text: str) -> tuple[str | None, list[str]]:
    """`rel` (an opencode configuration file) as the copy keeps it: the `KEPT` keys only,
    `instructions` without remote or outside entries, no value with a substitution; one note per
    thing left out. A file that is not JSON with comments is left out whole."""
    data, notes = jsonc_object(rel, text)
    if data is None:
        return None, notes
    kept: dict[str, Any] = {}
    for key, value in kept_items(rel, data, KEPT, LEFT_OUT, notes):
        if any(mark in json.dumps(value) for mark in _SUBSTITUTIONS):
            notes.append(f"{rel}: {key} left out (reads an {{env:}} or {{file:}} substitution)")
        elif key == "instructions" and isinstance(value, list):
            local = [entry for entry in value if isinstance(entry, str) and _local(entry)]
            notes += [
                f"{rel}: instructions {entry!r} left out (remote or outside the project)"
                for entry in value
                if entry not in local
            ]
            kept[key] = local
        else:
            kept[key] = value
    if not notes:
        return text, []  # nothing to cut: the file as the user wrote it
    return json.dumps(kept, indent=2, ensure_ascii=False) + "\n", notes
