"""`schema check` is quiet on every file skillbench writes: a whole sample workspace (runs,
gradings in both dialects, metrics, timing, history, benchmark, comparisons, analysis), a loop's
outputs and the report documents give no warning at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.behavior.benchmark import write_benchmark
from skillbench.behavior.compare_run import compare_sync
from skillbench.behavior.demo import sample_workspace
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.options import CompareOptions, GradeOptions
from skillbench.improve.options import ImproveOptions
from skillbench.improve.run import improve_skill_sync
from skillbench.io import write_json
from skillbench.reports.header import Verdict, make_header
from skillbench.schemas.loading import check
from skillbench.schemas.report import ReportTable
from skillbench.trigger.options import TriggerOptions

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[2] / "data"
SKILL = DATA / "skills" / "csv-cleanup"


def test_every_written_file_checks_without_warnings(tmp_path: Path) -> None:
    space = sample_workspace(SKILL)  # a new temporary workspace of replayed SAMPLE runs
    grade_workspace_sync(SKILL, GradeOptions(backend="local"), workspace=space)
    write_benchmark(SKILL, workspace=space)
    compare_sync(SKILL, "with_skill", "baseline", CompareOptions(backend="local"), workspace=space)
    improve_skill_sync(
        DATA / "skills" / "sql-query-reviewer",
        DATA / "evals" / "sql-query-reviewer.trigger.json",
        out=tmp_path / "loop",
        options=ImproveOptions(
            trigger=TriggerOptions(backend="local", runs=1, use_cache=False), rounds=2
        ),
    )
    header = make_header("T", Verdict(ok=True, line="fine"))
    write_json(tmp_path / "header.json", header)
    write_json(
        tmp_path / "table.json",
        ReportTable(table="t", header=header, columns=["a"], rows=[{"a": None}], nulls={"a": "x"}),
    )
    files = sorted([*tmp_path.rglob("*.json"), *space.rglob("*.json")])
    assert len(files) > 60
    noisy = {str(p): r.warnings for p in files if (r := check(p)).warnings}
    invalid = [str(p) for p in files if not check(p).valid]
    assert not noisy and not invalid
    kinds = {check(p).kind for p in files}
    assert {"grading", "benchmark", "loop-summary", "report-header", "report-table"} <= kinds
