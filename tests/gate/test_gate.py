"""The gate end to end on a fake judge with known per-query probabilities (no network)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gate_fakes import ProbabilityJudge, skill_repo, table_rates

from skillbench.aio import run_sync
from skillbench.backends import registry
from skillbench.gate.aa import run_aa
from skillbench.gate.output import markdown
from skillbench.gate.run import GateOptions, run_gate
from skillbench.trigger.options import TriggerOptions

QUERIES = [f"please tidy the csv export number {i}" for i in range(10)]
BASE = {q: 0.9 for q in QUERIES}
WORSE = {q: 0.2 for q in QUERIES[:5]}
OLD, NEW = "Cleans CSV exports.", "Cleans CSV exports (reworded)."


@pytest.fixture
def judge() -> Iterator[ProbabilityJudge]:
    fake = ProbabilityJudge(table_rates(BASE, {NEW: WORSE}), name="gate-fake")
    registry.register_judge("gate-fake", lambda **_: fake)
    yield fake
    registry.unregister("gate-fake")


def setup(tmp_path: Path, head: str | None) -> tuple[Path, Path]:
    skill = skill_repo(tmp_path / "repo", OLD, head)
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": q, "should_trigger": True} for q in QUERIES]))
    return skill, evals


def options(tmp_path: Path, **more: object) -> GateOptions:
    trigger = TriggerOptions(backend="gate-fake", cache_path=tmp_path / "c.sqlite")
    return GateOptions(trigger=trigger, runs=8, **more)  # type: ignore[arg-type]


def test_a_regression_is_caught_and_named(tmp_path: Path, judge: ProbabilityJudge) -> None:
    skill, evals = setup(tmp_path, NEW)
    opts = options(tmp_path)
    opts.runs = 20
    report = run_sync(lambda: run_gate(skill, evals, opts, base_ref="main"))
    assert report.verdict == "regressed" and report.ok is False
    assert report.regressed > report.improved and report.p_value < 0.05
    assert report.base.description == OLD and report.head.description == NEW
    assert report.base.commit and report.head.dirty is True
    assert {q.query for q in report.regressed_queries} <= set(QUERIES[:5])
    assert report.regressed_queries
    assert report.pairs == 20 * len(QUERIES)
    assert report.header and report.header["title"].startswith("Gate")
    assert report.cost is not None and report.cost.calls == 2 * 20 * len(QUERIES)
    comment = markdown(report)
    assert comment.index("REGRESSED") < comment.index("Regressed queries")


def test_no_change_states_the_detectable_effect_and_reruns_free(
    tmp_path: Path, judge: ProbabilityJudge
) -> None:
    skill, evals = setup(tmp_path, None)  # the head is the base: an unchanged pull request
    report = run_sync(lambda: run_gate(skill, evals, options(tmp_path), base_ref="main"))
    assert report.verdict == "no change detected" and report.ok is None
    assert report.mde is not None and 0 < report.mde < 1
    assert f"≥ {report.mde:.3g}" in report.verdict_line
    first = judge.calls
    assert first == 8 * len(QUERIES)  # identical sides share their cache keys
    again = run_sync(lambda: run_gate(skill, evals, options(tmp_path), base_ref="main"))
    assert judge.calls == first  # a re-run of the unchanged pull request makes no call
    assert again.cost is not None and again.cost.calls == 0


def test_base_answers_come_from_the_cache_when_only_the_head_changes(
    tmp_path: Path, judge: ProbabilityJudge
) -> None:
    skill, evals = setup(tmp_path, None)
    run_sync(lambda: run_gate(skill, evals, options(tmp_path), base_ref="main"))
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text().replace(OLD, NEW))
    judge.calls = 0
    run_sync(lambda: run_gate(skill, evals, options(tmp_path), base_ref="main"))
    assert judge.calls == 8 * len(QUERIES)  # the head's runs only


def test_planned_runs_follow_the_plan(tmp_path: Path, judge: ProbabilityJudge) -> None:
    skill, evals = setup(tmp_path, NEW)
    opts = options(tmp_path, effect=0.25, power=0.9)
    opts.runs = "planned"
    report = run_sync(lambda: run_gate(skill, evals, opts, base_ref="main"))
    assert report.runs_mode == "planned" and report.plan
    planned = int(report.plan[1].split()[0])
    assert report.runs == max(4, planned) > 4
    assert report.pairs == report.runs * len(QUERIES)
    assert report.cost is not None and report.cost.calls == judge.calls  # the pilot's included
    assert judge.calls == 2 * report.runs * len(QUERIES)  # the pilot's runs came from the cache


def test_aa_uses_fresh_runs_each_repetition(tmp_path: Path, judge: ProbabilityJudge) -> None:
    skill, evals = setup(tmp_path, None)
    aa = run_sync(lambda: run_aa(skill, evals, options(tmp_path), 3))
    assert aa.repetitions == 3 and len(aa.runs) == 3
    assert judge.calls == 3 * 2 * 8 * len(QUERIES)  # a cache namespace per side and repetition
    assert aa.interval[0] <= aa.false_alarm_rate <= aa.interval[1]
    assert "false alarms" in aa.verdict_line


def test_aa_needs_no_git_history(tmp_path: Path, judge: ProbabilityJudge) -> None:
    from gate_fakes import write_skill

    skill = write_skill(tmp_path / "loose" / "gate-skill", OLD)
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": q, "should_trigger": True} for q in QUERIES[:3]]))
    aa = run_sync(lambda: run_aa(skill, evals, options(tmp_path), 1))
    assert aa.repetitions == 1 and judge.calls == 2 * 8 * 3


def test_one_query_that_collapses_is_a_regression_on_its_own_test(tmp_path: Path) -> None:
    """Nine noisy queries hide one collapsing query from the pooled test; its own test (Holm,
    alpha/2) still finds it, and the gate says regressed."""
    noisy = {q: 0.5 for q in QUERIES}
    fake = ProbabilityJudge(table_rates(noisy, {NEW: {QUERIES[0]: 0.0}}), name="gate-fake-2")
    registry.register_judge("gate-fake-2", lambda **_: fake)
    try:
        skill, evals = setup(tmp_path, NEW)
        trigger = TriggerOptions(backend="gate-fake-2", cache_path=tmp_path / "c.sqlite")
        opts = GateOptions(trigger=trigger, runs=30)
        report = run_sync(lambda: run_gate(skill, evals, opts, base_ref="main"))
    finally:
        registry.unregister("gate-fake-2")
    assert report.p_value >= 0.025  # the pooled test alone would have passed it
    assert report.verdict == "regressed", report.verdict_line
    assert "1 query dropped on its own test" in report.verdict_line
    assert [q.query for q in report.regressed_queries] == [QUERIES[0]]
