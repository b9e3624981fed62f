"""Whether the real pinned `claude` CLI (.tools/, `make claude`) can run here, and why not; the
versions the fidelity tests run on (the pin and, beside it, the current release)."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mock_anthropic_sse import tool_use_stream

from skillbench.backends.anthropic.listing_calibration import rules_for_cli
from skillbench.backends.anthropic.listing_rules import ListingRules
from skillbench.backends.anthropic.replay import ReplayJudge, cli_version
from skillbench.backends.claude_cli.session import REPO_CLAUDE, REPO_ROOT
from skillbench.backends.claude_cli.tested import CLAUDE_LATEST, CLAUDE_PIN


def latest_claude() -> Path:
    """Where `make claude-latest` puts the current release's `claude` (`CLAUDE_LATEST`)."""
    return REPO_ROOT / ".tools" / f"claude-{CLAUDE_LATEST}" / "node_modules" / ".bin" / "claude"


def claude_versions() -> list[Any]:
    """pytest params (id: the version) for every tested CLI (`backends/claude_cli/tested.py`):
    the pin first, then the current release; each one absent or unable to run is skipped with
    the reason."""
    params = []
    for version, path in ((CLAUDE_PIN, REPO_CLAUDE), (CLAUDE_LATEST, latest_claude())):
        reason = real_cli_skip_reason(path)
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        params.append(pytest.param(path, id=version, marks=marks))
    return params


def listing_rules(claude: Path, model: str, folder: Path) -> ListingRules:
    """The listing rules skillbench applies for this CLI and model (`rules_for_cli`: the table
    for 2.1.197, read by calibration for other versions; calibrations kept in `folder`)."""
    rules = rules_for_cli(claude, cli_version(claude), model, folder=folder)
    assert rules is not None
    return rules


@functools.cache
def real_cli_skip_reason(claude: Path = REPO_CLAUDE) -> str | None:
    """Why the CLI at `claude` cannot run here, or None; asked once per path and process (66
    modules ask at collection, in every worker; the answer cannot change during a run)."""
    if not claude.exists():
        return f"real claude CLI not installed at {claude} (run `make claude`)"
    with claude.resolve().open("rb") as program:  # the native build is ~400 MB: its head only
        head = program.read(64)
    if head.startswith(b"#!") and b"node" in head and shutil.which("node") is None:
        return "node is not on PATH (the claude CLI script needs it)"
    try:
        done = subprocess.run(
            [str(claude), "--version"], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`claude --version` cannot run: {type(exc).__name__}"
    if done.returncode != 0:
        return f"`claude --version` exited with code {done.returncode}"
    return None


def replay_judge(
    folder: Path,
    model: str,
    sent: list[httpx2.Request],
    skill: str,
    claude_bin: Path = REPO_CLAUDE,
    **options: Any,
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
        claude_bin=claude_bin,
        template_dir=folder / "templates",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
        **options,
    )
