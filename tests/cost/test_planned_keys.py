"""A dry run plans exactly what the workflow sends: for trigger, improve, run, grade and
compare, the cache keys of the planned requests equal those of the requests the backend gets.

Each workflow runs through a registered test backend whose estimator records the requests it
is asked to estimate (the plan) and whose judge / text model records what it is sent."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from compare_fakes import FakeJudge, make_workspace
from cost_fakes import FlatEstimator
from grade_fixtures import auto_reply, standard_workspace
from trigger_fakes import ScriptedJudge

from skillbench.backends import registry
from skillbench.backends.base import (
    CallUsage,
    TextRequest,
    TextResponse,
    TriggerRequest,
    cache_key,
)
from skillbench.behavior.options import CompareOptions, GradeOptions, RunOptions
from skillbench.cost.estimate import register_estimator, unregister_estimator
from skillbench.schemas.cost import TokenCounts

DATA = Path(__file__).resolve().parents[2] / "data"
SKILL = DATA / "skills" / "csv-cleanup"
EVALS = DATA / "evals" / "csv-cleanup.trigger.json"
IDENTITY = {"backend": "keys"}

planned: list[Any] = []
sent: list[Any] = []


class RecordingEstimator(FlatEstimator):
    """A flat estimator that keeps every request it is asked about (the plan's requests)."""

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        planned.extend(requests)
        return super().trigger_calls(requests)

    def text_call(self, request: TextRequest) -> TokenCounts:
        planned.append(request)
        return super().text_call(request)


class RecordingJudge(ScriptedJudge):
    async def judge(self, request: TriggerRequest) -> Any:
        sent.append(request)
        return await super().judge(request)


class RecordingText:
    """A text model answering grader, comparator and task prompts, keeping what it is sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.model: str | None = "keys-1"
        self.judge = FakeJudge()

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        sent.append(request)
        if request.purpose == "grade":
            return TextResponse(text=auto_reply(request), usage=CallUsage(10, 10, cost_usd=0.001))
        if request.purpose in ("compare", "analyze"):
            return await self.judge.complete(request)
        return TextResponse(text="# Answer\n", usage=CallUsage(10, 10))

    async def aclose(self) -> None:
        return None


def keys(requests: Sequence[Any]) -> list[str]:
    """The cache keys of requests of one backend (its identity fixed), sorted."""
    return sorted(cache_key(IDENTITY, r.cache_fields()) for r in requests)


@pytest.fixture
def keys_backend() -> Iterator[str]:
    name = "keys-backend"
    registry.register_judge(name, lambda **_: RecordingJudge({}, name=name))
    registry.register_text_model(name, lambda **_: RecordingText(name))
    register_estimator(name, lambda *, model=None, **_: RecordingEstimator(name, model))
    planned.clear()
    sent.clear()
    try:
        yield name
    finally:
        registry.unregister(name)
        unregister_estimator(name)


async def test_trigger_plans_the_requests_it_sends(keys_backend: str) -> None:
    from skillbench.trigger.options import TriggerOptions
    from skillbench.trigger.run import evaluate_skill, plan_skill_eval

    options = TriggerOptions(backend=keys_backend, runs=2, use_cache=False)
    await plan_skill_eval(SKILL, EVALS, options)
    await evaluate_skill(SKILL, EVALS, options)
    assert planned and keys(planned) == keys(sent)


async def test_improve_plans_the_first_rounds_requests(keys_backend: str, tmp_path: Path) -> None:
    """Round 1 evaluates the original description: its requests are the plan's (later rounds
    evaluate candidates nobody has seen, counted as uncached copies)."""
    from skillbench.improve.options import ImproveOptions
    from skillbench.improve.run import improve_skill, plan_improve
    from skillbench.trigger.options import TriggerOptions

    trigger = TriggerOptions(backend=keys_backend, runs=2, use_cache=False)
    options = ImproveOptions(trigger=trigger, rounds=1)
    await plan_improve(SKILL, EVALS, options)
    await improve_skill(SKILL, EVALS, options, out=tmp_path / "out")
    assert planned and keys(planned) == keys(sent)


def test_run_plans_the_tasks_it_sends(keys_backend: str, tmp_path: Path) -> None:
    from skillbench.behavior.cost import plan_run
    from skillbench.behavior.executors import TextModelExecutor
    from skillbench.behavior.run import run_cases
    from skillbench.behavior.workspace import Workspace, init_workspace, read_evals

    skill = tmp_path / "csv-cleanup"
    shutil.copytree(SKILL, skill)
    evals = read_evals(skill / "evals" / "evals.json")
    space = Workspace.for_skill(skill)
    options = RunOptions(configs=["with_skill", "baseline"], runs=1, backend=keys_backend)
    plan_run(space, evals, skill_dir=skill, configs=options.configs, runs=1, backend=keys_backend)
    init_workspace(skill)
    executor = TextModelExecutor(registry.get_text_model(keys_backend))
    run_cases(space, evals, options.but(backend="local"), skill_dir=skill, executor=executor)
    assert planned and keys(planned) == keys(sent)


def test_grade_plans_the_grader_requests_it_sends(keys_backend: str, tmp_path: Path) -> None:
    from skillbench.behavior.grade import grade_workspace_sync, plan_grade

    skill, _space = standard_workspace(tmp_path)
    plan_grade(skill, backend=keys_backend)
    grade_workspace_sync(skill, GradeOptions(backend=keys_backend, use_cache=False))
    assert planned and keys(planned) == keys(sent)


def test_compare_plans_both_orders_it_sends(keys_backend: str, tmp_path: Path) -> None:
    from skillbench.behavior.compare_run import compare_sync, plan_compare_run

    skill = make_workspace(tmp_path, runs=1)
    options = CompareOptions(backend=keys_backend, use_cache=False)
    plan_compare_run(skill, "v1", "v0", options)
    compare_sync(skill, "v1", "v0", options.but(analyze=False))
    assert planned and keys(planned) == keys(sent)


def test_a_scoped_cost_limit_caps_a_grading_in_the_library(
    keys_backend: str, tmp_path: Path
) -> None:
    """A notebook caps a grading: refused up front by the estimate, exit-3 semantics
    (CostCapError), nothing sent."""
    from skillbench.behavior.grade import grade_workspace_sync, plan_grade
    from skillbench.cost.limit import cost_limit
    from skillbench.errors import CostCapError

    skill, _space = standard_workspace(tmp_path)
    estimate = plan_grade(skill, backend=keys_backend).estimate
    assert estimate.calls > 1
    with pytest.raises(CostCapError, match="exceeds the cap"):
        grade_workspace_sync(
            skill, GradeOptions(backend=keys_backend, use_cache=False, max_cost=0.0015)
        )
    assert sent == []
    with cost_limit(0.0015) as budget:  # a scoped cap: the spend stops at it
        summary = grade_workspace_sync(skill, GradeOptions(backend=keys_backend, use_cache=False))
    assert summary.stopped_at_cap > 0 and budget.stopped
    assert json.dumps(summary.cost.model_dump() if summary.cost else {})  # a cost block stated


async def test_trigger_and_improve_refuse_over_the_cap_and_obey_a_cost_limit(
    keys_backend: str, tmp_path: Path
) -> None:
    """The same guard in the library for trigger and improve: `max_cost` below the estimate is
    refused before any call; a scoped `cost_limit` stops the calls at its cap."""
    from skillbench.cost.limit import cost_limit
    from skillbench.errors import CostCapError
    from skillbench.improve.options import ImproveOptions
    from skillbench.improve.run import improve_skill
    from skillbench.trigger.options import TriggerOptions
    from skillbench.trigger.run import evaluate_skill

    capped = TriggerOptions(backend=keys_backend, runs=2, use_cache=False, max_cost=0.000001)
    with pytest.raises(CostCapError):
        await evaluate_skill(SKILL, EVALS, capped)
    with pytest.raises(CostCapError):
        await improve_skill(SKILL, EVALS, ImproveOptions(trigger=capped, rounds=1), out=tmp_path)
    assert sent == []
    with cost_limit(0.000001) as budget:
        report = await evaluate_skill(
            SKILL, EVALS, TriggerOptions(backend=keys_backend, runs=2, use_cache=False)
        )
    assert budget.stopped and (report.summary.errored_runs or 0) > 0  # errors, not outcomes
    assert any(w.startswith("stopped at the cost cap") for w in report.warnings or [])


def test_run_cases_refuses_over_the_cap_in_the_library(keys_backend: str, tmp_path: Path) -> None:
    from skillbench.behavior.run import run_cases
    from skillbench.behavior.workspace import Workspace, init_workspace, read_evals
    from skillbench.errors import CostCapError

    skill = tmp_path / "csv-cleanup"
    shutil.copytree(SKILL, skill)
    evals = read_evals(skill / "evals" / "evals.json")
    init_workspace(skill)
    space = Workspace.for_skill(skill)
    with pytest.raises(CostCapError):
        run_cases(
            space, evals, RunOptions(backend=keys_backend, runs=1, max_cost=1e-9), skill_dir=skill
        )
    assert sent == []


async def test_improve_plans_its_keys_with_the_judge_options_it_sends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop's judge is built with `TriggerOptions.judge_options()` (project, batch, backend
    options): the plan keys its calls with the same (`improve --project … --dry-run`)."""
    import skillbench.improve.cost as improve_cost
    from skillbench.improve.options import ImproveOptions
    from skillbench.improve.run import plan_improve
    from skillbench.trigger.options import TriggerOptions

    seen: list[dict[str, Any]] = []

    def recording_key_judge(*args: Any, options: dict[str, Any], **kwargs: Any) -> Any:
        seen.append(options)
        return None, None

    monkeypatch.setattr(improve_cost, "key_judge", recording_key_judge)
    trigger = TriggerOptions(backend="local", runs=2, use_cache=False, project=tmp_path)
    await plan_improve(SKILL, EVALS, ImproveOptions(trigger=trigger, rounds=1))
    assert seen == [trigger.judge_options()]
    assert seen[0]["project"] == tmp_path
