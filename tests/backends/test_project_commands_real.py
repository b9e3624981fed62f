"""A `--project` capture runs none of the project's commands (issue 38, "A project runs its
code"), with the REAL pinned CLI against the loopback capture server.

One project plants a marker command in every place the CLI 2.1.197 could run one from: each
command setting of its schema (`project_config.LEFT_OUT`), `hooks`, the settings `env` (a git
`core.fsmonitor` through `GIT_CONFIG_*`, which the CLI's `git status` runs; `BASH_ENV`; `SHELL`),
a plugin from a marketplace inside the project, `.mcp.json`'s stdio server and the main-thread
agent's frontmatter `hooks` and `mcpServers`. The control run (the copy left as the project has
it) shows which of those markers the CLI really runs in print mode, so the test of the capture
can fail; the capture itself must leave no marker and name each thing left out.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from real_cli import real_cli_skip_reason

from skillbench.backends.anthropic import project as project_module
from skillbench.backends.anthropic.capture import capture_template
from skillbench.backends.anthropic.project import ProjectSnapshot, snapshot
from skillbench.backends.anthropic.project_config import CLI_COMMAND_SETTINGS
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.cli import main

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]

TARGET = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
#: What the pinned CLI runs in print mode when the copy keeps it (measured by the control run;
#: the other markers, e.g. statusLine or fileSuggestion, run only in the interactive UI, and the
#: AWS/GCP/proxy helpers only with a provider or proxy this offline test cannot point at).
RUN_IN_PRINT_MODE = {
    "apiKeyHelper",
    "otelHeadersHelper",
    "hook-SessionStart",
    "hook-UserPromptSubmit",
    "hook-Stop",
    "hook-SessionEnd",
    "env-git",
    "mcp",
    "agent-hook",
    "agent-mcp",
}


def touch(markers: Path, name: str) -> str:
    """A command leaving the marker `name` (and printing `{}`, a value every helper accepts)."""
    return f"touch {markers}/{name}; echo {{}}"


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], capture_output=True, check=True)


def plant(root: Path) -> tuple[Path, Path]:
    """A git repository whose configuration runs a marker command from every place it can;
    returns (repository, markers folder)."""
    markers = root / "markers"
    markers.mkdir()
    repo = root / "repo"
    (repo / ".claude" / "agents").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "A")
    git(repo, "config", "user.email", "a@b")
    server = {"type": "stdio", "command": "sh", "args": ["-c", touch(markers, "mcp")]}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"planted": server}}))
    market = repo / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    entry = {"name": "p", "source": "./p", "description": "d"}
    manifest = {"name": "market", "owner": {"name": "x"}, "plugins": [entry]}
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(manifest))
    plugin = market / "p"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "p", "version": "1.0.0"}')
    on_start = {"hooks": [{"type": "command", "command": touch(markers, "plugin-hook")}]}
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"SessionStart": [on_start]}})
    )
    agent_mcp = touch(markers, "agent-mcp")
    (repo / ".claude" / "agents" / "runner.md").write_text(
        "---\nname: runner\ndescription: Runs things.\nhooks:\n  Stop:\n    - hooks:\n"
        f"        - type: command\n          command: {touch(markers, 'agent-hook')}\n"
        f'mcpServers:\n  - am:\n      command: sh\n      args: ["-c", "{agent_mcp}"]\n'
        "model: inherit\n---\nYou run things.\n"
    )
    shell = markers / "shell.sh"
    shell.write_text(f'#!/bin/sh\n{touch(markers, "env-shell")}\nexec /bin/sh "$@"\n')
    shell.chmod(0o755)
    (markers / "bash-env.sh").write_text(touch(markers, "env-bash") + "\n")
    commands: dict[str, object] = {key: touch(markers, key) for key in CLI_COMMAND_SETTINGS}
    for key in ("fileSuggestion", "statusLine", "subagentStatusLine"):
        commands[key] = {"type": "command", "command": touch(markers, key)}
    hooks = {
        event: [{"hooks": [{"type": "command", "command": touch(markers, f"hook-{event}")}]}]
        for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
    }
    settings = {
        **commands,
        "policyHelper": {"path": str(shell)},
        "hooks": hooks,
        "agent": "runner",
        "env": {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.fsmonitor",
            "GIT_CONFIG_VALUE_0": touch(markers, "env-git"),
            "BASH_ENV": str(markers / "bash-env.sh"),
            "SHELL": str(shell),
            "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
            "OTEL_METRICS_EXPORTER": "otlp",
            "OTEL_LOGS_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
            "MAX_THINKING_TOKENS": "2048",
        },
        "extraKnownMarketplaces": {"market": {"source": {"source": "directory", "path": "market"}}},
        "enabledPlugins": {"p@market": True},
        "enableAllProjectMcpServers": True,
        "sandbox": {"ripgrep": {"command": str(shell)}},
    }
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings))
    (root / "outside.md").write_text("OUTSIDE-IMPORT-MARKER\n")
    (repo / "CLAUDE.md").write_text(f"Project rules.\n@{root}/outside.md\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    local = {"statusLine": {"type": "command", "command": touch(markers, "local-statusLine")}}
    (repo / ".claude" / "settings.local.json").write_text(json.dumps(local))  # untracked
    return repo, markers


def capture(shot: ProjectSnapshot) -> list[str]:
    template = capture_template(
        REPO_CLAUDE, TARGET, (), model="claude-haiku-4-5", cli_version="2.1.197", project=shot
    )
    body = json.dumps(template.body)
    assert "You run things." in body  # the main-thread agent is kept
    # an import from outside the project is not followed in print mode (never approved)
    assert "Project rules." in body and "OUTSIDE-IMPORT-MARKER" not in body
    return template.project_differs


def test_the_control_run_executes_the_planted_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the sanitising (the copy as the project has it) the CLI runs these markers: the
    capture test below would fail on them."""
    repo, markers = plant(tmp_path)
    monkeypatch.setattr(project_module, "_sanitise", lambda project, dest: [])
    capture(snapshot(repo))
    ran = {path.name for path in markers.iterdir()} - {"shell.sh", "bash-env.sh"}
    assert sorted(RUN_IN_PRINT_MODE - ran) == []


