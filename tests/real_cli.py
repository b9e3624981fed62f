"""Whether the real pinned `claude` CLI (.tools/, `make claude`) can run here, and why not."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx2
from mock_anthropic_sse import tool_use_stream

from skillbench.backends.anthropic.replay import ReplayJudge
from skillbench.backends.claude_cli.session import REPO_CLAUDE


def real_cli_skip_reason() -> str | None:
    if not REPO_CLAUDE.exists():
        return f"real claude CLI not installed at {REPO_CLAUDE} (run `make claude`)"
    head = REPO_CLAUDE.resolve().read_bytes()[:64]
    if head.startswith(b"#!") and b"node" in head and shutil.which("node") is None:
        return "node is not on PATH (the claude CLI script needs it)"
    try:
        done = subprocess.run(
            [str(REPO_CLAUDE), "--version"], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`claude --version` cannot run: {type(exc).__name__}"
    if done.returncode != 0:
        return f"`claude --version` exited with code {done.returncode}"
    return None


def replay_judge(
    folder: Path, model: str, sent: list[httpx2.Request], skill: str, **options: Any
) -> ReplayJudge:
    """A replay judge whose template the real CLI captures (templates under `folder`) and whose
    API is a mock recording each request in `sent` and answering with a Skill call to `skill`."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        body = tool_use_stream(model, "Skill", {"skill": skill})
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return ReplayJudge(
        model,
        api_key="sk-ant-dummy-offline",
        base_url="http://mock.local",
        claude_bin=REPO_CLAUDE,
        template_dir=folder / "templates",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
        **options,
    )
