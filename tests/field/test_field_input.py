"""`skillbench field` on bad input: one line naming the option or file, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.cli import main


def test_bad_since_and_missing_folder_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "field.jsonl"
    projects = tmp_path / "projects"
    projects.mkdir()
    args = ["field", "import", "claude", "--projects", str(projects), "--out", str(out)]
    assert main([*args, "--since", "a month"]) == 2
    assert "--since" in capsys.readouterr().err
    missing = ["field", "import", "claude", "--projects", str(tmp_path / "nope"), "--out", str(out)]
    assert main(missing) == 2
    assert "--projects" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "field.jsonl.state.json").exists()


def test_report_of_a_missing_file_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["field", "report", str(tmp_path / "none.jsonl")]) == 2
    assert "field import" in capsys.readouterr().err


def test_report_skips_lines_that_are_not_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = Path(__file__).resolve().parents[2] / "data" / "field" / "demo.field.jsonl"
    broken = tmp_path / "field.jsonl"
    broken.write_bytes(demo.read_bytes() + b'{"agent": 1}\nnot json\n')
    assert main(["field", "report", str(broken)]) == 0
    printed = capsys.readouterr().out
    assert "5 turns in 3 sessions" in printed
    assert "2 lines of the field file were not records (skipped)" in printed