def test_a_capture_runs_none_of_the_projects_commands(tmp_path: Path) -> None:
    repo, markers = plant(tmp_path)
    before = (repo / ".claude" / "settings.json").read_bytes()
    differs = capture(snapshot(repo))
    assert sorted(path.name for path in markers.iterdir()) == ["bash-env.sh", "shell.sh"]
    settings = ".claude/settings.json"
    for key in (*CLI_COMMAND_SETTINGS, "policyHelper", "hooks", "enabledPlugins"):
        assert any(note.startswith(f"{settings}: {key} left out") for note in differs), key
    for name in ("GIT_CONFIG_COUNT", "BASH_ENV", "SHELL", "CLAUDE_CODE_ENABLE_TELEMETRY"):
        assert f"{settings}: env.{name} left out (may run code)" in differs
    assert f"{settings}: env.MAX_THINKING_TOKENS left out (may run code)" not in differs
    assert f"{settings}: sandbox.ripgrep left out (names a program)" in differs
    assert ".claude/settings.local.json: statusLine left out (runs a command)" in differs
    assert ".mcp.json: mcpServers.planted left out (starts a server)" in differs
    assert ".claude/agents/runner.md: hooks left out (runs commands)" in differs
    assert ".claude/agents/runner.md: mcpServers left out (runs commands)" in differs
    assert (repo / ".claude" / "settings.json").read_bytes() == before  # the project untouched


def skill_and_queries(root: Path) -> tuple[Path, Path]:
    folder = root / "pdf-tools"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Use when merging PDF files.\n---\n\n# PDF\n"
    )
    queries = root / "queries.json"
    queries.write_text(json.dumps([{"query": "merge pdfs", "should_trigger": True}]))
    return folder, queries


def test_trigger_dry_run_with_a_project_runs_none_of_its_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`trigger --backend anthropic --project DIR --dry-run` captures the template (to count
    it) in the sanitised copy: before, the `.mcp.json` server, the settings-env git config and
    the main agent's hooks and MCP server ran here."""
    repo, markers = plant(tmp_path)
    folder, queries = skill_and_queries(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args = ["trigger", str(folder), "--evals", str(queries), "--backend", "anthropic"]
    args += ["--project", str(repo), "--dry-run", "--cache", str(tmp_path / "cache.sqlite")]
    assert main(args) == 0
    assert "1 captured template(s)" in capsys.readouterr().out
    assert sorted(path.name for path in markers.iterdir()) == ["bash-env.sh", "shell.sh"]
