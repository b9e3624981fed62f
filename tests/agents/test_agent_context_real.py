"""Issue 32 item 5: `--project` and `--as-user` for opencode, Gemini CLI and Codex CLI, with the
REAL pinned CLIs against the loopback capture server.

- Fidelity: the capture made with a project's view and a HOME's view is the request the CLI
  itself sends run in that project with that HOME (normalised the same way): the project's and
  the user's instruction files and skills reach it, the CLI applying its own precedence.
- Safety: what could run a command (MCP servers, hooks, plugins, shells) is stripped from the
  copy and never runs; no credential or configuration of HOME reaches the isolated HOME; the
  project and HOME are byte-identical after the capture.

Per agent two captures and one direct run, ~15-40 s each.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.replay.agent import Agent
from skillbench.backends.replay.capture import capture_template
from skillbench.backends.replay.capture_server import CaptureServer
from skillbench.backends.replay.context import read_project, read_user
from skillbench.backends.replay.gitcopy import exclude_from_status
from skillbench.backends.replay.run import run_until_captured
from skillbench.backends.skill_install import install_skills
from skillbench.errors import BackendError

TARGET = SkillEntry("csv-cleanup", "Clean CSV files: duplicates, delimiters.", "# CSV\n")
MODELS = {"opencode": "claude-haiku-4-5", "gemini": "gemini-2.5-flash", "codex": "gpt-6.1-sol"}
AGENTS = [OPENCODE, GEMINI, CODEX]
#: What each CLI reads (measured): a marker per file, the file, and who reads it.
PROJECT_FILES = {
    "AGENTS.md": "MARK_PROJECT_AGENTS",
    "CLAUDE.md": "MARK_PROJECT_CLAUDE",  # opencode's fallback: not read beside AGENTS.md
    "GEMINI.md": "MARK_PROJECT_GEMINI",
    "docs/extra.md": "MARK_PROJECT_EXTRA",  # opencode: named by opencode.json `instructions`
    "sub/AGENTS.md": "MARK_NESTED",  # nested: read by none at start
}
PROJECT_SKILLS = {
    ".agents/skills/team-lint": "MARK_SKILL_AGENTS",
    ".claude/skills/team-docs": "MARK_SKILL_CLAUDE",
    ".opencode/skills/team-oc": "MARK_SKILL_OPENCODE",
    ".gemini/skills/team-gm": "MARK_SKILL_GEMINI",
    ".codex/skills/team-cx": "MARK_SKILL_CODEX",
    ".agents/skills/csv-cleanup": "MARK_OLD_TARGET",  # the skill under test wins
}
USER_FILES = {
    ".codex/AGENTS.md": "MARK_USER_CODEX",
    ".gemini/GEMINI.md": "MARK_USER_GEMINI",
    ".config/opencode/AGENTS.md": "MARK_USER_OPENCODE",
    ".claude/CLAUDE.md": "MARK_USER_CLAUDEMD",  # opencode's fallback: not read beside the above
}
USER_SKILLS = {
    ".agents/skills/my-notes": "MARK_USER_SKILL_AGENTS",
    ".codex/skills/my-cx": "MARK_USER_SKILL_CODEX",
    ".gemini/skills/my-gm": "MARK_USER_SKILL_GEMINI",
    ".config/opencode/skills/my-oc": "MARK_USER_SKILL_OPENCODE",
    ".claude/skills/my-claude": "MARK_USER_SKILL_CLAUDE",
}
EXPECTED = {
    "opencode": {
        "MARK_PROJECT_AGENTS",
        "MARK_PROJECT_EXTRA",
        "MARK_SKILL_AGENTS",
        "MARK_SKILL_CLAUDE",
        "MARK_SKILL_OPENCODE",
        "MARK_USER_OPENCODE",
        "MARK_USER_SKILL_AGENTS",
        "MARK_USER_SKILL_OPENCODE",
        "MARK_USER_SKILL_CLAUDE",
    },
    "gemini": {
        "MARK_PROJECT_GEMINI",
        "MARK_PROJECT_AGENTS",  # named by .gemini/settings.json `context.fileName`
        "MARK_SKILL_AGENTS",
        "MARK_SKILL_GEMINI",
        "MARK_USER_GEMINI",
        "MARK_USER_SKILL_AGENTS",
        "MARK_USER_SKILL_GEMINI",
    },
    "codex": {
        "MARK_PROJECT_AGENTS",
        "MARK_SKILL_AGENTS",
        "MARK_SKILL_CODEX",
        "MARK_USER_CODEX",
        "MARK_USER_SKILL_AGENTS",
        "MARK_USER_SKILL_CODEX",
    },
}
_MARK = re.compile(r"MARK_[A-Z_]+")


def _binary(agent: Agent) -> Path:
    try:
        return agent.locate()
    except BackendError as exc:
        pytest.skip(str(exc))


def _skill(folder: Path, mark: str) -> None:
    folder.mkdir(parents=True)
    name = folder.name
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {mark} helper.\n---\nx\n")


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
    )


def build_world(root: Path, *, commands: bool = False) -> tuple[Path, Path]:
    """`root/project` (a git repository: instruction files, skills, configuration) and
    `root/home` (a user's HOME: instruction files, skills; with `commands`, configuration that
    names MCP servers, hooks and plugins, and credentials)."""
    project, home = root / "project", root / "home"
    for rel, mark in PROJECT_FILES.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(f"{mark}: follow the team's rules.\n")
    for rel, mark in PROJECT_SKILLS.items():
        _skill(project / rel, mark)
    (project / "opencode.json").write_text(json.dumps({"instructions": ["docs/extra.md"]}))
    settings = {"context": {"fileName": ["GEMINI.md", "AGENTS.md"]}}
    ran = root / "ran"
    if commands:
        touch = ["sh", "-c", f"touch {ran}"]
        (project / "opencode.json").write_text(
            json.dumps(
                {
                    "instructions": ["docs/extra.md"],
                    "mcp": {"evil": {"type": "local", "command": touch}},
                    "plugin": ["file:///nowhere/plugin.js"],
                    "shell": "/bin/false",
                }
            )
        )
        plugin = project / ".opencode" / "plugin" / "plug.js"
        plugin.parent.mkdir(parents=True)
        plugin.write_text(f"require('fs').writeFileSync('{ran}', 'x')\n")
        settings.update(
            mcpServers={"evil": {"command": "sh", "args": ["-c", f"touch {ran}"]}},
            hooks={"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {ran}"}]}]},
            tools={"discoveryCommand": f"touch {ran}"},
        )
        (project / ".codex").mkdir(exist_ok=True)
        (project / ".codex" / "config.toml").write_text(
            f'notify = ["sh", "-c", "touch {ran}"]\n[mcp_servers.evil]\ncommand = "sh"\n'
            f'args = ["-c", "touch {ran}"]\n'
        )
    (project / ".gemini").mkdir(exist_ok=True)
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "team setup")
    (project / "notes.txt").write_text("uncommitted\n")  # an untracked file: in Gemini's tree
    for rel, mark in USER_FILES.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"{mark}: my own habits.\n")
    for rel, mark in USER_SKILLS.items():
        _skill(home / rel, mark)
    if commands:
        for rel in (
            ".codex/auth.json",
            ".gemini/oauth_creds.json",
            ".local/share/opencode/auth.json",
        ):
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            (home / rel).write_text('{"token": "CANARY_CREDENTIAL_5ea1"}\n')
        (home / ".codex" / "config.toml").write_text(
            f'[mcp_servers.evil]\ncommand = "sh"\nargs = ["-c", "touch {ran}"]\n'
        )
        (home / ".gemini" / "settings.json").write_text(
            json.dumps({"mcpServers": {"evil": {"command": "sh", "args": ["-c", f"touch {ran}"]}}})
        )
        (home / ".config" / "opencode" / "opencode.json").write_text(
            json.dumps(
                {"mcp": {"evil": {"type": "local", "command": ["sh", "-c", f"touch {ran}"]}}}
            )
        )
    return project, home


def tree(folder: Path) -> dict[str, str]:
    """Every entry under `folder`: its kind, mode and content (or link target) hash."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        mode = oct(path.lstat().st_mode)
        if path.is_symlink():
            found[rel] = f"link {mode} {os.readlink(path)}"
        elif path.is_file():
            found[rel] = f"file {mode} {hashlib.sha256(path.read_bytes()).hexdigest()}"
        else:
            found[rel] = f"dir {mode}"
    return found


