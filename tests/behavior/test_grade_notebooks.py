"""The grading_report and benchmark notebooks run end to end on the replayed sample runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.reports.runner import DEMO_NOTEBOOKS, run_notebook

pytestmark = pytest.mark.slow


def test_notebooks_are_in_the_demo() -> None:
    assert {"grading_report", "benchmark"} <= set(DEMO_NOTEBOOKS)


def test_grading_report_notebook(tmp_path: Path) -> None:
    result = run_notebook("grading_report", {}, out_root=tmp_path)
    assert result.ok, result.manifest.error
    table = json.loads((result.folder / "expectations.json").read_text())
    assert table["header"]["title"] == "Grading report" and table["header"]["recorded"]
    cost = table["header"]["cost"]  # the local grader makes no call: $0, 0 calls, dated prices
    assert cost.startswith("$0.0000: 0 calls, cache hits –") and "prices as of 20" in cost
    rows = table["rows"]
    verdicts = {r["verdict"] for r in rows}
    assert "UNGRADED" in verdicts and verdicts <= {"pass", "FAIL", "UNGRADED"}
    html = result.html.read_text() if result.html else ""
    assert "UNGRADED" in html
    assert (result.folder / "expectation_rates.png").read_bytes().startswith(b"\x89PNG")
    rates = json.loads((result.folder / "expectation_rates.json").read_text())["rows"]
    assert all(r["low"] <= r["pass rate"] <= r["high"] for r in rates if r["graded"])


def test_benchmark_notebook(tmp_path: Path) -> None:
    result = run_notebook("benchmark", {}, out_root=tmp_path)
    assert result.ok, result.manifest.error
    bench = json.loads((result.folder / "benchmark.json").read_text())
    assert bench["comparison"]["candidate"] == "with_skill"
    assert bench["paired"]["n_cases"] >= 2
    assert (result.folder / "paired_differences.png").is_file()
    assert (result.folder / "expectation_matrix.png").is_file()
