"""The interactive CLI's request, captured through a pty and replayed (issue 32 item 1).

Real Claude Code (both pinned versions) against the loopback capture server, no network:
`--cli-mode interactive` captures the request of the CLI users type into (its identity line,
`cc_entrypoint=cli`, more tools than `claude -p`, one more beta), and the replay of that
template for another query equals, byte for byte, the request the interactive CLI itself sends
when that query is TYPED into its prompt (not passed as the initial prompt, so the capture's own
path is not what it is compared with).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import httpx2
import pytest
from real_cli import claude_versions, real_cli_skip_reason, replay_judge

from skillbench.backends.anthropic.capture import (
    CaptureServer,
    capture_env,
    capture_template,
    normalise_body,
)
from skillbench.backends.anthropic.replay import cli_version
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.interactive import seed_config
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.backends.proctree import child_options, kill_tree
from skillbench.skill import load_as_claude_code
from skillbench.trigger.catalog import entry_for

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
MODEL = "claude-haiku-4-5"
QUERY = "convert the quarterly report into a pdf"
INTERACTIVE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."


@pytest.fixture(params=claude_versions())
def claude(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def skill(root: Path, folder: str, description: str) -> SkillEntry:
    path = root / folder
    path.mkdir(parents=True)
    text = f"---\nname: {folder}\ndescription: {description}\n---\n\n# {folder}\n"
    (path / "SKILL.md").write_text(text, encoding="utf-8")
    loaded, _ = load_as_claude_code(path)
    return entry_for(loaded)


def texts(body: dict[str, Any]) -> str:
    return json.dumps(body.get("system"), ensure_ascii=False)


def typed_request(
    claude: Path, query: str, folders: list[Path]
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The first Skill-offering request of the interactive CLI when `query` is typed into its
    prompt, as a user does (the skill folders copied as they are; config seeded)."""
    root = Path(tempfile.mkdtemp(prefix="skillbench-typed-")).resolve()
    project, home = root / "project", root / "home"
    (home / ".claude").mkdir(parents=True)
    for folder in folders:
        shutil.copytree(folder, project / ".claude" / "skills" / folder.name)
    master, slave = os.openpty()
    proc = None
    try:
        with CaptureServer() as server:
            env = {**capture_env(home, server.base_url, {}), "TERM": "xterm-256color"}
            seed_config(env, project)
            proc = subprocess.Popen(
                [str(claude), "--model", MODEL],
                cwd=project,
                env=env,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                **child_options(),
            )
            os.close(slave)
            shown, typed = b"", False
            while server.skill_request() is None and proc.poll() is None:
                if select.select([master], [], [], 0.2)[0]:
                    shown += os.read(master, 65536)
                if not typed and b"shortcuts" in shown:  # the prompt is ready
                    os.write(master, query.encode())
                    select.select([], [], [], 0.5)  # let the prompt take the text, then Enter
                    os.write(master, b"\r")
                    typed = True
            found = server.skill_request()
        assert found is not None, "the interactive CLI never offered the Skill tool"
        path, headers, body = found
        return path, headers, normalise_body(body, str(root))
    finally:
        if proc is not None:
            kill_tree(proc.pid)
            proc.kill()
            proc.wait()
        os.close(master)
        shutil.rmtree(root, ignore_errors=True)


def test_interactive_capture_is_the_interactive_clis_request(claude: Path, tmp_path: Path) -> None:
    target = skill(tmp_path, "pdf-tools", "Convert documents to PDF and merge PDF files.")
    version = cli_version(claude)
    both = {
        mode: capture_template(claude, target, (), model=MODEL, cli_version=version, cli_mode=mode)
        for mode in ("print", "interactive")
    }
    printed, typed = both["print"], both["interactive"]
    assert (printed.cli_mode, typed.cli_mode) == ("print", "interactive")
    assert printed.key != typed.key
    assert INTERACTIVE_IDENTITY in texts(typed.body)
    assert INTERACTIVE_IDENTITY not in texts(printed.body)
    assert "cc_entrypoint=cli;" in texts(typed.body)
    assert "cc_entrypoint=sdk-cli;" in texts(printed.body)
    names = {mode: [t["name"] for t in t_.body["tools"]] for mode, t_ in both.items()}
    assert set(names["print"]) < set(names["interactive"])
    if claude == REPO_CLAUDE:  # 2.1.197 (FIELD-NOTES §11): 24 tools vs 27, one more beta
        extra = set(names["interactive"]) - set(names["print"])
        assert {"AskUserQuestion", "EnterPlanMode", "ExitPlanMode"} <= extra
        assert len(typed.betas()) == len(printed.betas()) + 1
    else:  # 2.1.332 (measured here): 12 tools vs 13, the same betas
        assert len(names["interactive"]) == len(names["print"]) + 1
    assert typed.sentinel_count() == 1


async def test_replaying_the_interactive_template_equals_the_typed_request(
    claude: Path, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    target = skill(lib, "pdf-tools", "Convert documents to PDF and merge PDF files.")
    other = skill(lib, "csv-tools", "Clean and join CSV files.")
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, MODEL, sent, "pdf-tools", claude, cli_mode="interactive")
    try:
        outcome = await judge.judge(TriggerRequest(target, (other,), QUERY, 0))
    finally:
        await judge.aclose()
    assert outcome.error is None and outcome.triggered is True
    path, headers, body = typed_request(claude, QUERY, [lib / "pdf-tools", lib / "csv-tools"])
    replayed = json.loads(sent[0].content)
    assert replayed.pop("stream") is True
    assert sent[0].url.raw_path.decode() == path
    assert sent[0].headers["anthropic-beta"] == headers["anthropic-beta"]
    assert sent[0].headers["anthropic-version"] == headers["anthropic-version"]
    mine = json.dumps(dict(sorted(replayed.items())), ensure_ascii=False)
    theirs = json.dumps(dict(sorted(body.items())), ensure_ascii=False)
    assert mine == theirs
    assert judge.versions()["cli_mode"] == "interactive"
