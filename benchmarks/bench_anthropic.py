"""Throughput of AnthropicJudge against the local mock Messages API, then a zero-call cached re-run.

A trigger eval of one skill (csv-cleanup, the other 15 sample skills as distractors): 16 queries ×
3 runs = 48 calls with concurrency 8 against a mock answering after 300 ms. The bound is
8 / 0.3 = 26.7 calls/s, the target ≥ 90 % of it. The mock runs in its own process (so its
threads do not share the benchmark's GIL) on 127.0.0.1; an untimed warm-up of 8 concurrent calls
creates the SDK client and opens the connection pool first (steady state, as in a long eval). Then the same eval through CachingJudge + CallCache again: it must make zero calls
and finish in under 2 s. Dummy key, loopback only, bounded by timeouts.
Writes benchmarks/results/anthropic.json.

    .venv/bin/python benchmarks/bench_anthropic.py
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_catalog import QUERIES, SKILLS

from skillbench.backends.anthropic.sdk import AnthropicJudge
from skillbench.backends.base import TriggerOutcome, TriggerRequest
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.io import write_json

RESULTS = Path(__file__).resolve().parent / "results" / "anthropic.json"
LATENCY = 0.3
CONCURRENCY = 8
RUNS = 3
N_QUERIES = 16
DUMMY_KEY = "dummy-local-mock-key"


class RunStats(BaseModel):
    """One pass over the eval."""

    calls: int
    server_requests: int
    cache_hits: int
    seconds: float
    calls_per_second: float | None
    triggered: int
    errors: int


class AnthropicBench(BaseModel):
    """benchmarks/results/anthropic.json."""

    benchmark: str = "anthropic-judge-vs-mock"
    requests: int
    concurrency: int
    latency_seconds: float
    bound_calls_per_second: float
    first_run: RunStats
    efficiency: float
    target_efficiency: float = 0.9
    throughput_ok: bool
    cached_run: RunStats
    cached_ok: bool
    tokens: dict[str, int]
    note: str


class MockProcess:
    """The mock server in a child process, with its request counter."""

    def __init__(self, url: str) -> None:
        self.url = url

    def count(self) -> int:
        """/v1/messages requests the mock has answered."""
        with urllib.request.urlopen(f"{self.url}/stats", timeout=5) as reply:
            return int(json.load(reply).get("messages", 0))


@contextmanager
def mock_process(latency: float) -> Iterator[MockProcess]:
    """Start `mock_messages_server.py --port 0` and stop it afterwards."""
    script = Path(__file__).resolve().parent / "mock_messages_server.py"
    cmd = [sys.executable, str(script), "--port", "0", "--latency", str(latency)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("LISTENING "):
            raise RuntimeError(f"mock server did not start: {line!r}")
        yield MockProcess(line.split()[1])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def build_requests() -> list[TriggerRequest]:
    """16 queries × 3 runs for one target skill, the other sample skills as its catalog."""
    target = next(s for s in SKILLS if s.name == "csv-cleanup")
    catalog = tuple(s for s in SKILLS if s.name != target.name)
    return [
        TriggerRequest(target, catalog, query, run_index=run, seed=42)
        for run in range(RUNS)
        for query in QUERIES[:N_QUERIES]
    ]


async def one_pass(
    server: MockProcess, cache: CallCache, requests: list[TriggerRequest]
) -> tuple[RunStats, list[TriggerOutcome]]:
    """Run the eval once through CachingJudge(AnthropicJudge) and count what reached the mock."""
    judge = AnthropicJudge(
        api_key=DUMMY_KEY, base_url=server.url, max_concurrency=CONCURRENCY, max_retries=0
    )
    warm_up = [
        TriggerRequest(requests[0].target, (), "warm-up", run_index=-1 - i) for i in range(8)
    ]
    await judge.judge_many(warm_up)  # untimed: creates the client and opens the connections
    cached = CachingJudge(judge, cache)
    before = server.count()
    start = time.perf_counter()
    outcomes = await asyncio.wait_for(cached.judge_many(requests), timeout=60)
    seconds = time.perf_counter() - start
    await cached.aclose()
    served = server.count() - before
    return (
        RunStats(
            calls=cached.calls,
            server_requests=served,
            cache_hits=cached.hits,
            seconds=round(seconds, 4),
            calls_per_second=round(served / seconds, 2) if served else None,
            triggered=sum(o.triggered for o in outcomes),
            errors=sum(o.error is not None for o in outcomes),
        ),
        outcomes,
    )


async def bench() -> AnthropicBench:
    """Both passes against a fresh mock and a fresh cache."""
    requests = build_requests()
    bound = CONCURRENCY / LATENCY
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock_process(LATENCY) as server,
        CallCache(Path(tmp) / "cache.sqlite") as cache,
    ):
        first, outcomes = await one_pass(server, cache, requests)
        second, _ = await one_pass(server, cache, requests)
    efficiency = (first.calls_per_second or 0.0) / bound
    tokens = {
        "input_tokens": sum(o.usage.input_tokens for o in outcomes),
        "cache_read_input_tokens": sum(o.usage.cache_read_input_tokens for o in outcomes),
        "cache_creation_input_tokens": sum(o.usage.cache_creation_input_tokens for o in outcomes),
        "output_tokens": sum(o.usage.output_tokens for o in outcomes),
    }
    return AnthropicBench(
        requests=len(requests),
        concurrency=CONCURRENCY,
        latency_seconds=LATENCY,
        bound_calls_per_second=round(bound, 2),
        first_run=first,
        efficiency=round(efficiency, 3),
        throughput_ok=efficiency >= 0.9 and first.errors == 0,
        cached_run=second,
        cached_ok=second.server_requests == 0 and second.calls == 0 and second.seconds < 2.0,
        tokens=tokens,
        note=(
            "mock server in a child process on 127.0.0.1 (benchmarks/mock_messages_server.py); "
            "an untimed warm-up of 8 concurrent calls per pass (they reach the mock, not the cache"
            ", and are not counted); token "
            "counts are the mock's imitation of prompt caching, not real API usage"
        ),
    )


def main() -> int:
    """Run, print a summary, write the JSON; exit 1 when a target is missed."""
    result = asyncio.run(bench())
    write_json(RESULTS, result)
    first, second = result.first_run, result.cached_run
    print(
        f"first run: {first.server_requests} calls in {first.seconds:.2f} s = "
        f"{first.calls_per_second} calls/s vs bound {result.bound_calls_per_second} "
        f"({result.efficiency:.0%}, target ≥ 90 %) errors={first.errors}"
    )
    print(
        f"cached re-run: {second.server_requests} calls, {second.cache_hits} hits, "
        f"{second.seconds:.3f} s (target 0 calls, < 2 s)"
    )
    print(f"wrote {RESULTS}")
    return 0 if result.throughput_ok and result.cached_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
