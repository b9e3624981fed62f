"""The plugins a user's Claude Code loads, found as the CLI finds them (read-only).

Claude Code 2.1.197 and 2.1.332 (read from their code, checked against both CLIs): a plugin is
loaded when the user's `settings.json` enables its id (`enabledPlugins: {"<plugin>@<market>":
true}`) and its marketplace is known (`plugins/known_marketplaces.json`: `installLocation`, where
`.claude-plugin/marketplace.json` lists the market's plugins). The plugin's folder is the
marketplace's folder joined with the entry's `source` when the marketplace is local (`directory` or
`file`) and the source a relative path; otherwise the `installPath` recorded in
`plugins/installed_plugins.json` (the versioned cache). Its skills are listed as
`<plugin name>:<skill folder>` (the manifest's `name`; characters other than letters, digits,
`_` and `-` in the folder name become `-`), in ICU order within the plugin, after the user's and
the project's own skills.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: What of a name the CLI keeps in a plugin skill's name (the rest becomes `-`).
_SKILL_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
#: A market or plugin name usable as one path component of the seeded copy.
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
LOCAL_SOURCES = ("directory", "file")


@dataclass(frozen=True)
class UserPlugin:
    """One enabled plugin of the user's Claude Code."""

    plugin_id: str
    name: str
    marketplace: str
    folder: Path
    entry: dict[str, Any] = field(default_factory=dict)
    market: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)

    def skills_dirs(self) -> list[Path]:
        """The folders its skills are read from: `skills/` and the manifest's `skills` paths."""
        found = [self.folder / "skills"]
        found += [self.folder / rel for rel in manifest_paths(self.manifest(), "skills")]
        return [path for path in found if path.is_dir() and inside(path, self.folder)]

    def manifest(self) -> dict[str, Any]:
        """Its `.claude-plugin/plugin.json` (empty when missing or unreadable)."""
        return _json_object(self.folder / ".claude-plugin" / "plugin.json") or {}


def skill_name(plugin: str, folder: str) -> str:
    """The name the CLI lists a plugin skill under: `<plugin>:<folder>` (folder sanitised)."""
    return f"{plugin}:{_SKILL_NAME_CHARS.sub('-', folder)}"


def inside(path: Path, root: Path) -> bool:
    """Whether `path` (links followed) lies inside `root`."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def manifest_paths(manifest: dict[str, Any], key: str) -> list[str]:
    """The relative paths a manifest names for `key` (a string, a list of strings, or a map
    whose values name a `source`)."""
    value = manifest.get(key)
    if isinstance(value, str):
        values: list[Any] = [value]
    elif isinstance(value, list):
        values = value
    elif isinstance(value, dict):
        values = [v.get("source") for v in value.values() if isinstance(v, dict)]
    else:
        values = []
    return [v for v in values if isinstance(v, str) and v and not Path(v).is_absolute()]


def _json_object(path: Path) -> dict[str, Any] | None:
    """A JSON object file, read-only (None when missing, unreadable or not an object)."""
    from skillbench.errors import InputError
    from skillbench.io import read_json

    try:
        data = read_json(path)
    except (InputError, OSError):
        return None
    return data if isinstance(data, dict) else None


def enabled_ids(settings: dict[str, Any] | None) -> list[str]:
    """The plugin ids `settings` enables (`enabledPlugins` values `true`), in its order."""
    enabled = settings.get("enabledPlugins") if isinstance(settings, dict) else None
    if not isinstance(enabled, dict):
        return []
    return [key for key, on in enabled.items() if on is True and "@" in key]


def installed_record(config: Path, plugin_id: str) -> dict[str, Any]:
    """The plugin's `installed_plugins.json` record (version 2 lists, the user scope first;
    version 1 maps), or {}."""
    data = _json_object(config / "plugins" / "installed_plugins.json") or {}
    plugins = data.get("plugins", data)
    value = plugins.get(plugin_id) if isinstance(plugins, dict) else None
    records = [r for r in (value if isinstance(value, list) else [value]) if isinstance(r, dict)]
    records.sort(key=lambda r: r.get("scope") != "user")
    return records[0] if records else {}


def marketplace_manifest(install_location: Path) -> Path | None:
    """The marketplace's `marketplace.json`: `<location>/.claude-plugin/marketplace.json`, or
    the location itself when it is that file."""
    inner = install_location / ".claude-plugin" / "marketplace.json"
    if inner.is_file():
        return inner
    return install_location if install_location.is_file() else None


def plugin_folder(
    entry: dict[str, Any], market: dict[str, Any], record: dict[str, Any]
) -> Path | None:
    """Where the CLI loads the plugin from (see the module docstring); None when unknown."""
    source = entry.get("source")
    location = market.get("installLocation")
    local = isinstance(market.get("source"), dict) and market["source"].get("source") in (
        LOCAL_SOURCES
    )
    if isinstance(source, str) and local and isinstance(location, str):
        base = Path(location)
        base = base if base.is_dir() else base.parent
        return base / source
    path = record.get("installPath")
    return Path(path) if isinstance(path, str) and path else None


def enabled_plugins(config: Path, notes: list[str] | None = None) -> list[UserPlugin]:
    """The plugins the user's Claude Code (config folder `config`) loads, in the order its
    `settings.json` enables them; each one that cannot be found is named in `notes`."""
    notes = notes if notes is not None else []
    markets = _json_object(config / "plugins" / "known_marketplaces.json") or {}
    found: list[UserPlugin] = []
    for plugin_id in enabled_ids(_json_object(config / "settings.json")):
        name, market_name = plugin_id.split("@", 1)
        market = markets.get(market_name)
        location = market.get("installLocation") if isinstance(market, dict) else None
        manifest = marketplace_manifest(Path(location)) if isinstance(location, str) else None
        catalog = _json_object(manifest) if manifest is not None else None
        entries = catalog.get("plugins") if catalog else None
        entry = next(
            (e for e in entries or [] if isinstance(e, dict) and e.get("name") == name), None
        )
        if not isinstance(market, dict) or entry is None:
            notes.append(f"plugin {plugin_id}: left out (its marketplace does not list it)")
            continue
        record = installed_record(config, plugin_id)
        folder = plugin_folder(entry, market, record)
        if folder is None or not folder.is_dir():
            notes.append(f"plugin {plugin_id}: left out (not installed)")
            continue
        declared = (_json_object(folder / ".claude-plugin" / "plugin.json") or {}).get("name")
        found.append(
            UserPlugin(
                plugin_id=plugin_id,
                name=declared if isinstance(declared, str) and declared else name,
                marketplace=market_name,
                folder=folder,
                entry=entry,
                market=market,
                record=record,
            )
        )
    return found


def dumps(data: Any) -> bytes:
    """JSON as the CLI writes its own files (2-space indent)."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
