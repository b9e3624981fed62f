"""`--as-user` for Claude Code: what of the user's configuration the capture's HOME gets.

Claude Code's first request depends on the user's own configuration (FIELD-NOTES §11): settings
(`env`, `permissions`, `outputStyle`, `skillListingBudgetFraction`, `skillListingMaxDescChars`,
`skillOverrides`, …), `~/.claude/CLAUDE.md` and rules, personal skills, commands and agents,
output styles, the skills of enabled plugins, and the usage history in `~/.claude.json`
(`skillUsage`: when the listing is over budget, descriptions are shed by `usageCount ×
max(0.5^(days/7), 0.1)`, lowest first). `CLAUDE_CODE` declares what is taken, each piece cut of
what could run a command or is a credential:

- settings by `project_config.sanitise_settings` (the same schema walk as `--project`: hooks,
  command settings such as `apiKeyHelper` and `statusLine`, services, and every `env` variable
  that is not a request setting or is a secret, left out); `enabledPlugins` kept only for the
  plugins copied;
- plugins rebuilt as a local marketplace in the isolated HOME: the manifest cut to what names
  components (`PLUGIN_KEYS`), only the Markdown of skills, commands, agents (without `hooks` /
  `mcpServers`) and output styles; hooks, MCP and LSP servers, monitors, workflows, a plugin's
  own settings and every script are left out;
- `~/.claude.json`: `skillUsage` only (never the account, MCP servers or projects);
- never `~/.claude/.credentials.json`, workflows or other sessions (`CLAUDE_CODE.leaves`).

`seed_home` is the capture's one hook: it writes the record into the isolated HOME before the
CLI starts, leaves out a personal skill the skill under test replaces, and drops from the catalog
to install the user's own skills the HOME already holds (`--catalog installed`).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillbench.backends.anthropic.project_config import (
    LEFT_OUT,
    sanitise_settings,
    strip_agent_commands,
)
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.user_plugins import (
    SAFE_NAME,
    UserPlugin,
    dumps,
    enabled_plugins,
    inside,
    manifest_paths,
)
from skillbench.backends.skill_install import cli_name
from skillbench.backends.user_config import (
    HOME_MARK,
    AgentConfig,
    Found,
    Leave,
    Take,
    UserConfig,
    UserHome,
    files_under,
    read_bytes,
    read_json_object,
    read_user_config,
    tilde,
)
from skillbench.errors import InputError

CONFIG = "~/.claude"
"""The label of the user's Claude config folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`)."""
GLOBAL = "~/.claude.json"
"""The label of the folder holding the user's `.claude.json` (the config folder when
`$CLAUDE_CONFIG_DIR` is set, else HOME)."""
#: Where the isolated HOME's CLI reads them (the capture sets CLAUDE_CONFIG_DIR=<home>/.claude).
DEST = ".claude"
DEFAULT_HOME = "~"
"""`--as-user` without a folder: the user's own HOME."""
MARKETS = f"{DEST}/plugins/marketplaces"
#: What a plugin manifest keeps: what it is and where its listed components are.
PLUGIN_KEYS = frozenset(
    {
        "name",
        "version",
        "description",
        "author",
        "homepage",
        "repository",
        "license",
        "keywords",
        "skills",
        "commands",
        "agents",
        "outputStyles",
    }
)
#: What a marketplace entry keeps (besides `source`, rewritten to the copy).
ENTRY_KEYS = PLUGIN_KEYS | {"category", "tags", "strict"}
#: Why a manifest or entry key is left out (others: `not read for the request`).
RUNS = {
    "hooks": "runs commands",
    "mcpServers": "starts servers",
    "lspServers": "starts servers",
    "monitors": "runs commands",
    "channels": "binds MCP servers",
    "workflows": "runs code",
    "settings": "a plugin's own settings",
    "dependencies": "installs plugins",
    "userConfig": "may hold credentials",
}
#: A plugin's files that run something or configure it, named when left out.
PLUGIN_FILES = {
    "hooks/hooks.json": "runs commands",
    ".mcp.json": "starts servers",
    ".lsp.json": "starts servers",
    "settings.json": "a plugin's own settings",
}
_IMPORT = re.compile(r"(?m)(?:^|\s)@(?:~/|\./|/|[A-Za-z0-9_.-]+/)\S*")