def own_request(agent: Agent, binary: Path, root: Path) -> dict[str, object]:
    """The CLI's own request run in `root/project` with HOME `root/home` (the skill under test
    installed there as the capture installs it, the capture's provider configuration written),
    normalised as a template is."""
    project, home = root / "project", root / "home"
    shutil.rmtree(project / ".agents" / "skills" / "csv-cleanup")  # the old one: replaced
    install_skills(project, TARGET, (), agent.skills_dir)
    exclude_from_status(project, f"/{agent.skills_dir}/")
    with CaptureServer(agent) as server:
        agent.prepare(project, home, server.base_url, MODELS[agent.name])
        env = agent.capture_env(home, server.base_url, agent.settings())
        call = agent.capture_call(binary, MODELS[agent.name], agent.sentinel)
        run_until_captured(agent, call, project, env, server, 180)
        found = server.agent_request()
    assert found is not None, f"{agent.name} sent no request of its own"
    return agent.normalise(found[2], str(root))


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_capture_is_the_clis_own_request_in_that_project_and_home(
    agent: Agent, tmp_path: Path
) -> None:
    binary = _binary(agent)
    project, home = build_world(tmp_path)
    before = tree(project), tree(home)
    viewed = agent.with_views(read_project(project, agent), read_user(home, agent))

    template = capture_template(
        viewed, binary, TARGET, (), model=MODELS[agent.name], cli_version="x"
    )

    assert (tree(project), tree(home)) == before  # read, never written
    text = json.dumps(template.body, ensure_ascii=False)
    assert set(_MARK.findall(text)) == EXPECTED[agent.name]
    assert "MARK_OLD_TARGET" not in text and "csv-cleanup" in template.listing["shown"]
    assert ".agents/skills/csv-cleanup: the project's own replaced by the one under test" in (
        template.project_differs
    )
    assert template.body == own_request(agent, binary, tmp_path)


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_nothing_that_runs_a_command_runs_and_no_credential_is_copied(
    agent: Agent, tmp_path: Path
) -> None:
    binary = _binary(agent)
    project, home = build_world(tmp_path, commands=True)
    before = tree(project), tree(home)
    dumps = tmp_path / "homes"
    dumps.mkdir()
    wrapper = tmp_path / f"{agent.binary}-home"  # lists the isolated HOME the CLI starts with
    wrapper.write_text(f'#!/bin/sh\nfind "$HOME" > "{dumps}/$$"\nexec "{binary}" "$@"\n')
    wrapper.chmod(0o755)
    viewed = agent.with_views(read_project(project, agent), read_user(home, agent))

    template = capture_template(
        viewed, wrapper, TARGET, (), model=MODELS[agent.name], cli_version="x"
    )

    assert (tree(project), tree(home)) == before
    assert not (tmp_path / "ran").exists(), "a command of the project or HOME ran"
    text = json.dumps(template.body, ensure_ascii=False)
    assert "CANARY_CREDENTIAL" not in text and "evil" not in text
    assert EXPECTED[agent.name] <= set(_MARK.findall(text))
    homes = [path.read_text() for path in dumps.iterdir()]
    assert homes
    for listing in homes:
        for name in ("auth.json", "oauth_creds.json"):
            assert name not in listing
        for config in (".config/opencode/opencode.json",):
            assert config not in listing
    assert viewed.user_view is not None and any(
        "never copied" in note for note in viewed.user_view.left_out
    )
    differs = " ".join(template.project_differs)
    stripped = {
        "opencode": [
            "opencode.json: mcp left out",
            "opencode.json: plugin left out",
            ".opencode/plugin: left out",
        ],
        "gemini": [
            ".gemini/settings.json: mcpServers left out",
            ".gemini/settings.json: hooks left out",
        ],
        "codex": [".codex/config.toml: left out"],
    }[agent.name]
    for note in stripped:
        assert note in differs


