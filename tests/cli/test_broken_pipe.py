"""A reader that closes stdout early (`skillbench validate data/skills | head -1`) ends the
command quietly: no traceback, no "Broken pipe" error (issue 31, item 8)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.cli import EXIT_STDOUT_CLOSED, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "args", [["validate", "data/skills"], ["validate", "data/skills", "--format", "json"]]
)
def test_a_closed_stdout_ends_the_command_quietly(args: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillbench", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the command writes a byte
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == EXIT_STDOUT_CLOSED
    assert "Broken pipe" not in stderr and "Traceback" not in stderr, stderr
    assert stderr == ""


def test_a_broken_pipe_elsewhere_is_still_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken pipe that is not stdout's (an agent CLI's stdin) stays an error, exit 2."""

    def boom(args: argparse.Namespace) -> int:
        raise BrokenPipeError(32, "Broken pipe", "agent stdin")

    import skillbench.cli as cli

    real = cli.build_parser

    def parser() -> argparse.ArgumentParser:
        built = real()
        built.parse_args = lambda argv=None: argparse.Namespace(func=boom)  # type: ignore[method-assign, assignment]
        return built

    monkeypatch.setattr(cli, "build_parser", parser)
    assert main(["validate"]) == 2
