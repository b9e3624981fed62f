"""Report headers and verdicts, the reports index and `latest`, and `report diff`."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from trigger_fakes import ScriptedJudge

from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.io import dumps_json, write_json
from skillbench.reports.diff import diff_documents, diff_header, diff_reports
from skillbench.reports.header import HeaderInputs, Verdict, header_html, header_lines, make_header
from skillbench.reports.index import update_latest, write_index
from skillbench.reports.manifest import GitState, Manifest, software_versions
from skillbench.reports.notebook import failures_first, table_html
from skillbench.reports.paths import input_path, project_root
from skillbench.schemas.loading import check
from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import run_trigger_eval
from skillbench.trigger.verdict import trigger_header, trigger_verdict

QUERIES = [
    EvalQuery("tidy my csv", True, None, (0,)),
    EvalQuery("fix csv headers", True, None, (1,)),
    EvalQuery("dedupe the csv", True, None, (2,)),
    EvalQuery("bake a cake", False, None, (3,)),
    EvalQuery("write a poem", False, None, (4,)),
]


async def _report(
    script: dict[str, str], description: str = "Tidies CSV. Use when X."
) -> TriggerReport:
    return await run_trigger_eval(
        "csv-tidy", description, QUERIES, ScriptedJudge(script), options=TriggerOptions(runs=4)
    )


async def test_trigger_verdict_names_failures_first() -> None:
    report = await _report(
        {"tidy my csv": "TTTT", "fix csv headers": "TTTT", "bake a cake": "TTTN"}
    )
    verdict = trigger_verdict(report)
    assert verdict.ok is False
    assert verdict.line.startswith(
        "3 of 5 queries pass; 1 should-trigger query fails: 'dedupe the csv'"
    )
    assert "1 should-not-trigger query fires: 'bake a cake'" in verdict.line
    assert verdict.failures == [
        "should trigger, fired 0/4: dedupe the csv",
        "should not trigger, fired 3/4: bake a cake",
    ]
    every = await _report({"tidy my csv": "T", "fix csv headers": "T", "dedupe the csv": "T"})
    assert trigger_verdict(every) == Verdict(ok=True, line="all 5 queries pass")


async def test_header_carries_provenance_and_renders_escaped() -> None:
    report = await _report({"tidy my csv": "T"})
    header = trigger_header(report, eval_set=None)
    assert header.skill == "csv-tidy" and header.backend == "scripted" and header.model == "fake-1"
    assert header.runs == "4 per query" and header.date.endswith("Z")
    assert header.commit is None or len(header.commit) == 40
    evil = make_header("<b>t</b>", Verdict(ok=False, line="<script>x</script>", failures=["<i>"]))
    html = header_html(evil)
    assert "<script>" not in html and "&lt;script&gt;" in html and "✗" in html
    assert header_lines(evil)[0] == "✗ <b>t</b>: <script>x</script>"


def test_eval_set_hash_and_recorded_label(tmp_path: Path) -> None:
    evals = tmp_path / "e.json"
    evals.write_text("[]", encoding="utf-8")
    header = make_header(
        "T", Verdict(ok=None, line="n/a"), HeaderInputs(eval_set=evals, recorded="SAMPLE runs")
    )
    assert (
        header.eval_set_sha256 == "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
    )
    assert "Recorded fixtures:" in header_html(header)


def test_booleans_read_check_marks_and_failures_come_first() -> None:
    import pandas as pd

    frame = pd.DataFrame({"query": ["a", "b"], "pass": [True, False], "flaky": [False, True]})
    ordered = failures_first(frame, "pass")
    assert list(ordered["query"]) == ["b", "a"]
    html = table_html(ordered)
    assert "✗" in html and "✓" in html and "yes" in html and "True" not in html


def test_input_path_resolves_from_the_project_whatever_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project_root()
    assert root is not None and (root / "data" / "skills").is_dir()
    monkeypatch.chdir(tmp_path)
    assert input_path("data/skills") == str(root / "data" / "skills")
    assert input_path("no/such/thing") == "no/such/thing"  # reported by the caller, as given
    (tmp_path / "data" / "skills").mkdir(parents=True)
    assert input_path("data/skills") == "data/skills"  # the working directory wins when it has it
    assert input_path(None) is None


def test_strict_json_writes_null_for_nan() -> None:
    text = dumps_json({"a": float("nan"), "b": [float("inf"), 1.5]})
    assert json.loads(text) == {"a": None, "b": [None, 1.5]} and "NaN" not in text


def _manifest(notebook: str, started: datetime, verdict: str, ok: bool | None) -> Manifest:
    return Manifest(
        header=make_header(notebook, Verdict(ok=ok, line=verdict)),
        notebook=notebook,
        notebook_path=f"notebooks/{notebook}.ipynb",
        run_id=f"{started:%Y%m%dT%H%M%SZ}-abcdef",
        status="ok",
        parameters={},
        kernel_name="python3",
        cwd=".",
        software=software_versions(),
        git=GitState(commit=None, dirty=None),
        started_utc=started,
    )


def test_index_lists_newest_first_and_latest_points_at_the_newest(tmp_path: Path) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for hours, verdict in ((0, "old verdict"), (2, "new <verdict>")):
        manifest = _manifest("trigger_eval", start + timedelta(hours=hours), verdict, hours > 0)
        write_json(tmp_path / "trigger_eval" / manifest.run_id / "manifest.json", manifest)
    other = _manifest("benchmark", start + timedelta(hours=1), "middle", None)
    write_json(tmp_path / "benchmark" / other.run_id / "manifest.json", other)
    link = update_latest(tmp_path, "trigger_eval")
    assert link is not None and os.readlink(link) == "20260101T020000Z-abcdef"
    update_latest(tmp_path, "trigger_eval")  # replacing an existing link works
    html = write_index(tmp_path).read_text(encoding="utf-8")
    assert html.index("new &lt;verdict&gt;") < html.index("middle") < html.index("old verdict")
    assert "trigger_eval/latest/index.html" in html and "3 report(s)" in html
    assert html.count("<tr><td>") == 3  # the latest link is not listed twice


async def test_diff_pairs_queries_and_runs_an_exact_mcnemar(tmp_path: Path) -> None:
    a = await _report({"tidy my csv": "T"})
    b = await _report({"tidy my csv": "T", "fix csv headers": "T", "dedupe the csv": "T"})
    diff = diff_documents(a, b)
    assert (diff.improved, diff.regressed, diff.a_passed, diff.b_passed) == (2, 0, 3, 5)
    assert diff.p_value == pytest.approx(0.5)  # 2 discordant pairs, all one way
    assert diff.verdict.ok is None and "no significant difference" in diff.verdict.line
    assert [c.change for c in diff.changes[:2]] == ["improved", "improved"]
    assert diff_header(diff).verdict == diff.verdict.line
    write_json(tmp_path / "a" / "trigger_report.json", a)
    write_json(tmp_path / "b.json", b)
    again = diff_reports(tmp_path / "a", tmp_path / "b.json")  # a report folder or a file
    assert (again.improved, again.regressed) == (2, 0)


def test_diff_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    a = asyncio.run(_report({"tidy my csv": "T", "fix csv headers": "T", "dedupe the csv": "T"}))
    b = asyncio.run(_report({}))
    write_json(tmp_path / "a.json", a)
    write_json(tmp_path / "b.json", b)
    # 3 regressed (not significant at n = 5): still a failed CI gate, exit 1
    assert main(["report", "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    out = capsys.readouterr().out
    assert "3 regressed" in out and "regressed  A yes → B no" in out
    assert main(["report", "diff", str(tmp_path / "a.json"), str(tmp_path / "a.json")]) == 0
    assert "changed: none" in capsys.readouterr().out
    assert main(["report", "diff", str(tmp_path / "b.json"), str(tmp_path / "a.json")]) == 0
    assert "3 improved" in capsys.readouterr().out
    assert main(["report", "diff", str(tmp_path / "a.json")]) == 2
    assert "needs exactly two reports" in capsys.readouterr().err
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    assert main(["report", "diff", str(tmp_path / "a.json"), str(tmp_path / "x.json")]) == 2
    assert main(["report", "validate_library", "extra"]) == 2


def test_report_documents_are_recognised_quietly(tmp_path: Path) -> None:
    header = make_header("T", Verdict(ok=True, line="fine"))
    path = write_json(tmp_path / "header.json", header)
    result = check(path)
    assert (result.kind, result.valid, result.warnings) == ("report-header", True, [])
    with pytest.raises(InputError):
        diff_reports(tmp_path / "missing.json", path)


def test_a_failed_report_never_becomes_latest(tmp_path: Path) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ok = _manifest("trigger_eval", start, "fine", True)
    failed = _manifest("trigger_eval", start + timedelta(hours=1), "the notebook failed", False)
    failed = failed.model_copy(update={"status": "failed", "run_id": "20260101T010000Z-fedcba"})
    write_json(tmp_path / "trigger_eval" / ok.run_id / "manifest.json", ok)
    assert update_latest(tmp_path, "trigger_eval") is not None
    write_json(tmp_path / "trigger_eval" / failed.run_id / "manifest.json", failed)
    link = update_latest(tmp_path, "trigger_eval")
    assert link is not None and os.readlink(link) == ok.run_id  # still the report that finished
    only_failed = _manifest("benchmark", start, "the notebook failed", False)
    only_failed = only_failed.model_copy(update={"status": "failed"})
    write_json(tmp_path / "benchmark" / only_failed.run_id / "manifest.json", only_failed)
    assert update_latest(tmp_path, "benchmark") is None
    assert not (tmp_path / "benchmark" / "latest").exists()
