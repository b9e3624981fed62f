"""Undecided runs, broken answers and the harness header in the trigger report."""

from __future__ import annotations

from trigger_fakes import ScriptedJudge

from skillbench.backends.base import CallUsage
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.report import cache_read_share
from skillbench.trigger.run import run_trigger_eval_sync


def q(text: str, positive: bool) -> EvalQuery:
    return EvalQuery(text, positive, None, (0,))


def test_undecided_runs_are_counted_apart_never_as_misses() -> None:
    judge = ScriptedJudge({"mixed": "TUT", "all-undecided": "UUU"})
    report = run_trigger_eval_sync(
        "s",
        "d",
        [q("mixed", True), q("all-undecided", True)],
        judge,
        options=TriggerOptions(runs=3),
    )
    mixed, undecided = report.results
    assert (mixed.triggers, mixed.runs, mixed.undecided) == (2, 2, 1)
    assert mixed.trigger_rate == 1.0 and mixed.passed
    assert undecided.runs == 0 and undecided.undecided == 3 and undecided.unresolved
    assert undecided.undecided_tools == {"Bash": 3} and not undecided.passed
    assert report.summary.undecided_runs == 4
    assert any(w.startswith("UNDECIDED: 4 run(s)") for w in report.warnings or [])


def test_a_query_whose_runs_all_broke_never_passes() -> None:
    judge = ScriptedJudge({"pos": "BBB", "neg": "BBB"})
    report = run_trigger_eval_sync(
        "s", "d", [q("pos", True), q("neg", False)], judge, options=TriggerOptions(runs=3)
    )
    for result in report.results:
        assert result.runs == 0 and result.errors == 3 and not result.passed
        assert result.error_kinds == {"max_tokens": 3}
    assert report.summary.passed == 0 and report.summary.errored_runs == 6


def test_minimal_harness_report_says_it_is_not_claude_codes_request() -> None:
    judge = ScriptedJudge({"a": "T"})
    judge.harness = "minimal"  # type: ignore[attr-defined]
    report = run_trigger_eval_sync("s", "d", [q("a", True)], judge, options=TriggerOptions(runs=1))
    assert report.harness is not None and report.harness.claude_code_request is False
    assert report.notes is not None and report.notes[0].startswith("harness 'minimal'")
    assert "NOT Claude Code's request" in report.notes[0]
    assert report.listing is not None and report.listing.source == "harness"


def test_cache_read_share_counts_every_input_token() -> None:
    usage = CallUsage(input_tokens=50, cache_read_input_tokens=900, cache_creation_input_tokens=50)
    assert cache_read_share(usage) == 0.9
    assert cache_read_share(CallUsage()) is None


async def test_escalate_reruns_only_undecided_runs_through_the_fallback() -> None:
    from skillbench.trigger.escalate import EscalatingJudge
    from skillbench.trigger.run import run_trigger_eval

    primary = ScriptedJudge({"a": "UNT"})
    fallback = ScriptedJudge({"a": "T"}, name="claude-code")
    judge = EscalatingJudge(primary, fallback)  # type: ignore[arg-type]
    report = await run_trigger_eval("s", "d", [q("a", True)], judge, options=TriggerOptions(runs=3))
    (result,) = report.results
    assert (result.triggers, result.runs, result.undecided) == (2, 3, None)
    assert len(fallback.requests) == 1 and fallback.requests[0].run_index == 0
    assert report.notes is not None
    assert any("1 undecided run(s) re-run through the claude-code" in n for n in report.notes)
    await judge.aclose()
    assert primary.closed and fallback.closed
