"""Replay throughput of the gemini and codex backends against the loopback fake, next to a bare
SDK client sending the same requests.

Per agent: the real pinned CLI captures the request once (one capture for the skill set: the
target csv-cleanup and the other 15 sample skills), then 100 queries × 3 runs = 300 replayed
calls at 32 workers through the backend's judge (template store, sentinel swap, limiter, first-move
fold, outcome) against the fake (tests/agent_fake_api.py, in its own process, answering every call
with a trigger after `LATENCY` seconds). The bare client is the same SDK (google-genai / openai)
sending the same 300 bodies at 32 in flight and reading each stream to its end. Target: the
replay within 1.2× the bare client's time, best of two alternating passes each (the machine is
shared). Untimed warm-up first (client, connection pool).
Dummy key, loopback only. Needs the pinned CLIs (`make agents`) and the SDKs; an agent without
them is reported as skipped. Writes benchmarks/results/gemini_codex.json.

    .venv/bin/python benchmarks/bench_gemini_codex.py
"""

from __future__ import annotations

import asyncio
import datetime
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from sample_catalog import QUERIES, SKILLS

from skillbench.backends.base import TriggerRequest
from skillbench.errors import BackendError
from skillbench.io import write_json

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "gemini_codex.json"
LATENCY = 0.2
WORKERS = 32
RUNS = 3
N_QUERIES = 100
TARGET_RATIO = 1.2
PASSES = 2
DUMMY_KEY = "dummy-local-fake-key"


class AgentBench(BaseModel):
    """One agent's figures."""

    agent: str
    skipped: str | None = None
    calls: int = 0
    captures: int = 0
    replay_seconds: float = 0.0
    bare_seconds: float = 0.0
    ratio: float | None = None
    triggered: int = 0
    errors: int = 0
    within_target: bool = False


class Bench(BaseModel):
    """benchmarks/results/gemini_codex.json."""

    latency_seconds: float = LATENCY
    workers: int = WORKERS
    runs: int = RUNS
    queries: int = N_QUERIES
    target_ratio: float = TARGET_RATIO
    agents: list[AgentBench]


def queries() -> list[str]:
    """100 distinct queries from the sample ones."""
    return [f"{QUERIES[i % len(QUERIES)]} (case {i})" for i in range(N_QUERIES)]


def start_fake(kind: str) -> tuple[subprocess.Popen[str], str]:
    """The fake in its own process; its URL."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE.parent / "tests" / "agent_fake_api.py"), "0", str(LATENCY), kind],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


async def bare_gemini(url: str, bodies: list[tuple[str, dict[str, Any]]]) -> float:
    from google.genai import types

    from skillbench.backends.gemini.agent import GEMINI, model_of

    client = GEMINI.client(api_key=DUMMY_KEY, base_url=url, timeout=60, http_client=None)
    gate = asyncio.Semaphore(WORKERS)

    async def one(path: str, body: dict[str, Any]) -> None:
        async with gate:
            rest = {k: v for k, v in body.items() if k != "contents"}
            config = types.GenerateContentConfig(http_options=types.HttpOptions(extra_body=rest))
            stream = await client.aio.models.generate_content_stream(
                model=model_of(path), contents=body["contents"], config=config
            )
            async for _ in stream:
                pass

    await asyncio.gather(*(one(*bodies[i]) for i in range(min(WORKERS, len(bodies)))))
    start = time.perf_counter()
    await asyncio.gather(*(one(p, b) for p, b in bodies))
    return time.perf_counter() - start


async def bare_codex(
    url: str, bodies: list[tuple[str, dict[str, Any]]], headers: dict[str, str]
) -> float:
    from skillbench.backends.codex.agent import CODEX

    client = CODEX.client(api_key=DUMMY_KEY, base_url=url + "/v1", timeout=60, http_client=None)
    gate = asyncio.Semaphore(WORKERS)

    async def one(path: str, body: dict[str, Any]) -> None:
        rest = {k: v for k, v in body.items() if k not in ("model", "input")}
        async with gate:
            stream = await client.responses.create(
                model=body["model"],
                input=body["input"],
                stream=True,
                extra_body=rest,
                extra_headers=headers,
            )
            async for _ in stream:
                pass

    await asyncio.gather(*(one(*bodies[i]) for i in range(min(WORKERS, len(bodies)))))
    start = time.perf_counter()
    await asyncio.gather(*(one(p, b) for p, b in bodies))
    await client.close()
    return time.perf_counter() - start


async def bench_agent(name: str) -> AgentBench:
    """Capture once, replay 300 calls, then the bare client on the same bodies."""
    if name == "gemini":
        from skillbench.backends.gemini.judge import GeminiJudge as Judge
    else:
        from skillbench.backends.codex.judge import CodexJudge as Judge  # type: ignore[assignment]
    target, catalog = SKILLS[0], tuple(SKILLS[1:])
    requests = [TriggerRequest(target, catalog, q, run) for q in queries() for run in range(RUNS)]
    proc, url = start_fake(name)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-agents-") as tmp:
            base = url if name == "gemini" else url + "/v1"
            try:
                judge = Judge(
                    api_key=DUMMY_KEY,
                    base_url=base,
                    template_dir=Path(tmp) / "templates",
                    max_concurrency=WORKERS,
                )
                template = await judge.template(target, catalog)
            except BackendError as exc:
                return AgentBench(agent=name, skipped=str(exc))
            await asyncio.gather(*(judge.judge(r) for r in requests[:WORKERS]))  # warm-up
            today = datetime.date.today()
            bodies = [
                (template.path, template.body_for(judge.agent, r.query, today)) for r in requests
            ]
            replays: list[float] = []
            bares: list[float] = []
            for _ in range(PASSES):  # alternating, best of each: the machine is shared
                start = time.perf_counter()
                outcomes = await asyncio.gather(*(judge.judge(r) for r in requests))
                replays.append(time.perf_counter() - start)
                if name == "gemini":
                    bares.append(await bare_gemini(url, bodies))
                else:
                    bares.append(await bare_codex(url, bodies, dict(template.headers)))
            replay, bare = min(replays), min(bares)
            captures = judge.store.captures
            await judge.aclose()
    finally:
        proc.kill()
        proc.wait()
    ratio = replay / bare if bare else None
    return AgentBench(
        agent=name,
        calls=len(requests),
        captures=captures,
        replay_seconds=round(replay, 3),
        bare_seconds=round(bare, 3),
        ratio=round(ratio, 3) if ratio else None,
        triggered=sum(o.triggered for o in outcomes),
        errors=sum(o.error is not None for o in outcomes),
        within_target=ratio is not None and ratio <= TARGET_RATIO,
    )


def main() -> int:
    names = sys.argv[1:] or ["gemini", "codex"]
    results = [asyncio.run(bench_agent(name)) for name in names]
    bench = Bench(agents=results)
    write_json(RESULTS, bench.model_dump())
    for r in results:
        if r.skipped:
            print(f"{r.agent}: skipped ({r.skipped})")
            continue
        print(
            f"{r.agent}: {r.calls} calls, {r.captures} capture(s), replay {r.replay_seconds:.2f} s, "
            f"bare {r.bare_seconds:.2f} s, ratio {r.ratio} (target ≤ {TARGET_RATIO}), "
            f"{r.triggered} triggered, {r.errors} errors"
        )
    return 0 if all(r.skipped or r.within_target for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
