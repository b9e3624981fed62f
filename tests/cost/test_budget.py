"""The spend meter, the cap, and the metered judge / text model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel
from trigger_fakes import ScriptedJudge

from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
)
from skillbench.backends.cache import CachingJudge, CachingTextModel, CallCache
from skillbench.behavior.structured import ask_structured
from skillbench.cost.budget import (
    CAP_ERROR,
    MAX_COST_ENV,
    Budget,
    MeteredJudge,
    MeteredTextModel,
    SpendMeter,
    meter_text_model,
    parse_max_cost,
)
from skillbench.errors import CostCapReached, InputError

TARGET = SkillEntry("pdf", "PDF forms")


def request(query: str, run: int = 0) -> TriggerRequest:
    return TriggerRequest(TARGET, (), query, run)


@pytest.mark.parametrize("bad", ["-1", "0", "abc", "nan", "inf", ""])
def test_bad_caps_name_the_option(bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_COST_ENV, raising=False)
    if bad == "":
        assert parse_max_cost(None) is None
        return
    with pytest.raises(InputError, match="--max-cost"):
        parse_max_cost(bad)


def test_cap_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_COST_ENV, "$2.50")
    assert parse_max_cost(None) == 2.5
    assert parse_max_cost("1") == 1.0  # the option wins
    monkeypatch.setenv(MAX_COST_ENV, "lots")
    with pytest.raises(InputError, match=r"\$SKILLBENCH_MAX_COST"):
        parse_max_cost(None)


def test_meter_states_unknown_prices_as_unknown_never_zero() -> None:
    meter = SpendMeter()
    meter.record("anthropic", "claude-x", "trigger", CallUsage(10, 2), cached=False, priced=False)
    meter.record("anthropic", "claude-x", "trigger", CallUsage(), cached=True, priced=False)
    meter.record("local", "minilm", "trigger", CallUsage(), cached=False, priced=True)
    block = meter.block(as_of="2026-11-21")
    assert block.dollars == "unknown"
    assert (
        block.calls == 2
        and block.cache_hits == 1
        and block.cache_hit_share == pytest.approx(1 / 3, abs=1e-4)
    )
    by_backend = {line.backend: line for line in block.lines}
    assert by_backend["anthropic"].dollars == "unknown"
    assert by_backend["local"].dollars == 0.0
    assert block.tokens.input_tokens == 10 and block.price_table_as_of == "2026-11-21"


async def test_judge_stops_starting_calls_at_the_cap_and_in_flight_calls_finish() -> None:
    inner = ScriptedJudge({}, delay=0.01)  # each call costs $0.001
    budget = Budget(0.0025)
    judge = MeteredJudge(inner, budget)
    gate = asyncio.Semaphore(2)  # two in flight at a time

    async def one(i: int) -> object:
        async with gate:
            return await judge.judge(request(f"q{i}"))

    outcomes = await asyncio.gather(*(one(i) for i in range(10)))
    made = len(inner.requests)
    assert 3 <= made <= 4  # the cap is reached after 3; a 4th may already be in flight
    refused = [o for o in outcomes if o.error == CAP_ERROR]  # type: ignore[attr-defined]
    assert len(refused) == 10 - made and budget.refused == 10 - made
    block = budget.block(as_of=None)
    assert block.stopped_at_cap and block.calls == made and block.cap_usd == 0.0025
    assert "re-run with a higher cap resumes" in (block.notes or [""])[0]


async def test_past_the_cap_cached_answers_are_still_served(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        inner = ScriptedJudge({"q0": "T"})
        warm = CachingJudge(inner, cache)
        await warm.judge(request("q0"))
        budget = Budget(0.0001)
        budget.meter.record("scripted", "fake-1", "trigger", CallUsage(cost_usd=1.0), cached=False)
        judge = MeteredJudge(CachingJudge(inner, cache), budget)
        hit, miss = await judge.judge_many([request("q0"), request("q1")])
    assert hit.triggered and hit.cached
    assert miss.error == CAP_ERROR and len(inner.requests) == 1


class PricedModel:
    name = "priced"
    model: str | None = "p-1"

    def identity(self) -> dict[str, str]:
        return {"backend": self.name}

    async def complete(self, request: TextRequest) -> TextResponse:
        return TextResponse("ok", usage=CallUsage(5, 5, cost_usd=0.01))

    async def aclose(self) -> None:
        return None


async def test_text_model_refuses_past_the_cap() -> None:
    budget = Budget(0.015)
    model = MeteredTextModel(PricedModel(), budget)
    await model.complete(TextRequest("a", purpose="improve"))
    await model.complete(TextRequest("b", purpose="improve"))
    with pytest.raises(CostCapReached, match="stopped at the cost cap"):
        await model.complete(TextRequest("c", purpose="improve"))
    line = budget.block(as_of=None).lines[0]
    assert line.purpose == "improve" and line.calls == 2 and line.dollars == pytest.approx(0.02)


def test_cost_summary_is_one_line_with_unknown_never_zero() -> None:
    from skillbench.schemas.cost import cost_summary

    meter = SpendMeter()
    meter.record("anthropic", "claude-x", "trigger", CallUsage(10, 2), cached=False, priced=False)
    line = cost_summary(meter.block(as_of="2026-11-21"))
    assert line.startswith("unknown: 1 calls") and "prices as of 2026-11-21" in line
    assert "$0" not in line and "\n" not in line


class Verdict(BaseModel):
    ok: bool


class NativeModel(PricedModel):
    """Offers native structured output (like AnthropicTextModel.complete_json)."""

    def __init__(self) -> None:
        self.asked: list[TextRequest] = []

    async def complete_json(self, request: TextRequest, output_model: type) -> TextResponse:
        self.asked.append(request)
        return TextResponse("", usage=CallUsage(5, 5, cost_usd=0.01), parsed={"ok": True})


async def test_text_cache_hits_are_metered_as_free_hits(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        inner = NativeModel()
        budget = Budget()
        model = meter_text_model(CachingTextModel(inner, cache), budget)
        for _ in range(2):
            await model.complete(TextRequest("a", purpose="grade"))
            reply, _ = await ask_structured(model, TextRequest("b", purpose="grade"), Verdict)
            assert reply.ok
    assert len(inner.asked) == 1  # the structured reply was replayed natively, not as text
    block = budget.block(as_of=None)
    assert (block.calls, block.cache_hits, block.cache_hit_share) == (2, 2, 0.5)
    assert block.dollars == pytest.approx(0.02)  # hits cost nothing and add no tokens
    assert block.tokens.input_tokens == 10


async def test_past_the_cap_cached_text_replies_are_still_served(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        inner = NativeModel()
        await CachingTextModel(inner, cache).complete_json(TextRequest("held"), Verdict)
        budget = Budget(0.0001)
        budget.meter.record("priced", "p-1", "grade", CallUsage(cost_usd=1.0), cached=False)
        model = MeteredTextModel(CachingTextModel(inner, cache), budget)
        reply, _ = await ask_structured(model, TextRequest("held"), Verdict)
        with pytest.raises(CostCapReached):
            await ask_structured(model, TextRequest("new"), Verdict)
    assert reply.ok and len(inner.asked) == 1 and budget.refused == 1


class SlowModel(PricedModel):
    def __init__(self) -> None:
        self.asked = 0

    async def complete(self, request: TextRequest) -> TextResponse:
        self.asked += 1
        await asyncio.sleep(0.01)
        return TextResponse(f"answer {self.asked}", usage=CallUsage(5, 5, cost_usd=0.01))


async def test_identical_requests_in_flight_together_are_both_paid_calls(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        inner, budget = SlowModel(), Budget()
        model = meter_text_model(CachingTextModel(inner, cache), budget)
        one, two = await asyncio.gather(*(model.complete(TextRequest("same")) for _ in range(2)))
    assert inner.asked == 2 and one.text == two.text  # the answer stored first is reported
    block = budget.block(as_of=None)
    assert (block.calls, block.cache_hits) == (2, 0) and block.dollars == pytest.approx(0.02)


async def test_identical_trigger_runs_in_flight_together_are_both_paid_calls(
    tmp_path: Path,
) -> None:
    class Varying(ScriptedJudge):
        """Each answer differs a little (as two real calls do), so the second store loses."""

        answered = 0

        async def judge(self, request: TriggerRequest) -> TriggerOutcome:
            outcome = await super().judge(request)
            self.answered += 1
            outcome.detail["call"] = self.answered
            return outcome

    with CallCache(tmp_path / "c.sqlite") as cache:
        inner, budget = Varying({"q": "T"}, delay=0.01), Budget()
        judge = MeteredJudge(CachingJudge(inner, cache), budget)
        one, two = await asyncio.gather(*(judge.judge(request("q")) for _ in range(2)))
        assert len(cache.superseded()) == 1  # the losing answer is kept apart
    assert len(inner.requests) == 2 and one.triggered and two.triggered
    assert one.detail["call"] == two.detail["call"]  # both report the answer stored first
    assert not one.cached and not two.cached  # both were made: neither is a free hit
    block = budget.block(as_of=None)
    assert (block.calls, block.cache_hits) == (2, 0) and block.dollars == pytest.approx(0.002)


@pytest.mark.parametrize("bad", [-1, 0, float("nan"), "abc", "-0.5"])
def test_every_workflow_checks_its_cap_as_the_option(bad: object) -> None:
    from skillbench.cost.limit import workflow_budget

    with pytest.raises(InputError, match="--max-cost"):
        workflow_budget(budget=None, max_cost=bad, plan=None)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="--max-cost"):  # even beside a given budget
        workflow_budget(budget=Budget(), max_cost=bad, plan=None)  # type: ignore[arg-type]


def test_a_cap_written_as_text_is_read_as_dollars() -> None:
    from skillbench.cost.limit import workflow_budget

    assert workflow_budget(budget=None, max_cost="0.5", plan=None).cap_usd == 0.5  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 0, float("nan"), "0.5x"])
def test_trigger_options_max_cost_is_an_input_error_before_any_call(
    bad: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.trigger.options import TriggerOptions
    from skillbench.trigger.run import evaluate_skill_sync

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    options = TriggerOptions(backend="local", runs=1, max_cost=bad, use_cache=False)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="--max-cost"):
        evaluate_skill_sync(
            "data/skills/csv-cleanup", "data/evals/csv-cleanup.trigger.json", options
        )


def test_trigger_options_max_cost_as_text_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillbench.trigger.options import TriggerOptions
    from skillbench.trigger.run import evaluate_skill_sync

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    options = TriggerOptions(backend="local", runs=1, max_cost="0.5", use_cache=False)  # type: ignore[arg-type]
    report = evaluate_skill_sync(
        "data/skills/csv-cleanup", "data/evals/csv-cleanup.trigger.json", options
    )
    assert not any("cost cap" in w for w in report.warnings or [])


async def test_calls_in_flight_count_against_the_cap() -> None:
    """Four calls side by side at $0.001 each under a $0.0105 cap: a call starts only while the
    spend plus what the calls in flight will cost stays under the cap, so about 11 calls are
    made, not 14 (the spend reaching the cap while three more were still running)."""
    inner, budget = ScriptedJudge({}, delay=0.01), Budget(0.0105)
    judge = MeteredJudge(inner, budget)
    slots = asyncio.Semaphore(4)

    async def one(index: int) -> TriggerOutcome:
        async with slots:
            return await judge.judge(request(f"q{index}"))

    outcomes = await asyncio.gather(*(one(i) for i in range(40)))
    made = len(inner.requests)
    assert made <= 11 and budget.meter.spent <= 0.0105 + 0.001  # at most one call past it
    assert sum(o.error is not None for o in outcomes) == 40 - made and budget.stopped
