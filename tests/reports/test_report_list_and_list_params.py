"""`report list` says so when there is nothing to list; a list parameter given one value
(`-p skills csv-cleanup`) means that one item, never its characters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.reports.notebook import as_list
from skillbench.reports.runner import run_notebook


def test_report_list_prints_a_line_when_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "list", "--out", str(tmp_path / "none-yet")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no reports under ") and "none-yet" in out


def test_as_list_keeps_one_value_whole() -> None:
    assert as_list("pdf") == ["pdf"]
    assert as_list(["a", "b"]) == ["a", "b"] and as_list(("a",)) == ["a"]
    assert as_list(None) == []
    with pytest.raises(InputError, match="expected a list"):
        as_list({"a": 1}, "skills")


@pytest.mark.slow
def test_one_skill_given_as_a_scalar_is_one_skill(tmp_path: Path) -> None:
    result = run_notebook(
        "overfitting_analysis",
        {"skills": "csv-cleanup", "rounds": 1, "runs": 1, "use_cache": False},
        out_root=tmp_path / "reports",
    )
    assert result.ok, result.manifest.error
    verdicts = json.loads((result.folder / "verdicts.json").read_text(encoding="utf-8"))["rows"]
    assert [v["run"] for v in verdicts] == ["csv-cleanup"]
