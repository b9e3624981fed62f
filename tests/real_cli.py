"""Whether the real pinned `claude` CLI (.tools/, `make claude`) can run here, and why not."""

from __future__ import annotations

import shutil
import subprocess

from skillbench.backends.claude_code import REPO_CLAUDE


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
