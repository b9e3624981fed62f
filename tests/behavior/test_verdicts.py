"""One-line verdicts and headers of the behavior reports (sample runs, local grader)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.behavior.benchmark import build_benchmark
from skillbench.behavior.demo import sample_workspace
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.options import GradeOptions
from skillbench.behavior.verdicts import (
    SAMPLE_RUNS,
    benchmark_header,
    benchmark_verdict,
    grading_header,
    grading_verdict,
)
from skillbench.reports.header import header_html

SKILL = Path(__file__).resolve().parents[2] / "data" / "skills" / "csv-cleanup"


@pytest.fixture(scope="module")
def graded() -> tuple[Path, object]:
    space = sample_workspace(SKILL)
    return space, grade_workspace_sync(SKILL, GradeOptions(backend="local"), workspace=space)


def test_grading_verdict_splits_configurations_and_lists_the_skills_failures_first(
    graded: tuple[Path, object],
) -> None:
    _, summary = graded
    verdict = grading_verdict(summary)  # type: ignore[arg-type]
    assert verdict.line.startswith("with_skill: ") and "; baseline: " in verdict.line
    assert "UNGRADED (no model grader)" in verdict.line
    assert verdict.ok is False  # two with_skill expectations fail in the sample runs
    firsts = [f for f in verdict.failures if f.startswith("with_skill")]
    assert verdict.failures[: len(firsts)] == firsts and len(firsts) < len(verdict.failures)
    header = grading_header(summary, skill="csv-cleanup", recorded=True)  # type: ignore[arg-type]
    assert header.recorded == SAMPLE_RUNS and "Recorded fixtures:" in header_html(header)
    assert header.proxy is not None  # the local grader decides nothing a check cannot


def test_benchmark_verdict_reads_the_paired_interval(graded: tuple[Path, object]) -> None:
    space, _ = graded
    doc = build_benchmark(SKILL, workspace=space)
    verdict = benchmark_verdict(doc)
    paired = (doc.model_extra or {})["paired"]
    low, high = paired["t_ci"]
    assert f"{paired['mean_difference']:+.2f}" in verdict.line
    assert verdict.ok is (True if low > 0 else (False if high < 0 else None))
    assert "rough: fewer than 10 cases" in verdict.line
    header = benchmark_header(doc, backend="local", recorded=True)
    assert header.skill == "csv-cleanup" and header.recorded and "per case" in (header.runs or "")
    assert header.cost is not None  # benchmark.json's cost of the recorded runs, in the header


def test_benchmark_cli_opens_with_the_header_and_no_raw_dict(
    graded: tuple[Path, object], capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli import main

    space, _ = graded
    main(["benchmark", str(SKILL), "--workspace", str(space), "--out", str(space / "b.json")])
    out = capsys.readouterr().out
    assert out.startswith(("✓ Benchmark: ", "✗ Benchmark: ", "– Benchmark: "))
    assert "RECORDED FIXTURES: hand-written SAMPLE runs" in out
    assert "{" not in out and "None" not in out
    assert "pass rate +" in out and " s, tokens " in out
