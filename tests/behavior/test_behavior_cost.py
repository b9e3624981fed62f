"""Costs of behavior evals: dry runs of run / grade / compare, caps, metered runs."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from compare_fakes import make_workspace
from grade_fixtures import standard_workspace

from skillbench.backends.base import CallUsage, TextRequest, TextResponse
from skillbench.backends.cache import CallCache
from skillbench.behavior.cost import plan_run
from skillbench.behavior.executors import TextModelExecutor
from skillbench.behavior.options import CompareOptions, GradeOptions, RunOptions
from skillbench.behavior.run import run_cases
from skillbench.behavior.workspace import init_workspace, read_evals
from skillbench.cli import main
from skillbench.cost.budget import Budget
from skillbench.errors import EXIT_COST_CAP

DATA_SKILL = Path(__file__).resolve().parents[2] / "data" / "skills" / "csv-cleanup"


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    folder = tmp_path / "csv-cleanup"
    shutil.copytree(DATA_SKILL, folder)
    path = folder / "evals" / "evals.json"
    data = {
        "cases": [
            {
                "id": "one",
                "prompt": "Clean the file.",
                "files": ["evals/files/crm_export.csv"],
                "expectations": [{"criterion": "c", "description": "d", "required": True}],
            }
        ]
    }
    path.write_text(json.dumps(data))
    return folder


class PricedModel:
    """A text model named like the anthropic backend, each reply costing $0.01."""

    name = "anthropic"
    model: str | None = "claude-sonnet-4-5"

    def __init__(self) -> None:
        self.requests: list[TextRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": "priced-fake", "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        self.requests.append(request)
        return TextResponse("# Answer\n", usage=CallUsage(100, 20, cost_usd=0.01))

    async def aclose(self) -> None:
        return None


def test_run_dry_run_counts_tasks_needs_no_key_and_creates_nothing(
    skill: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", str(skill), "--backend", "anthropic", "--model", "claude-sonnet-4-5"]
    assert main([*args, "--runs", "2", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1 case(s) × 2 run(s) × 2 configuration(s)" in out and "= 4 runs" in out
    assert "calls 4, cache hits 0" in out and "stated default 1500 tokens" in out
    assert not (skill.parent / "csv-cleanup-workspace").exists()
    assert main([*args, "--runs", "2", "--max-cost", "0.0001"]) == EXIT_COST_CAP
    assert "exceeds the cap" in capsys.readouterr().err
    assert not (skill.parent / "csv-cleanup-workspace").exists()


def _plan_after_one_cached_run(skill: Path, tmp_path: Path, model: PricedModel) -> Any:
    """Run every case once (both configurations) through `model`, then plan two runs each on
    the anthropic backend against the same cache."""
    space = init_workspace(skill).workspace
    evals = read_evals(skill / "evals" / "evals.json")
    with CallCache(tmp_path / "c.sqlite") as cache:
        run_cases(
            space,
            evals,
            RunOptions(runs=1),
            skill_dir=skill,
            cache=cache,
            executor=TextModelExecutor(model),
        )
        return plan_run(
            space, evals, skill_dir=skill, configs=["with_skill", "baseline"], runs=2,
            backend="anthropic", model="claude-sonnet-4-5", cache=cache,
        )  # fmt: skip


class SonnetIdentity(PricedModel):
    """Answers like PricedModel under the identity of the anthropic backend's sonnet-4-5, so
    its cached answers are the ones a real run on that backend would reuse."""

    def identity(self) -> dict[str, Any]:
        from skillbench.backends.registry import get_text_model

        real = get_text_model("anthropic", model="claude-sonnet-4-5", api_key="dry-run-no-key")
        return dict(real.identity())


def test_run_plan_counts_cached_runs_as_free(skill: Path, tmp_path: Path) -> None:
    plan = _plan_after_one_cached_run(skill, tmp_path, SonnetIdentity())
    # 1 case x 2 runs x 2 configurations: run 1 of each configuration is cached, run 2 is not
    assert plan.estimate.calls == 2 and plan.estimate.cache_hits == 2
    assert plan.estimate.dollars != "unknown" and float(plan.estimate.dollars) > 0


def test_run_plan_counts_runs_cached_under_another_backend_as_paid(
    skill: Path, tmp_path: Path
) -> None:
    plan = _plan_after_one_cached_run(skill, tmp_path, PricedModel())
    assert plan.estimate.calls == 4 and plan.estimate.cache_hits == 0  # other identity: no hit
    assert plan.estimate.dollars != "unknown" and float(plan.estimate.dollars) > 0


def test_runs_stop_at_the_cap_and_resume_from_the_cache(skill: Path, tmp_path: Path) -> None:
    space = init_workspace(skill).workspace
    evals = read_evals(skill / "evals" / "evals.json")
    model = PricedModel()
    with CallCache(tmp_path / "c.sqlite") as cache:
        budget = Budget(0.015)
        batch = run_cases(space, evals, RunOptions(runs=3, workers=1), skill_dir=skill, cache=cache, executor=TextModelExecutor(model), budget=budget)  # fmt: skip
        assert batch.calls == 2 and batch.refused == 4 and len(batch) == 2
        block = budget.block(as_of=None)
        assert block.stopped_at_cap and block.calls == 2 and block.dollars == pytest.approx(0.02)
        written = sorted(p.parent.name for p in space.runs_dir.rglob("run.json"))
        assert len(written) == 2
        more = Budget(1.0)
        again = run_cases(space, evals, RunOptions(runs=3, workers=1), skill_dir=skill, cache=cache, executor=TextModelExecutor(model), budget=more)  # fmt: skip
    assert again.hits == 2 and again.calls == 4 and again.refused == 0
    assert more.block(as_of=None).cache_hits == 2


def test_grade_dry_run_builds_one_request_per_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, _space = standard_workspace(tmp_path)
    base = ["grade", str(skill), "--backend", "anthropic", "--model", "claude-haiku-4-5"]
    assert main([*base, "--dry-run", "--cache", str(tmp_path / "c.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "plan: grade 8 run folder(s)" in out and "calls 8, cache hits 0" in out
    assert "[grade]" in out
    assert main([*base, "--max-cost", "0.000001"]) == EXIT_COST_CAP
    assert not list(skill.parent.rglob("grading.json"))


def test_compare_dry_run_counts_both_orders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_workspace(tmp_path, runs=2)
    args = ["compare", str(skill), "--a", "v0", "--b", "v1", "--backend", "anthropic"]
    assert main([*args, "--model", "claude-sonnet-4-5", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "6 run pair(s) × 2 orders" in out and "calls 12" in out
    assert main([*args, "--model", "no-such-model", "--dry-run"]) == 2
    assert "--model" in capsys.readouterr().err


class CostedGrader:
    """Grades any prompt validly; each call costs $0.01 (a registered, priced backend)."""

    name = "priced-grader"
    model: str | None = "pg-1"

    def __init__(self) -> None:
        self.requests: list[TextRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        from grade_fixtures import auto_reply

        self.requests.append(request)
        return TextResponse(text=auto_reply(request), usage=CallUsage(10, 10, cost_usd=0.01))

    async def aclose(self) -> None:
        return None


async def test_grading_stops_at_the_cap_and_the_rest_is_left_alone(tmp_path: Path) -> None:
    from skillbench.backends import registry
    from skillbench.behavior.grade import grade_workspace

    made: list[CostedGrader] = []

    def factory(**_: object) -> CostedGrader:
        made.append(CostedGrader())
        return made[-1]

    registry.register_text_model("priced-grader", factory)
    try:
        skill, _space = standard_workspace(tmp_path)
        budget = Budget(0.025)
        summary = await grade_workspace(
            skill,
            GradeOptions(backend="priced-grader", cache_path=tmp_path / "c.sqlite"),
            budget=budget,
        )
    finally:
        registry.unregister("priced-grader")
    calls = len(made[0].requests)
    assert 3 <= calls < 8  # MAX_CONCURRENT gradings may be in flight when the cap is reached
    assert summary.stopped_at_cap == 8 - len(summary.runs) > 0
    assert any("stopped at the cost cap" in note for note in summary.notes)
    block = budget.block(as_of=None)
    assert block.stopped_at_cap and block.calls == calls and block.lines[0].purpose == "grade"


def test_benchmark_states_the_cost_of_the_recorded_runs(skill: Path, tmp_path: Path) -> None:
    from skillbench.behavior.benchmark import build_benchmark
    from skillbench.behavior.cost import runs_cost

    space = init_workspace(skill).workspace
    evals = read_evals(skill / "evals" / "evals.json")
    with CallCache(tmp_path / "c.sqlite") as cache:
        run_cases(
            space,
            evals,
            RunOptions(runs=1),
            skill_dir=skill,
            cache=cache,
            executor=TextModelExecutor(PricedModel()),
        )
        run_cases(
            space,
            evals,
            RunOptions(runs=2),
            skill_dir=skill,
            cache=cache,
            executor=TextModelExecutor(PricedModel()),
        )
    block = runs_cost(space)
    # run 1 of each config was replayed from the cache by the second call; run 2 was executed
    assert block.calls == 2 and block.cache_hits == 2
    assert block.tokens.input_tokens == 200 and block.tokens.output_tokens == 40
    assert block.dollars == pytest.approx((200 * 3.0 + 40 * 15.0) / 1e6)  # claude-sonnet-4-5
    from skillbench.behavior.grade import grade_workspace_sync

    grade_workspace_sync(
        skill, GradeOptions(backend="local")
    )  # machine checks only: writes grading.json
    extra = build_benchmark(skill).model_extra or {}
    assert extra["cost"]["calls"] == 2 and extra["cost"]["price_table_as_of"]


@pytest.fixture
def priced_backends() -> Iterator[None]:
    """`priced-grader` and `priced-judge`: registered text models at $0.01 a call, each with a
    flat estimator (so their price is known and `--dry-run` works)."""
    from compare_fakes import FakeJudge
    from cost_fakes import flat_factory

    from skillbench.backends import registry
    from skillbench.cost.estimate import register_estimator, unregister_estimator

    class PricedJudge(FakeJudge):
        name = "priced-judge"

        async def complete(self, request: TextRequest) -> TextResponse:
            reply = await super().complete(request)
            reply.usage = CallUsage(10, 10, cost_usd=0.01)
            return reply

    registry.register_text_model("priced-grader", lambda **_: CostedGrader())
    registry.register_text_model("priced-judge", lambda **_: PricedJudge())
    for name in ("priced-grader", "priced-judge"):
        register_estimator(name, flat_factory(name, per_call=0.01))
    try:
        yield
    finally:
        for name in ("priced-grader", "priced-judge"):
            registry.unregister(name)
            unregister_estimator(name)


def test_regrading_unchanged_runs_costs_nothing_and_counts_cache_hits(
    tmp_path: Path, priced_backends: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.behavior.grade import grade_workspace_sync, plan_grade
    from skillbench.behavior.verdicts import grading_header
    from skillbench.schemas.cost import cost_summary

    skill, _space = standard_workspace(tmp_path)
    where = tmp_path / "c.sqlite"
    first = grade_workspace_sync(skill, GradeOptions(backend="priced-grader", cache_path=where))
    assert first.cost is not None  # no Budget passed: the library meters anyway
    calls, n = first.cost.calls, first.cost.calls + first.cost.cache_hits
    assert calls > 0 and first.cost.dollars == pytest.approx(0.01 * calls)
    assert first.cost.price_table_as_of and first.cost.lines[0].purpose == "grade"
    again = grade_workspace_sync(skill, GradeOptions(backend="priced-grader", cache_path=where))
    assert again.cost is not None
    assert (again.cost.calls, again.cost.cache_hits, again.cost.cache_hit_share) == (0, n, 1.0)
    assert again.cost.dollars == 0.0 and again.cost.tokens.input_tokens == 0
    header = grading_header(again, skill=skill, recorded=False)
    assert header.cost == cost_summary(again.cost) and "0 calls, cache hits 100%" in header.cost
    assert header.cost_detail == again.cost  # and as data, for a CI gate reading header.json
    with CallCache(where) as cache:  # the dry run counts the cached answers as free
        plan = plan_grade(skill, backend="priced-grader", cache=cache)
    assert (plan.estimate.calls, plan.estimate.cache_hits, plan.estimate.dollars) == (0, n, 0.0)
    args = ["grade", str(skill), "--backend", "priced-grader", "--cache", str(where)]
    assert main([*args, "--dry-run"]) == 0
    assert f"calls 0, cache hits {n} (100%)" in capsys.readouterr().out
    main(args)
    assert (
        f"cost: $0.0000 (prices as of {again.cost.price_table_as_of}); calls 0, cache hits {n}"
        in (capsys.readouterr().err)
    )


def test_compare_summary_states_the_cost_and_a_rerun_is_all_cache_hits(
    tmp_path: Path, priced_backends: None
) -> None:
    from skillbench.behavior.compare import read_summary, summary_path
    from skillbench.behavior.compare_run import compare_sync, plan_compare_run
    from skillbench.behavior.verdicts import compare_header
    from skillbench.behavior.workspace import Workspace
    from skillbench.schemas.cost import cost_summary

    skill = make_workspace(tmp_path, runs=1)
    where = tmp_path / "c.sqlite"
    options = CompareOptions(backend="priced-judge", cache_path=where)
    first = compare_sync(skill, "v1", "v0", options).summary
    pairs = first.judged
    assert pairs == 3 and first.cost is not None
    by_purpose = {line.purpose: line.calls for line in first.cost.lines}
    assert by_purpose == {"compare": 2 * pairs, "analyze": 1}  # the analyzer's call counts too
    assert first.cost.dollars == pytest.approx(0.01 * (2 * pairs + 1))
    again = compare_sync(skill, "v1", "v0", options).summary
    assert again.cost is not None
    assert (again.cost.calls, again.cost.cache_hits, again.cost.dollars) == (0, 2 * pairs + 1, 0.0)
    stored = read_summary(summary_path(Workspace.for_skill(skill), "v1", "v0"))
    assert stored.cost == again.cost  # the persisted summary carries the block
    assert compare_header(again, skill=skill, recorded=False).cost == cost_summary(again.cost)
    plan = plan_compare_run(
        skill,
        "v1",
        "v0",
        CompareOptions(backend="priced-judge", dialect="writing-skills", cache_path=where),
    )
    assert (plan.estimate.calls, plan.estimate.cache_hits) == (0, 2 * pairs)


def test_local_grading_and_comparison_state_a_zero_cost(tmp_path: Path) -> None:
    from skillbench.behavior.compare_run import compare_sync
    from skillbench.behavior.grade import grade_workspace_sync

    skill = make_workspace(tmp_path, runs=1)
    graded = grade_workspace_sync(skill, GradeOptions(backend="local"))
    compared = compare_sync(
        skill, "v1", "v0", CompareOptions(backend="local", use_cache=False)
    ).summary
    for cost in (graded.cost, compared.cost):
        assert cost is not None and (cost.calls, cost.cache_hits, cost.dollars) == (0, 0, 0.0)