def _memory(text: str, source: str) -> tuple[str | None, list[str]]:
    """CLAUDE.md as it is; a note when it imports files (`@path`), which are not copied."""
    if _IMPORT.search(text):
        return text, [f"{source}: the files it imports (@…) not copied"]
    return text, []


def _agent(text: str, source: str) -> tuple[str | None, list[str]]:
    """An agent without `hooks` / `mcpServers`; left out whole when they cannot be cut."""
    try:
        return strip_agent_commands(text, source)
    except InputError:
        return None, [f"{source}: left out (its hooks cannot be cut line by line)"]


def _personal_skills(where: UserHome) -> Found:
    """`~/.claude/skills/<folder>/SKILL.md` (all the listing reads of a skill)."""
    found = Found()
    root = where.root(CONFIG) / "skills"
    if not root.is_dir():
        return found
    for folder in sorted(p for p in root.iterdir() if (p / "SKILL.md").is_file()):
        data = read_bytes(folder / "SKILL.md", where, found.notes)
        if data is not None:
            source = tilde(where, folder / "SKILL.md")
            found.add(f"{DEST}/skills/{folder.name}/SKILL.md", data, "personal skill", source)
            found.provided.add(str(folder.resolve()))
    return found


def _settings(where: UserHome) -> Found:
    """`settings.json` cut by `sanitise_settings`, and the enabled plugins it keeps."""
    found = Found()
    path = where.root(CONFIG) / "settings.json"
    if not path.is_file():
        return found
    data = read_json_object(path, where, found.notes)
    if data is None:
        return found
    source = tilde(where, path)
    kept, notes = sanitise_settings(data, source)
    copied = Found()
    plugins = _plugins(where, copied)
    if plugins:
        kept["enabledPlugins"] = dict.fromkeys(plugins, True)
        dropped = f"{source}: enabledPlugins left out ({LEFT_OUT['enabledPlugins']})"
        notes = [note for note in notes if note != dropped]
    found.notes += notes
    found.add(f"{DEST}/settings.json", dumps(kept), "settings", source)
    found.merge(copied)
    return found


def _plugins(where: UserHome, found: Found) -> list[str]:
    """Copy each enabled plugin (cut, see the module docstring) as a local marketplace in the
    isolated HOME; returns the ids copied."""
    config = where.root(CONFIG)
    plugins = enabled_plugins(config, found.notes)
    markets: dict[str, list[dict[str, Any]]] = {}
    records: dict[str, list[dict[str, Any]]] = {}
    taken: list[str] = []
    for plugin in plugins:
        plugin_name = plugin.plugin_id.split("@", 1)[0]
        if not (SAFE_NAME.match(plugin.marketplace) and SAFE_NAME.match(plugin_name)):
            found.notes.append(f"plugin {plugin.plugin_id}: left out (not a plain name)")
            continue
        base = f"{MARKETS}/{plugin.marketplace}/plugins/{plugin_name}"
        _copy_plugin(where, plugin, base, found)
        entry = _cut(plugin.entry, ENTRY_KEYS, f"plugin {plugin.plugin_id} (marketplace)", found)
        entry["source"] = f"./plugins/{plugin_name}"
        markets.setdefault(plugin.marketplace, []).append(entry)
        kept: dict[str, Any] = {"scope": "user", "installPath": f"{HOME_MARK}/{base}"}
        for key in ("version", "installedAt", "lastUpdated"):
            if key in plugin.record:
                kept[key] = plugin.record[key]
        records[plugin.plugin_id] = [kept]
        taken.append(plugin.plugin_id)
    known: dict[str, Any] = {}
    for market, entries in markets.items():
        location = f"{HOME_MARK}/{MARKETS}/{market}"
        manifest = {"name": market, "owner": {"name": market}, "plugins": entries}
        dest = f"{MARKETS}/{market}/.claude-plugin/marketplace.json"
        found.add(dest, dumps(manifest), "plugin registry", f"marketplace {market}")
        held = next(p.market for p in plugins if p.marketplace == market)
        known[market] = {
            "source": {"source": "directory", "path": location},
            "installLocation": location,
            **({"lastUpdated": held["lastUpdated"]} if "lastUpdated" in held else {}),
        }
    if taken:
        source = tilde(where, config / "plugins")
        registry = {"version": 2, "plugins": records}
        found.add(
            f"{DEST}/plugins/installed_plugins.json", dumps(registry), "plugin registry", source
        )
        found.add(
            f"{DEST}/plugins/known_marketplaces.json", dumps(known), "plugin registry", source
        )
    return taken


