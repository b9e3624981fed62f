"""Benchmark the offline local judge: cold start and decisions per second on this machine.

Run: .venv/bin/python benchmarks/bench_local.py  (writes benchmarks/results/bench_local.json)
"""

from __future__ import annotations

import asyncio
import os
import platform
import time
from pathlib import Path

from pydantic import BaseModel
from sample_catalog import QUERIES, SKILLS

from skillbench.backends.base import TriggerRequest
from skillbench.io import write_json

RESULTS = Path(__file__).parent / "results" / "bench_local.json"
RUNS = 3


class LocalBenchResult(BaseModel):
    """Figures of one benchmark run."""

    machine: str
    cpu_count: int
    skills: int
    queries: int
    runs: int
    import_seconds: float
    model_load_seconds: float
    cold_start_seconds: float
    eval_decisions: int
    eval_seconds: float
    eval_decisions_per_second: float
    sweep_decisions: int
    sweep_seconds: float
    sweep_decisions_per_second: float
    single_judge_calls_per_second: float


def requests_for(target_index: int) -> list[TriggerRequest]:
    target = SKILLS[target_index]
    catalog = tuple(s for s in SKILLS if s.name != target.name)
    return [
        TriggerRequest(target=target, catalog=catalog, query=q, run_index=r)
        for q in QUERIES
        for r in range(RUNS)
    ]


async def main() -> LocalBenchResult:
    start = time.perf_counter()
    from skillbench.backends.offline.local import LocalJudge, load_model

    imported = time.perf_counter()
    load_model()
    loaded = time.perf_counter()

    judge = LocalJudge()
    eval_requests = requests_for(0)
    outcomes = await judge.judge_many(eval_requests)  # embeds queries + skills in one batch
    evaluated = time.perf_counter()
    assert len(outcomes) == len(eval_requests)

    sweep = [r for i in range(len(SKILLS)) for r in requests_for(i)]
    t0 = time.perf_counter()
    await judge.judge_many(sweep)
    sweep_seconds = time.perf_counter() - t0

    fresh = LocalJudge(seed=1)
    t0 = time.perf_counter()
    for request in eval_requests[:30]:
        await fresh.judge(request)
    single_seconds = time.perf_counter() - t0

    return LocalBenchResult(
        machine=f"{platform.system()} {platform.machine()}",
        cpu_count=os.cpu_count() or 0,
        skills=len(SKILLS),
        queries=len(QUERIES),
        runs=RUNS,
        import_seconds=round(imported - start, 3),
        model_load_seconds=round(loaded - imported, 3),
        cold_start_seconds=round(evaluated - start, 3),
        eval_decisions=len(eval_requests),
        eval_seconds=round(evaluated - loaded, 3),
        eval_decisions_per_second=round(len(eval_requests) / (evaluated - loaded), 1),
        sweep_decisions=len(sweep),
        sweep_seconds=round(sweep_seconds, 3),
        sweep_decisions_per_second=round(len(sweep) / sweep_seconds, 1),
        single_judge_calls_per_second=round(30 / single_seconds, 1),
    )


if __name__ == "__main__":
    result = asyncio.run(main())
    rows = [
        ("import skillbench.backends.offline.local", f"{result.import_seconds:.2f} s"),
        (
            "model load (onnxruntime + int8 MiniLM, offline)",
            f"{result.model_load_seconds:.2f} s",
        ),
        (
            f"first eval: {result.queries} queries x {result.runs} runs, {result.skills} skills",
            f"{result.eval_seconds:.2f} s ({result.eval_decisions_per_second:.0f} decisions/s)",
        ),
        ("cold start to first eval done", f"{result.cold_start_seconds:.2f} s"),
        (
            f"warm sweep: every skill as target ({result.sweep_decisions} decisions)",
            f"{result.sweep_seconds:.2f} s ({result.sweep_decisions_per_second:.0f} decisions/s)",
        ),
        (
            "one-at-a-time judge() calls, fresh judge",
            f"{result.single_judge_calls_per_second:.0f} calls/s",
        ),
    ]
    width = max(len(label) for label, _ in rows)
    print(f"local judge on {result.machine}, {result.cpu_count} cores")
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")
    write_json(RESULTS, result)
    print(f"wrote {RESULTS}")
