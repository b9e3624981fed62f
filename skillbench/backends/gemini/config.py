"""What Gemini CLI 0.61.0 reads of a project and of HOME at start (measured against the loopback
capture server, one marker per file; docs/agents.md), and how `--project` keeps its settings.

- Project (the folder it runs in, a trusted workspace): `GEMINI.md`, or the names its
  `.gemini/settings.json` gives under `context.fileName`; the skills of `.gemini/skills` and
  `.agents/skills`; a directory tree of the project's files (up to 200, `.gitignore` respected)
  in the first message. Subfolders' `GEMINI.md` files are not read at start, nor are parents'.
- HOME: `~/.gemini/GEMINI.md`; the skills of `~/.gemini/skills` and `~/.agents/skills`.

The project's `.gemini/settings.json` is copied with the `KEPT` sections only (`tools` without
its discovery, call and sandbox commands, `context` without its outside folders, `general`
without the editor): MCP servers, hooks, auth, telemetry and the rest are left out, each one
note. The project's `.gemini/extensions` is removed from the copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillbench.backends.replay.jsonc import jsonc_object, kept_items, loads_jsonc

SETTINGS_FILE = ".gemini/settings.json"
PROJECT_INSTRUCTIONS = ("GEMINI.md",)
PROJECT_SKILL_DIRS = (".gemini/skills", ".agents/skills")
CONFIG_FILES = (SETTINGS_FILE,)
CODE_PATHS = ((".gemini/extensions", "extensions: MCP servers and commands of their own"),)
USER_INSTRUCTIONS = (".gemini/GEMINI.md",)
USER_SKILL_DIRS = (".gemini/skills", ".agents/skills")
USER_LEFT_OUT = (
    (".gemini/settings.json", "Gemini's settings: auth, MCP servers, hooks; never copied"),
    (".gemini/extensions", "extensions: MCP servers and context files of their own"),
)
#: Top-level sections kept, each without the keys of `CUT` (they run or reach something).
KEPT = frozenset({"context", "skills", "tools", "model", "modelConfigs", "general", "ui", "output"})
CUT = {
    "tools": ("discoveryCommand", "callCommand", "sandbox"),
    "context": ("includeDirectories",),
    "general": ("preferredEditor",),
}
LEFT_OUT = {
    "mcpServers": "starts MCP servers",
    "mcp": "MCP server settings",
    "hooks": "runs commands",
    "hooksConfig": "runs commands",
    "security": "auth: the capture sets its own",
    "telemetry": "sends telemetry",
    "privacy": "usage statistics",
    "advanced": "bug command and environment",
    "experimental": "experimental features",
    "extensions": "extensions",
    "ide": "connects to an IDE",
    "agents": "remote agents",
    "admin": "administrator settings",
}


def file_names(root: Path) -> list[str]:
    """The instruction file names the project's settings give (`context.fileName`)."""
    file = root / SETTINGS_FILE
    if not file.is_file():
        return []
    try:
        data = loads_jsonc(file.read_text(encoding="utf-8", errors="replace"))
    except ValueError:
        return []
    context = data.get("context") if isinstance(data, dict) else None
    names = context.get("fileName") if isinstance(context, dict) else None
    if isinstance(names, str):
        names = [names]
    return [n for n in names or () if isinstance(n, str) and "/" not in n and n not in ("", "..")]


def sanitise(rel: str, text: str) -> tuple[str | None, list[str]]:
    """The settings as the copy keeps them (`KEPT` without `CUT`), one note per thing left
    out; a file that is not JSON with comments is left out whole."""
    data, notes = jsonc_object(rel, text)
    if data is None:
        return None, notes
    kept: dict[str, Any] = {}
    for key, value in kept_items(
        rel, data, KEPT, LEFT_OUT, notes, "not a setting the capture keeps"
    ):
        if isinstance(value, dict) and key in CUT:
            cut = [name for name in CUT[key] if name in value]
            notes += [f"{rel}: {key}.{name} left out (runs or reaches something)" for name in cut]
            value = {k: v for k, v in value.items() if k not in cut}
        kept[key] = value
    if not notes:
        return text, []
    return json.dumps(kept, indent=2, ensure_ascii=False) + "\n", notes
