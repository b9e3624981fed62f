"""Notebook helpers of the comparison: tables, figure, escaped findings."""

from __future__ import annotations

from pathlib import Path

from compare_fakes import FakeJudge, make_workspace

from skillbench.behavior.analyze import AnalysisResult
from skillbench.behavior.compare_report import (
    cases_frame,
    diagnostics_frame,
    findings_html,
    outcome_figure,
    verdicts_frame,
)
from skillbench.behavior.compare_run import compare
from skillbench.behavior.options import CompareOptions


async def test_frames_and_figure_follow_the_summary(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=2)
    outcome = await compare(
        skill, "v1", "v0", CompareOptions(analyze=False), text_model=FakeJudge("always-a")
    )
    summary = outcome.summary
    verdicts = verdicts_frame(summary)
    assert len(verdicts) == 6
    assert set(verdicts["order 1: picked"]) == {"A"} and set(verdicts["verdict"]) == {"TIE"}
    assert not verdicts["consistent"].any()
    cases = cases_frame(summary)
    assert list(cases["ties"]) == [2, 2, 2] and set(cases["case verdict"]) == {"TIE"}
    table = dict(diagnostics_frame(summary).values.tolist())
    assert table["swap consistency"] == "0%"
    assert table["position bias (same label won both orders)"] == "100%"
    fig = outcome_figure(summary)
    assert "sign test p = 1" in fig.axes[0].get_title()


async def test_findings_are_escaped(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)
    outcome = await compare(skill, "v1", "v0", text_model=FakeJudge("content"))
    page = findings_html(outcome.analysis)
    assert "</script>" not in page and "<b>x</b>" not in page
    assert "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in page
    assert "No analysis: a &lt;tie&gt;" in findings_html(AnalysisResult(None, "a <tie>"))
