"""`--as-user` without a CLI: what is taken from the user's HOME, what is cut, and that the HOME
is only read (the real CLIs' requests: `test_as_user_real.py`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends.anthropic.as_user import read_as_user, seed_home
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.interactive import seed_config
from skillbench.backends.user_config import HOME_MARK
from skillbench.errors import InputError

SECRET = "sk-ant-api03-NEVER-COPIED-0123456789abcdefghijklmnop"


def write(path: Path, data: str | dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def skill_md(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n"


def user_home(tmp_path: Path) -> Path:
    """A HOME with every kind of thing, and everything that must never be copied."""
    home = tmp_path / "home"
    claude = home / ".claude"
    market = tmp_path / "market"
    plugin = market / "plugins" / "tidy"
    write(
        market / ".claude-plugin" / "marketplace.json",
        {
            "name": "mkt",
            "owner": {"name": "A"},
            "plugins": [
                {"name": "tidy", "source": "./plugins/tidy", "hooks": {"Stop": []}},
            ],
        },
    )
    write(
        plugin / ".claude-plugin" / "plugin.json",
        {"name": "tidy", "version": "1.0.0", "mcpServers": {"s": {"command": "x"}}, "hooks": {}},
    )
    write(plugin / "skills" / "tidy-csv" / "SKILL.md", skill_md("tidy-csv", "Use for CSV."))
    write(plugin / "hooks" / "hooks.json", {"hooks": {"SessionStart": []}})
    write(plugin / ".mcp.json", {"mcpServers": {"srv": {"command": "touch /tmp/x"}}})
    write(plugin / "scripts" / "run.sh", "echo hi\n")
    write(
        plugin / "agents" / "helper.md",
        "---\nname: helper\ndescription: Helps.\nhooks:\n  Stop: []\n---\nHelp.\n",
    )
    write(
        claude / "plugins" / "known_marketplaces.json",
        {
            "mkt": {
                "source": {"source": "directory", "path": str(market)},
                "installLocation": str(market),
            }
        },
    )
    write(
        claude / "plugins" / "installed_plugins.json",
        {"version": 2, "plugins": {"tidy@mkt": [{"scope": "user", "installPath": str(plugin)}]}},
    )
    write(
        claude / "settings.json",
        {
            "env": {"BASH_DEFAULT_TIMEOUT_MS": "300000", "ANTHROPIC_API_KEY": SECRET},
            "permissions": {"deny": ["WebSearch"]},
            "outputStyle": "Terse",
            "skillListingMaxDescChars": 200,
            "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch x"}]}]},
            "apiKeyHelper": f"echo {SECRET}",
            "statusLine": {"type": "command", "command": "date"},
            "enabledPlugins": {"tidy@mkt": True, "gone@mkt": True},
            "extraKnownMarketplaces": {"mkt": {"source": {"source": "directory", "path": "x"}}},
        },
    )
    write(claude / "CLAUDE.md", "# Mine\nBe brief.\n")
    write(claude / "skills" / "alpha" / "SKILL.md", skill_md("alpha", "Use for alpha."))
    write(claude / "skills" / "pdf-tools" / "SKILL.md", skill_md("pdf-tools", "My own."))
    write(claude / "output-styles" / "terse.md", "---\nname: Terse\n---\nShort.\n")
    write(claude / ".credentials.json", {"claudeAiOauth": {"accessToken": SECRET}})
    write(
        home / ".claude.json",
        {
            "skillUsage": {"alpha": {"usageCount": 3, "lastUsedAt": 1}, "bad": {"x": 1}},
            "mcpServers": {"m": {"command": "touch /tmp/y"}},
            "oauthAccount": {"emailAddress": "a@b.c"},
            "primaryApiKey": SECRET,
        },
    )
    return home


def snapshot(root: Path) -> dict[str, bytes | str]:
    return {str(p): (p.read_bytes() if p.is_file() else "dir") for p in sorted(root.rglob("*"))}


def test_what_is_taken_and_what_is_cut(tmp_path: Path) -> None:
    home = user_home(tmp_path)
    before = snapshot(tmp_path)
    record = read_as_user(home)
    assert snapshot(tmp_path) == before  # read-only
    files = record.files()
    assert sorted(files) == [
        ".claude/.claude.json",
        ".claude/CLAUDE.md",
        ".claude/output-styles/terse.md",
        ".claude/plugins/installed_plugins.json",
        ".claude/plugins/known_marketplaces.json",
        ".claude/plugins/marketplaces/mkt/.claude-plugin/marketplace.json",
        ".claude/plugins/marketplaces/mkt/plugins/tidy/.claude-plugin/plugin.json",
        ".claude/plugins/marketplaces/mkt/plugins/tidy/agents/helper.md",
        ".claude/plugins/marketplaces/mkt/plugins/tidy/skills/tidy-csv/SKILL.md",
        ".claude/settings.json",
        ".claude/skills/alpha/SKILL.md",
        ".claude/skills/pdf-tools/SKILL.md",
    ]
    everything = b"".join(files.values())
    for never in (SECRET.encode(), b"touch", b"statusLine", b"mcpServers", b"oauthAccount"):
        assert never not in everything
    settings = json.loads(files[".claude/settings.json"])
    assert settings == {
        "env": {"BASH_DEFAULT_TIMEOUT_MS": "300000"},
        "permissions": {"deny": ["WebSearch"]},
        "outputStyle": "Terse",
        "skillListingMaxDescChars": 200,
        "enabledPlugins": {"tidy@mkt": True},
    }
    assert json.loads(files[".claude/.claude.json"]) == {
        "skillUsage": {"alpha": {"usageCount": 3, "lastUsedAt": 1}}
    }
    agent = files[".claude/plugins/marketplaces/mkt/plugins/tidy/agents/helper.md"].decode()
    assert "hooks" not in agent and "Help." in agent
    notes = "\n".join(record.left_out)
    for expected in (
        "~/.claude/settings.json: env.ANTHROPIC_API_KEY left out",
        "~/.claude/settings.json: hooks left out (runs commands)",
        "~/.claude/settings.json: apiKeyHelper left out (runs a command)",
        "~/.claude/settings.json: statusLine left out (runs a command)",
        "~/.claude/settings.json: extraKnownMarketplaces left out",
        "plugin gone@mkt: left out",
        "plugin tidy@mkt (plugin.json): mcpServers left out (starts servers)",
        "plugin tidy@mkt (plugin.json): hooks left out (runs commands)",
        "plugin tidy@mkt (marketplace): hooks left out (runs commands)",
        "plugin tidy@mkt: hooks/hooks.json left out (runs commands)",
        "plugin tidy@mkt: .mcp.json left out (starts servers)",
        "plugin tidy@mkt: agents/helper.md: hooks left out (runs commands)",
        "~/.claude.json: 3 other keys left out",
        "~/.claude/.credentials.json (credentials: never taken)",
    ):
        assert expected in notes, expected
    assert SECRET not in notes
    lines = record.lines()
    assert "taken: ~/.claude/CLAUDE.md (CLAUDE.md)" in lines
    assert "taken: plugin tidy@mkt: skills/tidy-csv/SKILL.md (plugin skill)" in lines
    assert record.summary().startswith("as the user (")


def test_the_key_follows_what_reaches_the_home_not_what_is_cut(tmp_path: Path) -> None:
    home = user_home(tmp_path)
    first = read_as_user(home).key()
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"] = {}  # left out either way: the same capture
    write(settings, data)
    assert read_as_user(home).key() == first
    write(home / ".claude" / "skills" / "alpha" / "SKILL.md", skill_md("alpha", "Changed."))
    assert read_as_user(home).key() != first
    assert read_as_user(home).key() == read_as_user(home).key()


def test_seeding_fills_in_the_isolated_home_and_replaces_the_skill_under_test(
    tmp_path: Path,
) -> None:
    home = user_home(tmp_path)
    record = read_as_user(home)
    isolated = tmp_path / "isolated"
    target = SkillEntry("pdf-tools", "Under test.", "# PDF\n")
    user_skill = SkillEntry(
        "alpha", "Use for alpha.", "", folder=str(home / ".claude" / "skills" / "alpha")
    )
    other = SkillEntry("zeta", "Use for zeta.", "")
    rest, notes = seed_home(record, isolated, target, [user_skill, other])
    assert rest == [other]  # alpha is in the seeded HOME already
    assert notes == ["~/.claude/skills/pdf-tools: the user's own replaced by the one under test"]
    assert not (isolated / ".claude" / "skills" / "pdf-tools").exists()
    assert (isolated / ".claude" / "skills" / "alpha" / "SKILL.md").is_file()
    known = (isolated / ".claude" / "plugins" / "known_marketplaces.json").read_text()
    assert HOME_MARK not in known
    location = json.loads(known)["mkt"]["installLocation"]
    assert location == str(isolated / ".claude" / "plugins" / "marketplaces" / "mkt")
    installed = json.loads((isolated / ".claude/plugins/installed_plugins.json").read_text())
    path = Path(installed["plugins"]["tidy@mkt"][0]["installPath"])
    assert (path / "skills" / "tidy-csv" / "SKILL.md").is_file()
    assert not (path / ".mcp.json").exists() and not (path / "hooks").exists()
    assert not (path / "scripts").exists()


def test_the_interactive_config_keeps_the_usage_history(tmp_path: Path) -> None:
    home = user_home(tmp_path)
    isolated = tmp_path / "isolated"
    seed_home(read_as_user(home), isolated, SkillEntry("x", "X.", ""), [])
    env = {"HOME": str(isolated), "CLAUDE_CONFIG_DIR": str(isolated / ".claude")}
    config = json.loads(seed_config({**env, "ANTHROPIC_API_KEY": "k"}, tmp_path).read_text())
    assert config["skillUsage"] == {"alpha": {"usageCount": 3, "lastUsedAt": 1}}
    assert config["hasCompletedOnboarding"] is True


def test_a_secret_pasted_into_a_taken_file_never_reaches_the_seed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".claude" / "CLAUDE.md", f"Use the key {SECRET} for staging.\n")
    rule = f"Bash(curl -H 'x-api-key: {SECRET}':*)"
    write(home / ".claude" / "settings.json", {"permissions": {"allow": [rule]}})
    record = read_as_user(home)
    assert SECRET.encode() not in b"".join(record.files().values())
    assert b"Use the key [REDACTED] for staging." in record.files()[".claude/CLAUDE.md"]
    assert "~/.claude/CLAUDE.md: a secret in it redacted" in record.left_out
    assert "~/.claude/settings.json: a secret in it redacted" in record.left_out
    assert SECRET not in json.dumps(record.model_dump())


def test_an_unreadable_settings_file_is_named_not_fatal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".claude" / "settings.json", "{not json")
    record = read_as_user(home)
    assert "~/.claude/settings.json: left out (not valid JSON)" in record.left_out
    assert record.files() == {}


def test_a_missing_home_is_exit_2_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        read_as_user(tmp_path / "nowhere")
    assert raised.value.path == "--as-user"


def test_the_users_own_home_follows_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "elsewhere"
    write(config / "CLAUDE.md", "from the config dir\n")
    write(config / ".claude.json", {"skillUsage": {"a": {"usageCount": 1, "lastUsedAt": 2}}})
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    files = read_as_user("~").files()
    assert files[".claude/CLAUDE.md"] == b"from the config dir\n"
    assert ".claude/.claude.json" in files
    assert os.environ["CLAUDE_CONFIG_DIR"] == str(config)
