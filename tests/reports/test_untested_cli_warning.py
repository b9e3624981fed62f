"""Reports warn when the judge's Claude Code CLI is newer than every version whose request
fidelity was tested (issue 32 item 2), faked by judges reporting `claude_code` 2.1.400: the
trigger, library, improve, gate and agreement reports, as JSON, CLI text, HTML and markdown.
A tested version (the newest, `CLAUDE_LATEST`) is not warned about."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gate_fakes import ProbabilityJudge, skill_repo, table_rates
from improve_fakes import BASE, KeywordJudge, sample_queries
from library_fakes import RouterJudge, q, write_skill
from trigger_fakes import ScriptedJudge

from skillbench.aio import run_sync
from skillbench.backends import registry
from skillbench.backends.claude_cli.tested import CLAUDE_LATEST
from skillbench.cli import main
from skillbench.gate.output import html_page, markdown
from skillbench.gate.run import GateOptions, run_gate
from skillbench.improve.loop import run_improve_loop
from skillbench.improve.options import ImproveOptions
from skillbench.improve.proposers import HeuristicProposer
from skillbench.improve.verdict import improve_header
from skillbench.library.verdict import library_header
from skillbench.reports.header import header_html, header_lines
from skillbench.schemas.report import ReportHeader
from skillbench.trigger.agreement import agreement_lines, compare_reports
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import run_trigger_eval_sync
from skillbench.trigger.verdict import trigger_header

NEWER = "2.1.400"
MARK = f"UNTESTED CLI: Claude Code {NEWER} is newer than {CLAUDE_LATEST}"


class Reporting:
    """Mixin: the judge says which Claude Code CLI it ran (as the replay and claude-code
    judges do in `versions()`)."""

    cli = NEWER

    def versions(self) -> dict[str, str]:
        return {"claude_code": self.cli}


class NewerScripted(Reporting, ScriptedJudge):
    pass


class NewerRouter(Reporting, RouterJudge):
    pass


class NewerKeyword(Reporting, KeywordJudge):
    pass


class NewerProbability(Reporting, ProbabilityJudge):
    pass


def assert_header_warns(header: ReportHeader) -> None:
    assert header.cli_version == NEWER
    assert header.cli_untested is not None and header.cli_untested.startswith(MARK)
    assert any(line.strip().startswith(MARK) for line in header_lines(header))  # CLI text
    html = header_html(header)
    assert "Untested CLI" in html and f"Claude Code {NEWER} is newer than" in html
    assert header.model_dump(mode="json")["cli_untested"].startswith(MARK)  # JSON


def test_a_tested_cli_is_not_warned_about() -> None:
    judge = NewerScripted({"q": "T"})
    judge.cli = CLAUDE_LATEST
    report = run_trigger_eval_sync(
        "pdf-tools", "Use for PDFs.", [EvalQuery("q", True)], judge, TriggerOptions(runs=1)
    )
    assert not any("UNTESTED CLI" in w for w in report.warnings or [])
    header = trigger_header(report)
    assert header.cli_untested is None and "cli_untested" not in header.model_dump(mode="json")


@pytest.fixture
def newer_backend() -> Iterator[str]:
    registry.register_judge("newer-cli", lambda **_: NewerScripted({"tidy the csv": "T"}))
    yield "newer-cli"
    registry.unregister("newer-cli")


def test_the_trigger_report_warns_in_json_cli_text_and_html(
    tmp_path: Path, newer_backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = tmp_path / "csv-tidy"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: csv-tidy\ndescription: Tidy CSV files.\n---\n")
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "tidy the csv", "should_trigger": True}]))
    out = tmp_path / "report.json"
    args = ["trigger", str(skill), "--evals", str(evals), "--backend", newer_backend]
    assert main([*args, "--runs", "1", "--no-cache", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert f"WARNING: {MARK}" in printed.err
    assert MARK in printed.out  # the header's line
    report = json.loads(out.read_text("utf-8"))
    assert report["warnings"][0].startswith(MARK)
    from skillbench.trigger.stored import read_trigger_report

    assert_header_warns(trigger_header(read_trigger_report(out)))


def test_the_library_report_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    library = tmp_path / "lib"
    write_skill(library, "alpha", "Alpha things. Use when alpha.", [q("a1"), q("n1", False)])
    write_skill(library, "beta", "Beta things. Use when beta.", [q("b1")])
    registry.register_judge("newer-router", lambda **_: NewerRouter({"a1": ["alpha"]}))
    try:
        out = tmp_path / "library.json"
        args = ["library", str(library), "--backend", "newer-router", "--runs", "1"]
        main([*args, "--no-cache", "--out", str(out)])
    finally:
        registry.unregister("newer-router")
    printed = capsys.readouterr()
    assert f"WARNING: {MARK}" in printed.err and MARK in printed.out
    data = json.loads(out.read_text("utf-8"))
    assert data["warnings"][0].startswith(MARK)
    from skillbench.library.document import LibraryReport

    assert_header_warns(library_header(LibraryReport.model_validate(data)))


async def test_the_improve_summary_warns_and_says_so_as_it_runs() -> None:
    said: list[str] = []
    result = await run_improve_loop(
        "tidy",
        BASE,
        sample_queries(),
        NewerKeyword(),
        HeuristicProposer(),
        options=ImproveOptions(trigger=TriggerOptions(runs=1), rounds=1),
        progress=lambda event: said.append(event.message) if event.stage == "warning" else None,
    )
    summary = result.summary
    assert summary.warnings and summary.warnings[0].startswith(MARK)
    assert any(m.startswith(MARK) for m in said)  # the CLI prints warning events
    assert summary.settings is not None and summary.settings.cli_version == NEWER
    assert_header_warns(improve_header(summary))


def test_the_gate_report_warns_in_json_markdown_and_html(tmp_path: Path) -> None:
    queries = [f"please tidy the csv export number {i}" for i in range(4)]
    fake = NewerProbability(table_rates({x: 0.9 for x in queries}, {}), name="newer-gate")
    registry.register_judge("newer-gate", lambda **_: fake)
    try:
        skill = skill_repo(tmp_path / "repo", "Cleans CSV exports.", "Cleans CSV (reworded).")
        evals = tmp_path / "evals.json"
        evals.write_text(json.dumps([{"query": x, "should_trigger": True} for x in queries]))
        trigger = TriggerOptions(backend="newer-gate", cache_path=tmp_path / "c.sqlite")
        options = GateOptions(trigger=trigger, runs=2)
        report = run_sync(lambda: run_gate(skill, evals, options, base_ref="main"))
    finally:
        registry.unregister("newer-gate")
    assert report.warnings and sum(w.startswith(MARK) for w in report.warnings) == 1
    assert f"⚠️ {MARK}" in markdown(report)
    page = html_page(report)
    assert "Untested CLI" in page and f"Claude Code {NEWER} is newer than" in page
    assert report.header is not None
    assert_header_warns(ReportHeader.model_validate(report.header))


def test_the_agreement_report_warns_for_the_side_that_is_newer() -> None:
    queries = [EvalQuery("q1", True), EvalQuery("q2", False)]
    options = TriggerOptions(runs=1)
    newer = run_trigger_eval_sync("s", "d", queries, NewerScripted({"q1": "T"}), options)
    tested = NewerScripted({"q1": "T"}, name="tested")
    tested.cli = CLAUDE_LATEST
    other = run_trigger_eval_sync("s", "d", queries, tested, options)
    report = compare_reports(newer, other)
    assert report.warnings is not None and len(report.warnings) == 1
    assert report.warnings[0].startswith(MARK)
    assert f"WARNING: {MARK}" in "\n".join(agreement_lines(report))  # CLI text and the notebook
    assert report.model_dump(mode="json")["warnings"][0].startswith(MARK)
