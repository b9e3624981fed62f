"""Trigger tables and figures from a report built with the scripted judge; the notebook end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trigger_fakes import ScriptedJudge

from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.frames import (
    confusion_frame,
    cost_frame,
    false_triggers_frame,
    fired_instead_frame,
    fired_instead_note,
    metrics_frame,
    results_frame,
)
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.plots import confusion_figure, trigger_rates_figure
from skillbench.trigger.run import run_trigger_eval_sync


@pytest.fixture
def report() -> TriggerReport:
    queries = [
        EvalQuery("hit", True),
        EvalQuery("miss", True),
        EvalQuery("quiet", False),
        EvalQuery("false alarm", False),
        EvalQuery("broken", True),
    ]
    judge = ScriptedJudge({"hit": "T", "miss": "OON", "false alarm": "T", "broken": "E"})
    return run_trigger_eval_sync("s", "d", queries, judge, options=TriggerOptions(runs=3))


def test_frames(report: TriggerReport) -> None:
    assert list(results_frame(report)["query"]) == ["hit", "miss", "quiet", "false alarm", "broken"]
    matrix = confusion_frame(report)
    assert matrix.loc["should trigger", "triggered"] == 1
    assert matrix.loc["should trigger", "not triggered"] == 1
    assert matrix.loc["should not", "triggered"] == 1
    assert matrix.loc["should not", "not triggered"] == 1
    assert matrix.to_numpy().sum() == 4  # the unresolved query is left out
    instead = fired_instead_frame(report)
    assert instead.to_dict("records") == [
        {"query": "miss", "fired_instead": "other-skill", "runs": 2}
    ]
    assert cost_frame(report).loc["calls", "value"] == 15
    assert list(metrics_frame(report)["metric"]) == [
        "pass_rate",
        "precision",
        "recall",
        "f1",
        "accuracy",
    ]


def test_miss_and_false_trigger_context(report: TriggerReport) -> None:
    assert fired_instead_note(report) == (
        "On 1 of the 1 missed positive another skill fired instead: other-skill (2 runs)."
    )
    assert list(false_triggers_frame(report)["query"]) == ["false alarm"]
    assert cost_frame(report).index.name == "metric"  # the names show in the report table
    quiet = run_trigger_eval_sync(
        "s",
        "d",
        [EvalQuery("a", True), EvalQuery("b", True)],
        ScriptedJudge({"a": "T"}),
        options=TriggerOptions(runs=3),
    )
    assert fired_instead_note(quiet) == (
        "On the 1 missed positive no other skill fired: nothing was chosen instead."
    )
    assert false_triggers_frame(quiet).empty


def test_metrics_show_the_clustered_pass_rate_when_families_repeat() -> None:
    queries = [
        EvalQuery("a1", True, family="a"),
        EvalQuery("a2", True, family="a"),
        EvalQuery("b1", False, family="b"),
        EvalQuery("b2", False, family="b"),
    ]
    judged = run_trigger_eval_sync(
        "s", "d", queries, ScriptedJudge({"a1": "T", "b2": "T"}), options=TriggerOptions(runs=3)
    )
    metrics = metrics_frame(judged)
    assert list(metrics["metric"][:2]) == ["pass_rate", "pass_rate_clustered"]
    assert metrics["method"].iloc[1] == "clustered-se (2 families)"


def test_figures(report: TriggerReport) -> None:
    rates = trigger_rates_figure(report)
    assert len(rates.axes[0].get_yticklabels()) == 5
    assert rates.axes[0].get_xlim() == pytest.approx((-0.03, 1.03))
    assert confusion_figure(report).axes


@pytest.mark.slow
def test_notebook_runs_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillbench.reports.runner import run_notebook

    skill = tmp_path / "skills" / "csv-tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: csv-tidy\ndescription: Clean messy CSV files. Use when a CSV has bad rows.\n"
        "---\n# csv-tidy\n",
        encoding="utf-8",
    )
    evals = tmp_path / "evals.json"
    evals.write_text(
        json.dumps(
            [
                {"query": "clean up this messy csv file", "should_trigger": True},
                {"query": "what is the weather in Oslo", "should_trigger": False},
            ]
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    result = run_notebook(
        "trigger_eval",
        {"skill_dir": str(skill), "evals": str(evals), "runs": 2, "catalog": ""},
        out_root=tmp_path / "reports",
    )
    assert result.manifest.status == "ok"
    saved = TriggerReport.model_validate_json((result.folder / "trigger_report.json").read_text())
    assert saved.summary.total == 2 and saved.backend is not None and saved.backend.is_proxy
    assert (result.folder / "trigger_rates.png").stat().st_size > 0
    assert (result.folder / "confusion.png").stat().st_size > 0
