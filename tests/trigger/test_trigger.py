"""The trigger eval runner against a scripted judge: rates, intervals, errors, warnings, auto runs."""

from __future__ import annotations

import asyncio

import pytest
from trigger_fakes import OTHER_SKILL, ManyJudge, ScriptedJudge

from skillbench import stats
from skillbench.aio import run_sync
from skillbench.backends.base import SkillEntry
from skillbench.errors import InputError
from skillbench.schemas.trigger import TriggerQuery, TriggerReport
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import EvalContext, TriggerOptions
from skillbench.trigger.report import BROKEN_HARNESS_WARNING
from skillbench.trigger.run import (
    evaluate_description,
    run_trigger_eval,
    run_trigger_eval_sync,
)


def q(text: str, should: bool, family: str | None = None) -> EvalQuery:
    return EvalQuery(text, should, family, (0,))


async def run(script: dict[str, str], queries: list[EvalQuery], **opts: object) -> TriggerReport:
    judge = ScriptedJudge(script)
    progress = opts.pop("progress", None)
    opts.setdefault("runs", 3)  # the scripts are written for 3 runs per query
    options = TriggerOptions(**opts)  # type: ignore[arg-type]
    return await run_trigger_eval(
        "my-skill",
        "Does X. Use when X.",
        queries,
        judge,
        options,
        progress=progress,  # type: ignore[arg-type]
    )


def by_query(report: TriggerReport) -> dict[str, object]:
    return {r.query: r for r in report.results}


async def test_rates_intervals_and_pass_rule() -> None:
    queries = [q("pos-2of3", True), q("pos-1of3", True), q("neg-1of3", False), q("neg-3of3", False)]
    script = {"pos-2of3": "TTN", "pos-1of3": "TNN", "neg-1of3": "NTN", "neg-3of3": "T"}
    report = await run(script, queries, runs=3)
    r = {x.query: x for x in report.results}
    assert (r["pos-2of3"].triggers, r["pos-2of3"].runs, r["pos-2of3"].trigger_rate) == (
        2,
        3,
        0.6667,
    )
    assert r["pos-2of3"].passed and not r["pos-1of3"].passed
    assert r["neg-1of3"].passed and not r["neg-3of3"].passed
    low, high = stats.wilson_interval(2, 3)
    assert r["pos-2of3"].ci_low == pytest.approx(low, abs=1e-4)
    assert r["pos-2of3"].ci_high == pytest.approx(high, abs=1e-4)
    s = report.summary
    assert (s.passed, s.failed, s.total, s.threshold) == (2, 2, 4, 0.5)
    # TP=1 (pos-2of3), FN=1, TN=1, FP=1
    assert s.precision is not None and s.precision.value == 0.5 and s.precision.n == 2
    assert s.recall is not None and s.recall.value == 0.5
    assert s.accuracy is not None and s.accuracy.value == 0.5 and s.accuracy.n == 4
    assert s.calls == 12 and s.cache_hits == 0
    assert s.usage is not None and s.usage.input_tokens == 120
    assert s.cost_usd == pytest.approx(0.012)


async def test_report_has_seed_shape_and_validates() -> None:
    report = await run({"a": "T", "b": "N"}, [q("a", True), q("b", False)])
    data = report.to_json_dict()
    assert set(data) >= {"skill_name", "description", "summary", "results"}
    first = data["results"][0]
    assert {"query", "should_trigger", "triggers", "runs", "errors", "trigger_rate", "pass"} <= set(
        first
    )
    assert TriggerReport.model_validate(data).to_json_dict() == data
    assert data["backend"]["name"] == "scripted"
    assert data["config"]["runs"] == 3 and data["config"]["seed"] == 0


async def test_errors_are_never_counted_as_not_triggered() -> None:
    report = await run({"pos": "TEE", "neg": "NRR"}, [q("pos", True), q("neg", False)])
    r = {x.query: x for x in report.results}
    assert (r["pos"].triggers, r["pos"].runs, r["pos"].errors) == (1, 1, 2)
    assert r["pos"].trigger_rate == 1.0 and r["pos"].passed
    assert (r["neg"].runs, r["neg"].errors) == (1, 2)
    assert r["neg"].error_messages and "RuntimeError" in r["neg"].error_messages[0]
    assert report.warnings and any("HIGH ERROR RATE" in w for w in report.warnings)


