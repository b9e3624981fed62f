"""`report list` says so when there is nothing to list; `report params` lists a notebook's
parameters; a list parameter given one value (`-p skills csv-cleanup`) means that one item,
never its characters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.reports.notebook import as_list
from skillbench.reports.runner import (
    available_notebooks,
    declared_parameters,
    resolve_notebook,
    run_notebook,
)


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
        {"skills": "csv-cleanup", "rounds": 1, "runs": 1, "no_cache": True},
        out_root=tmp_path / "reports",
    )
    assert result.ok, result.manifest.error
    verdicts = json.loads((result.folder / "verdicts.json").read_text(encoding="utf-8"))["rows"]
    assert [v["run"] for v in verdicts] == ["csv-cleanup"]


def test_report_params_lists_name_default_type_and_comment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["report", "params", "trigger_eval"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "default", "type", "comment"]
    runs = next(line for line in lines if line.startswith("runs "))
    assert runs.split()[:3] == ["runs", "4", "int"] and "fewest runs" in runs
    assert any(line.split()[:3] == ["catalog", "None", "any"] for line in lines)
    assert main(["report", "params"]) == 2
    assert "needs one notebook" in capsys.readouterr().err
    assert main(["report", "params", "no_such_notebook"]) == 2


@pytest.mark.parametrize("name", available_notebooks())
def test_papermill_reads_every_parameter_line(name: str) -> None:
    """A comment papermill cannot parse (an '=' in it) silently drops the parameter: -p NAME
    would then be refused as unknown."""
    import nbformat

    path = resolve_notebook(name)
    cell = next(
        c for c in nbformat.read(str(path), as_version=4).cells
        if "parameters" in c.metadata.get("tags", [])
    )  # fmt: skip
    names = {
        line.split("=")[0].strip()
        for line in cell.source.splitlines()
        if "=" in line and not line.lstrip().startswith("#")
    }
    assert names == set(declared_parameters(path))
