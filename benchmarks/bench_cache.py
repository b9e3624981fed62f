"""Benchmark the call cache: an unchanged eval re-run makes zero model calls.

Runs a 20-query x 3-run trigger eval (16-skill catalog) through the local judge wrapped in
CachingJudge + CallCache twice: the first run calls the judge for every request, the re-run is
served entirely from the SQLite cache. Also times raw cache reads/writes.

Run: .venv/bin/python benchmarks/bench_cache.py  (writes benchmarks/results/bench_cache.json)
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel
from sample_catalog import QUERIES, SKILLS

from skillbench.backends.base import TriggerRequest
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.io import write_json

RESULTS = Path(__file__).parent / "results" / "bench_cache.json"
RUNS = 3
RAW_OPS = 2000


class CacheBenchResult(BaseModel):
    """Figures of one benchmark run."""

    requests: int
    first_run_calls: int
    first_run_hits: int
    first_run_seconds: float
    rerun_calls: int
    rerun_hits: int
    rerun_seconds: float
    rerun_same_outcomes: bool
    sequential_rerun_seconds: float
    raw_put_per_second: int
    raw_get_per_second: int


def eval_requests() -> list[TriggerRequest]:
    target, catalog = SKILLS[0], SKILLS[1:]
    return [
        TriggerRequest(target=target, catalog=catalog, query=q, run_index=r)
        for q in QUERIES
        for r in range(RUNS)
    ]


async def main(folder: Path) -> CacheBenchResult:
    from skillbench.backends.offline.local import LocalJudge, load_model

    load_model()  # cold start is bench_local's business; here only the eval is timed
    requests = eval_requests()
    with CallCache(folder / "cache.sqlite") as cache:
        first = CachingJudge(LocalJudge(), cache, run_id="bench-1")
        t0 = time.perf_counter()
        first_outcomes = await first.judge_many(requests)
        first_seconds = time.perf_counter() - t0

        rerun = CachingJudge(LocalJudge(), cache, run_id="bench-2")
        t0 = time.perf_counter()
        rerun_outcomes = await rerun.judge_many(requests)
        rerun_seconds = time.perf_counter() - t0

        sequential = CachingJudge(LocalJudge(), cache)
        t0 = time.perf_counter()
        for request in requests:
            await sequential.judge(request)
        sequential_seconds = time.perf_counter() - t0
        assert sequential.calls == 0

        t0 = time.perf_counter()
        for i in range(RAW_OPS):
            cache.put(f"raw-{i}", {"i": i, "text": "x" * 200}, backend="bench", kind="raw")
        put_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(RAW_OPS):
            cache.get(f"raw-{i}")
        get_seconds = time.perf_counter() - t0

    return CacheBenchResult(
        requests=len(requests),
        first_run_calls=first.calls,
        first_run_hits=first.hits,
        first_run_seconds=round(first_seconds, 4),
        rerun_calls=rerun.calls,
        rerun_hits=rerun.hits,
        rerun_seconds=round(rerun_seconds, 4),
        rerun_same_outcomes=[o.fired for o in first_outcomes] == [o.fired for o in rerun_outcomes],
        sequential_rerun_seconds=round(sequential_seconds, 4),
        raw_put_per_second=round(RAW_OPS / put_seconds),
        raw_get_per_second=round(RAW_OPS / get_seconds),
    )


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(main(Path(tmp)))
    print(f"trigger eval: {result.requests} requests ({len(QUERIES)} queries x {RUNS} runs)")
    print(f"  {'run':<28} {'calls':>6} {'hits':>6} {'wall':>9}")
    print(
        f"  {'first run':<28} {result.first_run_calls:>6} {result.first_run_hits:>6}"
        f" {result.first_run_seconds:>8.3f}s"
    )
    print(
        f"  {'unchanged re-run (batched)':<28} {result.rerun_calls:>6} {result.rerun_hits:>6}"
        f" {result.rerun_seconds:>8.3f}s"
    )
    print(
        f"  {'re-run, one call at a time':<28} {0:>6} {result.requests:>6}"
        f" {result.sequential_rerun_seconds:>8.3f}s"
    )
    print(f"  same outcomes on re-run: {result.rerun_same_outcomes}")
    print(f"  raw cache: {result.raw_put_per_second} puts/s, {result.raw_get_per_second} gets/s")
    write_json(RESULTS, result)
    print(f"wrote {RESULTS}")