def _cut(data: dict[str, Any], keys: frozenset[str], what: str, found: Found) -> dict[str, Any]:
    """`data` with the keys outside `keys` left out, one note each."""
    for key in data:
        if key not in keys and key != "source":
            why = RUNS.get(key, "not read for the request")
            found.notes.append(f"{what}: {key} left out ({why})")
    return {key: value for key, value in data.items() if key in keys}


def _copy_plugin(where: UserHome, plugin: UserPlugin, base: str, found: Found) -> None:
    """The plugin's manifest (cut) and the Markdown of its components, under `base`."""
    folder = plugin.folder
    label = f"plugin {plugin.plugin_id}"
    manifest = plugin.manifest()
    if manifest:
        kept = _cut(manifest, PLUGIN_KEYS, f"{label} (plugin.json)", found)
        found.add(f"{base}/.claude-plugin/plugin.json", dumps(kept), "plugin", label)
    for rel, why in PLUGIN_FILES.items():
        if (folder / rel).exists():
            found.notes.append(f"{label}: {rel} left out ({why})")
    parts = (
        ("skills", "skills", "plugin skill", ("*/SKILL.md", "SKILL.md")),
        ("commands", "commands", "plugin command", ("**/*.md",)),
        ("agents", "agents", "plugin agent", ("**/*.md",)),
        ("output-styles", "outputStyles", "plugin output style", ("**/*.md",)),
    )
    for default, key, kind, patterns in parts:
        for rel in dict.fromkeys([default, *manifest_paths(manifest, key)]):
            start = folder / rel
            if not inside(start, folder):
                found.notes.append(f"{label}: {key} path {rel} left out (outside the plugin)")
                continue
            if start.is_file() and start.suffix == ".md":
                matches = [start]
            elif start.is_dir():
                matches = sorted({p for pattern in patterns for p in start.glob(pattern)})
            else:
                continue
            for path in matches:
                if not path.is_file() or not inside(path, folder):
                    continue
                _take_plugin_file(where, plugin, base, path, kind, found)


def _take_plugin_file(
    where: UserHome, plugin: UserPlugin, base: str, path: Path, kind: str, found: Found
) -> None:
    data = read_bytes(path, where, found.notes)
    if data is None:
        return
    rel = path.relative_to(plugin.folder).as_posix()
    source = f"plugin {plugin.plugin_id}: {rel}"
    if kind == "plugin agent":
        text, notes = _agent(data.decode("utf-8", errors="replace"), source)
        found.notes += notes
        if text is None:
            return
        data = text.encode("utf-8")
    found.add(f"{base}/{rel}", data, kind, source)
    if kind == "plugin skill":
        found.provided.add(str(path.parent.resolve()))


