"""Review fixes of the library view: the improve dry run's split, duplicate skills, listing
claims per harness, truncated skills, the cost wording, `report diff` exit codes, the verdict
when no run completed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"


def test_improve_dry_run_with_library_uses_the_plans_split(
    capsys: pytest.CaptureFixture[str],
) -> None:
    skill = SAMPLE / "release-announcer"
    args = ["improve", str(skill), "--evals", str(skill / "evals" / "trigger.json")]
    code = main([*args, "--library", str(SAMPLE), "--backend", "local", "--dry-run"])
    assert code == 0, capsys.readouterr().err