async def test_secrets_in_error_messages_are_masked() -> None:
    report = await run({"x": "R"}, [q("x", True)])
    text = report.model_dump_json()
    assert "SECRETSECRET" not in text
    assert "[REDACTED]" in text


async def test_timeout_is_an_error_and_all_errors_make_unresolved() -> None:
    report = await run({"slow": "H", "ok": "T"}, [q("slow", True), q("ok", True)], timeout=0.05)
    r = {x.query: x for x in report.results}
    slow = r["slow"]
    assert (slow.runs, slow.errors, slow.triggers) == (0, 3, 0)
    assert slow.unresolved is True and slow.passed is False
    assert slow.error_messages == ["timeout after 0.05 s"]
    assert slow.ci_low is None and slow.flaky is None
    assert r["ok"].passed
    assert report.summary.unresolved == 1 and report.summary.failed == 1
    assert report.warnings and any("no completed run" in w for w in report.warnings)
    # an unresolved query is outside the confusion matrix
    assert report.summary.recall is not None and report.summary.recall.n == 1


async def test_flaky_when_mixed_and_interval_straddles() -> None:
    report = await run(
        {"mixed": "TN", "solid": "T", "mostly": "TTTTTTTTTN"},
        [q("mixed", True), q("solid", True), q("mostly", True)],
        runs=10,
    )
    r = {x.query: x for x in report.results}
    assert r["mixed"].flaky is True
    assert r["solid"].flaky is False
    assert r["mostly"].flaky is False  # 9/10: Wilson low 0.60 > 0.5, settled despite one miss


async def test_fired_instead_counts_other_skills() -> None:
    report = await run({"pos": "OOT"}, [q("pos", True)])
    assert report.results[0].fired_instead == {OTHER_SKILL: 2}
    assert report.results[0].triggers == 1


async def test_broken_harness_signature_is_loud() -> None:
    queries = [q("p1", True), q("p2", True), q("n1", False), q("n2", False)]
    broken = await run({}, queries)
    assert broken.warnings and broken.warnings[0] == BROKEN_HARNESS_WARNING
    healthy = await run({"p1": "T", "p2": "T"}, queries)
    assert not healthy.warnings


async def test_auto_runs_agree_with_fixed_and_save_calls() -> None:
    script = {"clear-pos": "T", "clear-neg": "N", "half": "TN", "other": "O"}
    queries = [q("clear-pos", True), q("clear-neg", False), q("half", True), q("other", False)]
    fixed_judge, auto_judge = ScriptedJudge(script), ScriptedJudge(script)
    fixed = await run_trigger_eval("s", "d", queries, fixed_judge, options=TriggerOptions(runs=10))
    auto = await run_trigger_eval(
        "s", "d", queries, auto_judge, options=TriggerOptions(runs="auto", max_runs=10)
    )
    assert [r.passed for r in auto.results] == [r.passed for r in fixed.results]
    assert len(auto_judge.requests) < len(fixed_judge.requests) == 40
    assert auto.summary.calls_saved == 40 - len(auto_judge.requests)
    assert auto.summary.calls == len(auto_judge.requests)
    a = {r.query: r for r in auto.results}
    assert a["clear-pos"].runs == 5 and a["clear-pos"].stopped_early is True
    assert a["clear-neg"].runs == 6 and a["other"].runs == 6
    # TNTNTNTNT: 5 of 9 already fixes the 10-run verdict (5/10 >= 0.5): curtailed, not guessed
    assert a["half"].runs == 9 and a["half"].flaky is True
    assert all(r.runs_planned == 10 for r in auto.results)
    assert auto.config is not None and auto.config.runs == "auto" and auto.config.max_runs == 10
    # each query's run indices are distinct, so the cache never replays a run
    indices = [r.run_index for r in auto_judge.requests if r.query == "half"]
    assert sorted(indices) == list(range(9))


