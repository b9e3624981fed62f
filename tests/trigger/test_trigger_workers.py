"""`workers` reaches the backend: calls in flight follow it, defaults come per backend, the
report records the number used."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from skillbench.cli.trigger_cmd import summary_lines
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import evaluate_skill

KEY = "sk-ant-test-workers-0123456789"
REPLY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-haiku-4-5",
    "content": [{"type": "text", "text": "no skill needed"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 2},
}


class InFlight:
    """A MockTransport handler that answers after a short pause and records the peak in flight."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.calls = 0

    async def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.now += 1
        self.calls += 1
        self.peak = max(self.peak, self.now)
        await asyncio.sleep(0.02)
        self.now -= 1
        return httpx2.Response(200, json=REPLY)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: csv-cleanup\ndescription: Repairs messy CSV files. Use when a csv will not "
        "load.\n---\n\nSteps.\n",
        encoding="utf-8",
    )
    evals = tmp_path / "evals.json"
    queries = [{"query": f"question number {i}", "should_trigger": i % 2 == 0} for i in range(20)]
    evals.write_text(json.dumps(queries), encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    return skill, evals


@pytest.mark.parametrize(("workers", "expected"), [(None, 16), (24, 24), (3, 3)])
async def test_workers_set_the_anthropic_calls_in_flight(
    project: tuple[Path, Path], workers: int | None, expected: int
) -> None:
    handler = InFlight()
    options: dict[str, Any] = {
        "http_client": httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        "harness": "minimal",  # replay's limiter is the same class (tests/backends/test_registry)
    }
    report = await evaluate_skill(
        *project,
        options=TriggerOptions(
            backend="anthropic", use_cache=False, backend_options=options, runs=3, workers=workers
        ),
    )
    assert handler.calls == 60
    assert handler.peak == expected  # 60 calls: every slot gets used
    assert report.config is not None and report.config.workers == expected
    assert any(line.endswith(f", {expected} workers") for line in summary_lines(report))


async def test_local_default_is_one_thread(project: tuple[Path, Path]) -> None:
    report = await evaluate_skill(
        *project, options=TriggerOptions(backend="local", use_cache=False, runs=1)
    )
    assert report.config is not None and report.config.workers == 1
    assert any(line.endswith(", 1 worker") for line in summary_lines(report))
    from skillbench.trigger.frames import cost_frame

    assert cost_frame(report).loc["workers", "value"] == 1  # shown in the notebook report
    assert report.backend is not None and report.backend.versions["workers"].startswith("1 ")
    two = await evaluate_skill(
        *project, options=TriggerOptions(backend="local", use_cache=False, runs=1, workers=2)
    )
    assert two.backend is not None and two.backend.versions["workers"].startswith("2 ")
    assert [r.trigger_rate for r in two.results] == [r.trigger_rate for r in report.results]


async def test_a_run_waiting_out_retry_after_holds_no_worker() -> None:
    """One worker: the throttled run waits while the other runs go through, then retries."""
    from skillbench.backends.anthropic.sdk import AnthropicJudge
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.run import run_trigger_eval

    others_done = asyncio.Event()
    answered: list[str] = []

    async def handler(request: httpx2.Request) -> httpx2.Response:
        query = json.loads(request.content)["messages"][0]["content"]
        if query == "q0" and "q0" not in answered:
            answered.append("q0")
            error = {"type": "error", "error": {"type": "rate_limit_error", "message": "wait"}}
            return httpx2.Response(429, json=error, headers={"retry-after": "30"})
        answered.append(query)
        if len(answered) == 4:
            others_done.set()
        return httpx2.Response(200, json=REPLY)

    judge = AnthropicJudge(
        api_key=KEY,
        max_concurrency=1,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await others_done.wait()

    judge.sleep = sleep
    queries = [EvalQuery(f"q{i}", True, None, (i,)) for i in range(4)]
    report = await asyncio.wait_for(
        run_trigger_eval(
            "csv-cleanup",
            "Repairs CSV files.",
            queries,
            judge,
            options=TriggerOptions(runs=1, workers=1),
        ),
        timeout=10,
    )
    assert waits == [30.0]
    assert answered == ["q0", "q1", "q2", "q3", "q0"]  # the retry came after the others
    assert all(r.errors == 0 and r.runs == 1 for r in report.results)
    await judge.aclose()


async def test_warm_up_runs_before_the_clock_starts() -> None:
    """A judge's `warm_up` (the SDK import, for the API backend) runs before any call."""
    from skillbench.backends.anthropic.sdk import AnthropicJudge
    from skillbench.backends.base import TriggerOutcome, TriggerRequest
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.run import run_trigger_eval

    events: list[str] = []

    class Judge:
        name = "warm"
        max_concurrency = 2

        def warm_up(self) -> None:
            events.append("warm")

        async def judge(self, request: TriggerRequest) -> TriggerOutcome:
            events.append("call")
            return TriggerOutcome(triggered=False)

        def versions(self) -> dict[str, str]:
            return {}

    queries = [EvalQuery("q", False, None, (0,))]
    await run_trigger_eval("s", "d", queries, Judge(), options=TriggerOptions(runs=2))  # type: ignore[arg-type]
    assert events == ["warm", "call", "call"]
    api = AnthropicJudge(api_key=KEY)
    api.warm_up()
    assert api._client is not None  # the SDK was imported and the client built
    await api.aclose()
