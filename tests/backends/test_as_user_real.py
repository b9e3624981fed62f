"""`--as-user`: the replay equals the REAL CLI's own request run in the user's HOME (issue 32
item 4), and the user's HOME is never written.

A fake user HOME holds what changes Claude Code's first request: `settings.json` (an `env`
request setting, `permissions` denying a tool, a small `skillListingBudgetFraction`, an
`outputStyle`), `~/.claude/CLAUDE.md`, three personal skills, a plugin installed by the real
CLI itself (`claude plugin marketplace add` / `plugin install`, a local marketplace), the output
style's file and a `skillUsage` history in `~/.claude.json`; and what must never be copied: a
SessionStart and a Stop hook, an `apiKeyHelper`, a secret in settings `env`, the plugin's own
hooks (each would leave a marker file). The CLI's own request: that CLI run with
HOME = the fake HOME, in a project holding the skills under test, against the loopback capture
server. The replayed request: what `ReplayJudge(as_user=HOME)` sends (httpx2 MockTransport).
Both normalised only for the throwaway folders (as the other fidelity tests do). Both pinned
CLIs; no network.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from real_cli import claude_versions, real_cli_skip_reason, replay_judge

from skillbench.backends.anthropic.capture import CaptureServer, normalise_body, write_skills
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.env import FIXED_ENV
from skillbench.backends.claude_cli.interactive import (
    interactive_argv,
    run_interactive,
    seed_config,
)

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.diagonal("claude"),  # each combination on one version in `make test`
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
MODEL = "claude-haiku-4-5"
QUERY = "merge q1.pdf and q2.pdf"
TARGET = SkillEntry("pdf-tools", "Use when merging, splitting or rotating PDF files.", "# PDF\n")
SECRET = "sk-ant-api03-USERSECRET-do-not-copy-0123456789abcdef"
MEMORY = "Always answer in British English (from the user's CLAUDE.md)."
STYLE_PROMPT = "Answer in at most three short sentences (terse style)."
#: Personal skills: (folder, description, usage count); the plugin skill is used 6 times.
PERSONAL = (
    ("alpha-notes", "Use when taking meeting notes in the alpha notebook format.", 9),
    ("beta-docs", "Use when writing beta documentation pages for the docs site.", 0),
    ("gamma-sheets", "Use when editing gamma spreadsheets with formulas and pivots.", 2),
)
PLUGIN_SKILL = "tidy:tidy-csv"
PLUGIN_DESCRIPTION = "Use when cleaning messy CSV tables with the tidy plugin."
STREAM_JSON = ("--output-format", "stream-json", "--verbose")
MARKERS = ("session-hook", "stop-hook", "key-helper", "plugin-hook")


@pytest.fixture(params=claude_versions())
def claude(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """The user's environment for the CLI: this process's, HOME moved to `home`, no config or
    session variables, skillbench's fixed no-telemetry switches (measured not to change the
    request)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("XDG_", "CLAUDE_CODE_SESSION", "ANTHROPIC_"))
        and k not in ("CLAUDE_CONFIG_DIR", "CLAUDECODE", "HTTPS_PROXY", "HTTP_PROXY")
    }
    return {**env, **FIXED_ENV, "HOME": str(home), **extra}