def _usage(where: UserHome) -> Found:
    """`skillUsage` of the user's `.claude.json` (or the legacy `~/.claude/.config.json`), and
    nothing else of it."""
    found = Found()
    legacy = where.root(CONFIG) / ".config.json"
    path = legacy if legacy.is_file() else where.root(GLOBAL) / ".claude.json"
    if not path.is_file():
        return found
    data = read_json_object(path, where, found.notes)
    if data is None:
        return found
    source = tilde(where, path)
    usage = data.get("skillUsage")
    kept = {
        name: {"usageCount": item["usageCount"], "lastUsedAt": item["lastUsedAt"]}
        for name, item in (usage.items() if isinstance(usage, dict) else [])
        if isinstance(item, dict) and _number(item.get("usageCount"))
        if _number(item.get("lastUsedAt"))
    }
    others = sorted(key for key in data if key != "skillUsage")
    if others:
        found.notes.append(
            f"{source}: {len(others)} other keys left out (account, MCP servers, projects, "
            "UI state)"
        )
    if kept:
        found.add(f"{DEST}/.claude.json", dumps({"skillUsage": kept}), "usage history", source)
    return found


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


CLAUDE_CODE = AgentConfig(
    agent="claude-code",
    takes=(
        Take("settings", _settings),
        Take("CLAUDE.md", files_under("CLAUDE.md", CONFIG, ["CLAUDE.md"], DEST, _memory)),
        Take("rules", files_under("rule", CONFIG, ["rules/**/*.md"], DEST)),
        Take("personal skill", _personal_skills),
        Take("command", files_under("command", CONFIG, ["commands/**/*.md"], DEST)),
        Take("agent", files_under("agent", CONFIG, ["agents/**/*.md"], DEST, _agent)),
        Take("output style", files_under("output style", CONFIG, ["output-styles/**/*.md"], DEST)),
        Take("usage history", _usage),
    ),
    leaves=(
        Leave("~/.claude/.credentials.json", "credentials: never taken"),
        Leave("~/.claude/workflows", "runs code"),
        Leave("~/.claude/projects", "other sessions and per-project memory"),
    ),
)


def claude_roots(config_dir: str | None) -> Any:
    """The roots of the user's Claude Code files for a HOME: the config folder and the folder
    of `.claude.json` (`config_dir`, i.e. `$CLAUDE_CONFIG_DIR`, for both when given)."""

    def roots(home: Path) -> dict[str, Path]:
        if config_dir:
            return {CONFIG: Path(config_dir), GLOBAL: Path(config_dir)}
        return {CONFIG: home / ".claude", GLOBAL: home}

    return roots


def read_as_user(path: str | os.PathLike[str] | None = None) -> UserConfig:
    """What `--as-user [HOME]` takes of the user's Claude Code configuration (read-only). For
    the user's own HOME (`path` None or `~`, the option's default), `$CLAUDE_CONFIG_DIR` (when
    set) is the config folder, as for the user's CLI."""
    own = path is None or os.fspath(path) == DEFAULT_HOME
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR") if own else None
    declared = dataclasses.replace(CLAUDE_CODE, roots=claude_roots(config_dir))
    return read_user_config(declared, path)


def seed_home(
    as_user: UserConfig, home: Path, target: SkillEntry, catalog: Sequence[SkillEntry]
) -> tuple[list[SkillEntry], list[str]]:
    """Seed the capture's isolated `home` with `as_user`; returns the catalog still to install
    in the project (the user's own skills the HOME now holds left out) and one note per
    personal skill replaced by a skill under test of the same folder name."""
    rest = [entry for entry in catalog if not as_user.provides(entry.folder)]
    installing = {cli_name(entry) for entry in (target, *rest)}

    def replaced(dest: str) -> bool:
        parts = dest.split("/")
        return len(parts) == 4 and parts[:2] == [DEST, "skills"] and parts[2] in installing

    skipped = as_user.seed(home, skip=replaced)
    notes = [
        f"~/.claude/skills/{dest.split('/')[2]}: the user's own replaced by the one under test"
        for dest in skipped
    ]
    return rest, notes