async def test_auto_runs_with_errors_still_cap_attempts() -> None:
    report = await run({"x": "E"}, [q("x", True)], runs="auto", max_runs=4)
    assert report.results[0].errors == 4 and report.results[0].unresolved is True


async def test_concurrency_is_bounded_by_workers() -> None:
    judge = ScriptedJudge({}, delay=0.01)
    queries = [q(f"q{i}", False) for i in range(6)]
    await run_trigger_eval("s", "d", queries, judge, options=TriggerOptions(runs=2, workers=2))
    assert judge.max_active == 2
    assert len(judge.requests) == 12


async def test_requests_carry_target_catalog_seed_and_run_index() -> None:
    judge = ScriptedJudge({})
    catalog = [SkillEntry("my-skill", "stale copy"), SkillEntry("pdf", "PDFs. Use when PDF.")]
    report = await run_trigger_eval(
        "my-skill",
        "candidate",
        [q("a", False)],
        judge,
        options=TriggerOptions(runs=2, seed=7),
        context=EvalContext(catalog=tuple(catalog), body="B"),
    )
    first = judge.requests[0]
    assert first.target == SkillEntry("my-skill", "candidate", "B")
    assert [s.name for s in first.catalog] == ["pdf"]  # the target's namesake is left out
    assert {r.run_index for r in judge.requests} == {0, 1} and first.seed == 7
    assert report.notes and any("left out" in n for n in report.notes)
    assert report.config is not None and report.config.catalog == ["pdf"]


async def test_evaluate_description_uses_candidate_not_skill_md() -> None:
    class FakeSkill:
        name = "my-skill"
        description = "the original"
        body = "# body"

    judge = ScriptedJudge({"a": "T"})
    report = await evaluate_description(
        FakeSkill(), "a candidate", [q("a", True)], judge, options=TriggerOptions(runs=1)
    )
    assert report.description == "a candidate"
    assert judge.requests[0].target.description == "a candidate"
    assert judge.requests[0].target.body == "# body"


async def test_sync_entry_point_works_inside_a_running_loop() -> None:
    asyncio.get_running_loop()  # like a Jupyter kernel
    judge = ScriptedJudge({"a": "T"})
    report = run_trigger_eval_sync("s", "d", [q("a", True)], judge, options=TriggerOptions(runs=2))
    assert report.summary.passed == 1


def test_sync_entry_point_without_a_loop() -> None:
    report = run_trigger_eval_sync(
        "s", "d", [TriggerQuery(prompt="a", should_trigger=True)], ScriptedJudge({"a": "T"})
    )
    assert report.results[0].query == "a" and report.results[0].passed
    assert run_sync(lambda: asyncio.sleep(0, result=5)) == 5


async def test_proxy_backend_is_labelled_and_judge_many_batches_a_wave() -> None:
    judge = ManyJudge({"a": "T"})
    report = await run_trigger_eval(
        "s", "d", [q("a", True), q("b", False)], judge, options=TriggerOptions(runs=3)
    )
    assert judge.batches == [6]
    assert report.backend is not None and report.backend.is_proxy
    assert report.backend.notes and "offline proxy, not Claude" in report.backend.notes
    assert report.notes and any("offline proxy" in n for n in report.notes)


async def test_progress_reports_every_run() -> None:
    seen: list[tuple[int, int]] = []
    await run(
        {"a": "T"}, [q("a", True), q("b", False)], runs=2, progress=lambda d, p: seen.append((d, p))
    )
    assert seen[-1] == (4, 4) and len(seen) == 4


async def test_merged_duplicates_are_noted() -> None:
    merged = EvalQuery("dup", True, None, (0, 3))
    report = await run({"dup": "T"}, [merged])
    assert report.notes and any("appeared 2 times" in n for n in report.notes)


async def test_few_runs_note_and_bad_options() -> None:
    report = await run({}, [q("a", False)], runs=3)
    assert report.notes and any("cannot settle" in n for n in report.notes)
    for bad in ({"runs": 0}, {"runs": "often"}, {"threshold": 1.5}, {"workers": 0}, {"timeout": 0}):
        with pytest.raises(InputError):
            await run({}, [q("a", False)], **bad)
    with pytest.raises(InputError):
        await run({}, [])
