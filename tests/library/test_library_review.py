"""Review fixes of the library view: the improve dry run's split, duplicate skills, listing
claims per harness, truncated skills, the cost wording, `report diff` exit codes, the verdict
when no run completed."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from library_fakes import RouterJudge

from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.library.discover import load_library
from skillbench.library.run import run_library
from skillbench.library.verdict import library_header, library_verdict
from skillbench.reports.header import header_lines
from skillbench.trigger.options import TriggerOptions

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"


def test_improve_dry_run_with_library_uses_the_plans_split(
    capsys: pytest.CaptureFixture[str],
) -> None:
    skill = SAMPLE / "release-announcer"
    args = ["improve", str(skill), "--evals", str(skill / "evals" / "trigger.json")]
    code = main([*args, "--library", str(SAMPLE), "--backend", "local", "--dry-run"])
    assert code == 0, capsys.readouterr().err


def _skill(folder: Path, name: str, description: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")
    (folder / f"{name}.trigger.json").write_text(
        '[{"query": "read this PDF for me", "should_trigger": true},'
        ' {"query": "what is the weather", "should_trigger": false}]'
    )


@pytest.mark.parametrize(
    ("first", "second", "clash"),
    [
        (("a/pdf-a", "pdf"), ("b/pdf-b", "pdf"), "skill name 'pdf'"),
        (("a/pdf", "pdf"), ("b/pdf", "pdf-forms"), "folder name 'pdf'"),
    ],
)
def test_two_skills_sharing_a_name_or_folder_name_are_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    first: tuple[str, str],
    second: tuple[str, str],
    clash: str,
) -> None:
    library = tmp_path / "lib"
    for where, name in (first, second):
        _skill(library / where, name, f"Works on PDF files ({where}). Use for PDFs.")
    code = main(["library", str(library), "--backend", "lexical", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2
    assert clash in err
    assert str(library / first[0]) in err and str(library / second[0]) in err


async def test_a_harness_that_sends_every_description_makes_no_listing_claim() -> None:
    judge = RouterJudge({})
    judge.harness = "minimal"  # type: ignore[attr-defined]
    report = await run_library(load_library(SAMPLE), judge, TriggerOptions(runs=1), embedder=None)
    assert report.listing is not None and not report.listing.applied
    assert all(s.listing is None for s in report.per_skill)  # testsmith was not "name-only"
    verdict = library_verdict(report)
    assert "name only" not in verdict.line
    assert not any(f.startswith("listing") for f in verdict.failures)
    assert not any("never saw" in w or "name only" in w for w in report.warnings)
    assert any(
        "NOT APPLIED by this harness" in line for line in header_lines(library_header(report))
    )
    made = len(judge.requests)
    with pytest.raises(InputError) as refused:
        await run_library(
            load_library(SAMPLE), judge, TriggerOptions(runs=1), listing_budget=20000,
            embedder=None,
        )  # fmt: skip
    assert "--budget" in str(refused.value)
    assert len(judge.requests) == made  # refused before any call


def test_budget_with_the_minimal_harness_is_refused_before_any_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["library", str(SAMPLE), "--backend", "anthropic", "--harness", "minimal"]
    code = main([*args, "--budget", "20000", "--dry-run"])
    assert code == 2
    assert "--budget" in capsys.readouterr().err


def test_a_truncated_skill_is_counted_worded_and_cut_apart_from_full_ones(
    tmp_path: Path,
) -> None:
    from library_fakes import q, write_skill

    from skillbench.library.listing import hidden_line, library_listing, listing_warnings
    from skillbench.trigger.listing import ENTRY_CAP

    write_skill(tmp_path, "long", "Handles long things. " * 120, None)  # > 1,536 characters
    write_skill(tmp_path, "short", "Short things. Use when short.", [q("short please")])
    library = load_library(tmp_path)
    listing = library_listing(library.entries, "claude-haiku-4-5")
    assert {s.name: s.state for s in listing.skills} == {"long": "truncated", "short": "full"}
    at = {w.budget_chars: w for w in listing.what_if}[listing.budget_chars or 0]
    assert (at.full, at.truncated) == (1, ["long"])  # was "2 of 2 in full"
    assert listing.cut_to_fit is not None and listing.cut_to_fit <= ENTRY_CAP
    assert listing.cut_skills == ["long"]
    warnings = listing_warnings(listing)
    assert not any("never saw" in w for w in warnings)
    assert any("long" in w and f"first {ENTRY_CAP:,} characters" in w for w in warnings)
    assert any(f"cut every description to {listing.cut_to_fit:,}" in w for w in warnings)
    assert "name only" not in (hidden_line(listing) or "")


async def test_the_plan_and_the_report_share_the_cost_purpose_and_notes(tmp_path: Path) -> None:
    from skillbench.cost import notes
    from skillbench.cost.budget import Budget, MeteredJudge
    from skillbench.library.run import plan_library

    auto = TriggerOptions(backend="local", runs="auto", max_runs=4, use_cache=False)
    plan = plan_library(SAMPLE, auto, embedder=None)
    assert notes.RUNS_AUTO in (plan.estimate.notes or [])
    assert {line.purpose for line in plan.estimate.lines} == {"library"}

    inner = RouterJudge({}, is_proxy=True, name="lexical")
    inner.model = None
    budget = Budget(cap_usd=0.0025)  # the fake's calls cost $0.001 each
    report = await run_library(
        load_library(SAMPLE), MeteredJudge(inner, budget), TriggerOptions(runs=1, workers=1),
        embedder=None,
    )  # fmt: skip
    assert report.cost is not None
    assert {line.purpose for line in report.cost.lines} == {"library"}  # the plan's, not "trigger"
    assert budget.refused > 0
    assert notes.stopped(budget.refused, option="--max-cost") in report.warnings


def test_library_reports_with_no_query_in_common_exit_1_and_the_kind_is_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from skillbench.library.diff import is_library_report

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    args = ["--backend", "lexical", "--runs", "1", "--no-cache", "--embedder", "none"]
    main(["library", str(SAMPLE), *args, "--out", str(a)])
    document = json.loads(a.read_text())
    for query in document["queries"]:
        query["query"] = "other: " + query["query"]
    b.write_text(json.dumps(document))
    capsys.readouterr()
    assert main(["report", "diff", str(a), str(b)]) == 1  # nothing in common: 1, not 2
    assert "nothing in common" in capsys.readouterr().out

    assert is_library_report(a)
    other = tmp_path / "trigger.json"
    other.write_text(json.dumps({"document": "trigger-report", "query": "library-routing"}))
    assert not is_library_report(other)


def test_the_evals_help_example_is_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    with contextlib.suppress(SystemExit):
        main(["library", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    example = text.split("e.g. --evals ", 1)[1].split()[0]
    assert not example.rstrip(",)").endswith(".json"), example


async def test_when_every_run_errored_the_verdict_says_no_run_completed() -> None:
    library = load_library(SAMPLE)
    judge = RouterJudge({q.text: ["!"] for q in library.queries})
    report = await run_library(library, judge, TriggerOptions(runs=2), embedder=None)
    verdict = library_verdict(report)
    assert verdict.ok is False
    assert verdict.line.startswith("no run completed (every run errored)")
    attempted = 2 * len(library.queries)
    assert f"all {attempted} runs errored: no rate was measured" in report.warnings
    assert not any("rates rest on the others" in w for w in report.warnings)


def test_improve_dry_run_split_from_a_library_runs_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.improve.options import ImproveOptions
    from skillbench.improve.run import improve_skill_sync

    skill = SAMPLE / "release-announcer"
    evals = skill / "evals" / "trigger.json"
    options = ImproveOptions(
        trigger=TriggerOptions(backend="lexical", runs=1, use_cache=False),
        rounds=1,
        library_dir=SAMPLE,
    )
    out = tmp_path / "out"
    improve_skill_sync(skill, evals, options, out=out)
    summary = out / "loop_summary.json"
    args = ["improve", str(skill), "--evals", str(evals), "--library", str(SAMPLE)]
    code = main([*args, "--backend", "local", "--dry-run", "--split-from", str(summary)])
    assert code == 0, capsys.readouterr().err