def test_trigger_cli_replays_opencode_in_the_project_and_reports_what_it_took(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`trigger --agent opencode --project DIR`: the replayed request (through the anthropic SDK
    to a loopback fake) holds the project's AGENTS.md and skills; the report names the project,
    its instruction files and skills; with `as_user` (the judge's keyword) HOME's too, and the
    report lists every file taken and left out."""
    import asyncio

    from messages_fake import MessagesFake
    from mock_anthropic_sse import tool_use_stream

    from skillbench.backends.opencode.judge import OpencodeJudge
    from skillbench.cli import main
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.options import EvalContext, TriggerOptions
    from skillbench.trigger.run import run_trigger_eval

    _binary(OPENCODE)
    project, home = build_world(tmp_path / "world", commands=True)
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: csv-cleanup\ndescription: '{TARGET.description}'\n---\n# CSV\n"
    )
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "fix my csv", "should_trigger": True}]))
    fire = tool_use_stream(MODELS["opencode"], "skill", {"name": "csv-cleanup"})
    with MessagesFake(lambda body: fire) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-offline")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        out = tmp_path / "report.json"
        argv = ["trigger", str(skill), "--evals", str(evals), "--agent", "opencode"]
        argv += ["--model", MODELS["opencode"], "--runs", "1", "--project", str(project)]
        argv += ["--cache", str(tmp_path / "cache.sqlite"), "--out", str(out)]
        code = main(argv)
        assert code == 0, capsys.readouterr().err
        sent = json.dumps(fake.requests[-1][2])
        report = json.loads(out.read_text())

        judge = OpencodeJudge(
            MODELS["opencode"],
            api_key="sk-ant-dummy-offline",
            base_url=fake.base_url,
            template_dir=tmp_path / "templates",
            project=project,
            as_user=home,
        )

        async def go() -> object:
            try:
                return await run_trigger_eval(
                    "csv-cleanup",
                    TARGET.description,
                    [EvalQuery("fix my csv", True)],
                    judge,
                    TriggerOptions(runs=1),
                    context=EvalContext(body=TARGET.body),
                )
            finally:
                await judge.aclose()

        with_user = asyncio.run(go())
        sent_as_user = json.dumps(fake.requests[-1][2])
    assert "MARK_PROJECT_AGENTS" in sent and "MARK_SKILL_OPENCODE" in sent
    assert "MARK_USER_OPENCODE" not in sent  # HOME only with --as-user
    assert report["summary"]["passed"] == 1
    versions = report["backend"]["versions"]
    assert "instruction files found: AGENTS.md, CLAUDE.md, docs/extra.md" in versions["project"]
    assert ".opencode/skills/team-oc" in versions["project"]
    assert "opencode.json: mcp left out (starts MCP servers)" in versions["capture_differs"]
    assert "MARK_USER_OPENCODE" in sent_as_user and "MARK_USER_SKILL_CLAUDE" in sent_as_user
    taken = with_user.backend.versions["as_user"]  # type: ignore[attr-defined]
    assert (
        "~/.config/opencode/AGENTS.md" in taken and "~/.claude/skills/my-claude/SKILL.md" in taken
    )
    assert "~/.config/opencode/opencode.json (opencode's configuration" in taken
    assert "auth.json" not in taken
