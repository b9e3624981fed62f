"""Ask git about a work tree without ever failing: None when git is missing or says no."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run_git(cwd: str | Path, *args: str, timeout: float = 10) -> str | None:
    """Stdout of `git ARGS` run in `cwd`, or None when git is missing, fails or times out."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
