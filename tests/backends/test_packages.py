"""`make agents` installs the packages the agents' specs pin (`BackendSpec.cli_package`,
`cli_make_target`), listed by `python -m skillbench.backends.packages`: one declared place, read
with the standard library only, so `make` works before any venv exists (issue 37)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.backends.codex.agent import CODEX
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.spec import cli_packages, entry_point_specs

ROOT = Path(__file__).resolve().parents[2]


def _bare(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -S -m skillbench.backends.packages ARGS`: no site-packages, the checkout only."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-S", "-m", "skillbench.backends.packages", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_agents_packages_come_from_their_specs_with_the_standard_library(
    tmp_path: Path,
) -> None:
    done = _bare("agents", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split()
    assert listed == cli_packages("agents")
    assert sorted(listed) == sorted(agent.package for agent in (CODEX, GEMINI, OPENCODE))
    pinned = {s.name: s.cli_package for s in entry_point_specs() if s.cli_make_target == "agents"}
    assert set(pinned) == {"codex", "gemini", "opencode"}


def test_an_unknown_target_is_exit_2(tmp_path: Path) -> None:
    done = _bare("nope", cwd=tmp_path)
    assert done.returncode == 2 and "'nope'" in done.stderr
    assert _bare(cwd=tmp_path).returncode == 2


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_agents_installs_what_the_specs_list() -> None:
    """`make -n` prints the recipe without running it: the npm line holds the specs' packages,
    and the Makefile pins none of its own."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "skillbench.backends.packages agents" in makefile
    assert not any(package in makefile for package in cli_packages("agents"))
    done = subprocess.run(
        ["make", "-n", "-B", "-C", str(ROOT), "agents", f"PYTHON={sys.executable}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert " ".join(cli_packages("agents")) in done.stdout