def skill_md(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def install_plugin(root: Path, home: Path, claude: Path) -> None:
    """A local marketplace with one plugin (a skill and a hook), installed by the real CLI as a
    user installs it. (An MCP server is left out of the capture too, but it adds a tool to the
    user's own request: `test_as_user.py` checks that it is never copied.)"""
    market = root / "market"
    plugin = market / "plugins" / "tidy"
    write(
        market / ".claude-plugin" / "marketplace.json",
        json.dumps(
            {
                "name": "local-market",
                "owner": {"name": "Ada"},
                "plugins": [{"name": "tidy", "source": "./plugins/tidy", "version": "1.0.0"}],
            }
        ),
    )
    write(
        plugin / ".claude-plugin" / "plugin.json",
        json.dumps({"name": "tidy", "version": "1.0.0", "description": "Tidy data files"}),
    )
    write(plugin / "skills" / "tidy-csv" / "SKILL.md", skill_md("tidy-csv", PLUGIN_DESCRIPTION))
    write(plugin / "hooks" / "hooks.json", json.dumps({"hooks": hook(root, "plugin-hook")}))
    for args in (["marketplace", "add", str(market)], ["install", "tidy@local-market"]):
        done = subprocess.run(
            [str(claude), "plugin", *args],
            env=cli_env(home),
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def hook(root: Path, name: str, event: str = "SessionStart") -> dict[str, Any]:
    """A hook that leaves `marker-<name>` and prints nothing."""
    command = {"type": "command", "command": f"touch {root / f'marker-{name}'}"}
    return {event: [{"hooks": [command]}]}


def fake_user(root: Path, claude: Path) -> Path:
    """The fake user's HOME under `root` (see the module docstring); returns it."""
    home = root / "home"
    (home / ".claude").mkdir(parents=True)
    (root / "project").mkdir()
    install_plugin(root, home, claude)
    settings_file = home / ".claude" / "settings.json"
    settings = json.loads(settings_file.read_text())  # what `plugin install` wrote
    settings.update(
        {
            "env": {"BASH_DEFAULT_TIMEOUT_MS": "345678", "ANTHROPIC_API_KEY": SECRET},
            "permissions": {"deny": ["Workflow"], "allow": ["Bash(git log:*)"]},
            # a listing of the five non-bundled skills only, on both CLIs (2.1.332 lists one
            # more bundled skill, switched off), over its budget: 210 characters on haiku-4-5's
            # 200k window (x 4 x fraction), room for two descriptions after the names
            "disableBundledSkills": True,
            "skillOverrides": {"plugin-authoring": "off"},
            "skillListingBudgetFraction": 0.0002625,
            "outputStyle": "Terse",
            "hooks": {**hook(root, "session-hook"), **hook(root, "stop-hook", "Stop")},
            "apiKeyHelper": f"touch {root / 'marker-key-helper'}; echo sk-ant-helper-dummy",
        }
    )
    settings_file.write_text(json.dumps(settings, indent=2))
    write(home / ".claude" / "CLAUDE.md", f"# My rules\n\n{MEMORY}\n")
    write(
        home / ".claude" / "output-styles" / "terse.md",
        f"---\nname: Terse\ndescription: Short answers\n---\n\n{STYLE_PROMPT}\n",
    )
    for folder, description, _ in PERSONAL:
        write(home / ".claude" / "skills" / folder / "SKILL.md", skill_md(folder, description))
    config_file = home / ".claude.json"
    config = json.loads(config_file.read_text()) if config_file.exists() else {}
    now = 1_796_000_000_000  # ms; the CLI decays by days since, the same for every skill
    usage = {folder: count for folder, _, count in PERSONAL if count} | {PLUGIN_SKILL: 6}
    config["skillUsage"] = {
        name: {"usageCount": count, "lastUsedAt": now} for name, count in usage.items()
    }
    config_file.write_text(json.dumps(config, indent=2))
    return home


def tree(*roots: Path) -> dict[str, bytes | str]:
    """Every entry under `roots`: a file's bytes, a link's target, `dir` for a folder."""
    found: dict[str, bytes | str] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            key = str(path)
            if path.is_symlink():
                found[key] = f"link {os.readlink(path)}"
            elif path.is_dir():
                found[key] = "dir"
            else:
                found[key] = path.read_bytes()
    return found


def own_request(
    claude: Path, root: Path, home: Path, mode: str
) -> tuple[dict[str, str], dict[str, Any]]:
    """The CLI's own first Skill-offering request, run as the user (`claude -p`, or the
    interactive CLI in a pty with the query as its initial prompt, the project trusted in the
    user's own config), normalised for `root`."""
    project = root / "project"
    with CaptureServer() as server:
        env = cli_env(
            home, ANTHROPIC_API_KEY="sk-ant-dummy-own", ANTHROPIC_BASE_URL=server.base_url
        )
        if mode == "interactive":
            # the key the CLI asks about is the one of the user's settings `env`: approved
            seed_config({**env, "ANTHROPIC_API_KEY": SECRET}, project)
            argv = interactive_argv(claude, ["--model", MODEL], QUERY)
            run_interactive(argv, project, env, lambda: server.skill_request() is not None, 90)
        else:
            subprocess.run(
                [str(claude), "-p", QUERY, "--model", MODEL, *STREAM_JSON],
                cwd=project,
                env=env,
                capture_output=True,
                timeout=180,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        found = server.skill_request()
    assert found is not None, "the CLI never offered the Skill tool"
    _, headers, body = found
    return headers, normalise_body(body, str(root))


def listing(body: dict[str, Any]) -> list[str]:
    """The lines of the skill listing the request carries."""
    for message in body["messages"]:
        for part in message["content"] if isinstance(message["content"], list) else []:
            text = part.get("text", "") if isinstance(part, dict) else ""
            if "The following skills are available for use with the Skill tool:" in text:
                return [line for line in text.splitlines() if line.startswith("- ")]
    raise AssertionError("no skill listing in the request")


def kinds(body: dict[str, Any]) -> dict[str, bool]:
    """Whether each of the seven kinds of the user's configuration shows in `body`."""
    text = json.dumps(body, ensure_ascii=False)
    lines = listing(body)
    tools = [tool.get("name") for tool in body.get("tools", [])]
    return {
        "settings env": "345678" in text,
        "permissions": "Workflow" not in tools and "Bash" in tools,
        "CLAUDE.md": MEMORY in text,
        "personal skill": any(line.startswith("- alpha-notes") for line in lines),
        "plugin skill": any(line.startswith(f"- {PLUGIN_SKILL}") for line in lines),
        "output style": STYLE_PROMPT in text,
        # shed by use: the two most used (9 and 6 uses) keep their descriptions; with no
        # history the first to fit (alpha-notes, beta-docs) would
        "usage order": {"- beta-docs", "- gamma-sheets", "- pdf-tools"} <= set(lines)
        and any(line.startswith("- alpha-notes: ") for line in lines)
        and any(line.startswith(f"- {PLUGIN_SKILL}: ") for line in lines),
    }


@pytest.mark.parametrize("mode", ["print", "interactive"])
async def test_as_user_replay_equals_the_clis_own_request_in_the_users_home(
    tmp_path: Path, claude: Path, mode: str
) -> None:
    root = (tmp_path / "user").resolve()
    home = fake_user(root, claude)
    before = tree(home, root / "market")
    sent: list[httpx2.Request] = []
    judge = replay_judge(
        tmp_path, MODEL, sent, TARGET.name, claude_bin=claude, as_user=home, cli_mode=mode
    )
    template = await judge.template(TARGET, ())
    outcome = await judge.judge(TriggerRequest(TARGET, (), QUERY, 0))
    await judge.aclose()
    assert outcome.error is None and outcome.triggered is True
    # read-only: the user's HOME (and the marketplace) byte-identical; nothing ran
    assert tree(home, root / "market") == before
    assert [m for m in MARKERS if (root / f"marker-{m}").exists()] == []
    stored = json.dumps(template.model_dump(), ensure_ascii=False)
    assert SECRET not in stored and "sk-ant-helper" not in stored
    taken = judge.as_user.lines() if judge.as_user is not None else []
    assert "taken: ~/.claude/CLAUDE.md (CLAUDE.md)" in taken
    for note in ("hooks left out", "apiKeyHelper left out", "env.ANTHROPIC_API_KEY left out"):
        assert any(note in line for line in taken), note
    assert any("hooks/hooks.json left out" in line for line in taken)
    # the CLI's own request in that HOME (its hooks run: the markers prove they were live)
    (request,) = sent
    replayed = json.loads(request.content)
    assert replayed.pop("stream") is True
    write_skills(root / "project", TARGET, ())
    headers, own = own_request(claude, root, home, mode)
    assert (root / "marker-session-hook").exists()
    seen = kinds(own)
    assert seen == dict.fromkeys(seen, True), seen  # the fake HOME exercises all seven
    assert kinds(replayed) == seen
    assert request.headers["anthropic-beta"] == headers["anthropic-beta"]
    assert json.dumps(replayed, sort_keys=True) == json.dumps(own, sort_keys=True)


def test_a_changed_user_config_is_a_new_template_key(tmp_path: Path) -> None:
    from skillbench.backends.anthropic.as_user import read_as_user
    from skillbench.backends.anthropic.capture import template_key

    home = tmp_path / "home"
    write(home / ".claude" / "CLAUDE.md", "one\n")
    first = template_key(TARGET, (), MODEL, "2.1.197", {}, as_user=read_as_user(home))
    assert first != template_key(TARGET, (), MODEL, "2.1.197", {})
    write(home / ".claude" / "CLAUDE.md", "two\n")
    assert template_key(TARGET, (), MODEL, "2.1.197", {}, as_user=read_as_user(home)) != first
