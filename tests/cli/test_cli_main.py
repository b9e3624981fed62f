"""The CLI entry point: usage errors and unusable paths exit 2 with one line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.cli import main


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: skillbench" in capsys.readouterr().err


def test_unwritable_output_path_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    code = main(["schema", "export", str(blocker / "schemas")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and str(blocker) in err
    assert err.count("\n") == 1
    assert blocker.read_text() == "not a folder\n"
