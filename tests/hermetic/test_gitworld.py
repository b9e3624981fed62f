"""Git in a hermetic world: a listed URL lands in a local bare repository with the fixed
identity; an unlisted one fails without leaving the machine."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from skillbench.hermetic.environment import GitSpec
from skillbench.hermetic.gitworld import git_env, local_path

URL = "https://github.com/o/r.git"


def test_push_lands_in_the_local_bare_repository(tmp_path: Path) -> None:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        **git_env(GitSpec(repos=[URL]), tmp_path / "g"),
    }
    work = tmp_path / "work"

    def git(*args: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)

    assert git("clone", "-q", URL, str(work)).returncode == 0
    assert git("commit", "-q", "--allow-empty", "-m", "x", cwd=work).returncode == 0
    assert git("push", "-q", "origin", "HEAD:main", cwd=work).returncode == 0
    bare = local_path(URL, tmp_path / "g" / "remotes")
    log = subprocess.run(
        ["git", "--git-dir", str(bare), "log", "-1", "--format=%an <%ae>", "main"],
        capture_output=True,
        text=True,
    )
    assert log.stdout.strip() == "skillbench <skillbench@example.invalid>"
    missing = git("clone", "-q", "git@github.com:o/other.git", str(tmp_path / "other"))
    assert missing.returncode != 0 and str(tmp_path / "g" / "remotes") in missing.stderr


def test_the_rewrite_holds_when_an_agent_blanks_the_global_config(tmp_path: Path) -> None:
    """Gemini CLI runs every shell command with GIT_CONFIG_GLOBAL=/dev/null (keeping the
    GIT_CONFIG_COUNT entries): the rewrite and the identity still hold."""
    world = git_env(GitSpec(repos=[URL], name="Bench Bot"), tmp_path / "g")
    env = {**os.environ, "HOME": str(tmp_path), **world, "GIT_CONFIG_GLOBAL": "/dev/null"}
    work = tmp_path / "work"
    clone = subprocess.run(
        ["git", "clone", "-q", URL, str(work)], env=env, capture_output=True, text=True
    )
    assert clone.returncode == 0, clone.stderr
    name = subprocess.run(
        ["git", "config", "user.name"], cwd=work, env=env, capture_output=True, text=True
    )
    assert name.stdout.strip() == "Bench Bot"
