"""Both improvement notebooks execute offline through run_notebook with small parameters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.reports.runner import DEMO_NOTEBOOKS, run_notebook

pytestmark = pytest.mark.slow


def test_improve_description_notebook(tmp_path: Path) -> None:
    result = run_notebook(
        "improve_description",
        {"rounds": 2, "runs": 1, "no_cache": True},
        out_root=tmp_path / "reports",
    )
    assert result.ok, result.manifest.error
    names = {a.name for a in result.manifest.artifacts}
    assert {
        "split_rates.png",
        "verdict.json",
        "loop/loop_summary.json",
        "loop/history.json",
    } <= names
    html = result.html.read_text(encoding="utf-8") if result.html else ""
    assert "Round 1 (original)" in html


def test_improve_description_notebook_shows_a_librarys_stolen_queries(tmp_path: Path) -> None:
    skill = "data/library/changelog-writer"
    result = run_notebook(
        "improve_description",
        {
            "skill_dir": skill,
            "evals": f"{skill}/evals/trigger.json",
            "library": "data/library",
            "backend": "lexical",
            "rounds": 2,
            "runs": 1,
            "no_cache": True,
        },
        out_root=tmp_path / "reports",
    )
    assert result.ok, result.manifest.error
    summary = json.loads((result.folder / "loop" / "loop_summary.json").read_text("utf-8"))
    rounds = summary["neighbour_steals"]
    assert [r["round"] for r in rounds] == list(range(1, len(summary["iterations"]) + 1))
    html = result.html.read_text(encoding="utf-8") if result.html else ""
    assert "Neighbour queries each round" in html and "No library given" not in html
    for stolen in (s for r in rounds for s in r["stolen"]):
        assert stolen["neighbour"] in html  # every stolen query's skill is in the table


def test_overfitting_analysis_notebook(tmp_path: Path) -> None:
    result = run_notebook(
        "overfitting_analysis",
        {
            "rounds": 2,
            "runs": 1,
            "no_cache": True,
            "skills": ["csv-cleanup", "sql-query-reviewer"],
        },
        out_root=tmp_path / "reports",
    )
    assert result.ok, result.manifest.error
    verdicts = json.loads((result.folder / "verdicts.json").read_text(encoding="utf-8"))["rows"]
    assert [v["run"] for v in verdicts] == ["csv-cleanup", "sql-query-reviewer"]
    assert all(v["n_test"] > 0 for v in verdicts)


def test_both_are_demo_notebooks() -> None:
    assert {"improve_description", "overfitting_analysis"} <= set(DEMO_NOTEBOOKS)
