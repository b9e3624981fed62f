"""The agent replay's overhead: a trigger eval through an agent backend against a bare client.

Per agent (opencode today; Gemini and Codex plug in the same way): 100 queries × 3 runs through
`run_trigger_eval` with the agent's judge (its own request captured ONCE by the pinned CLI
against the loopback capture server, then the query swapped and sent through the provider's SDK
behind the shared limiter, the first move folded) at 32 workers, against a fake Messages API in
a child process that answers every call after 300 ms (`bench_limiter.fake_api`). The bare client
sends the very same 300 request bodies through the same SDK, 32 at a time, reading each stream
to its end, and nothing else. Each side runs twice, alternated; the best span of each counts (the
machine's load varies). Figures, as ratios:

- span(judge) / span(bare client), target ≤ 1.2;
- captures per skill set (the CLI ran once: 1).

Both sides are warmed up (SDK import, connections, the capture) before timing. The key is a
dummy; nothing leaves 127.0.0.1. Skipped for an agent whose pinned CLI is not installed
(`make agents`). Writes benchmarks/results/bench_agents.json; exits 1 if a target is missed.

    .venv/bin/python benchmarks/bench_agents.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_limiter import DUMMY_KEY, LATENCY, control, fake_api
from sample_catalog import QUERIES as TEXTS
from sample_catalog import SKILLS

from skillbench.backends.base import TriggerRequest
from skillbench.errors import BackendError

QUERIES = 100
RUNS = 3
ROUNDS = 2
WORKERS = 32
TARGET_RATIO = 1.2
RESULTS = Path(__file__).resolve().parent / "results" / "bench_agents.json"


@dataclass
class AgentFigures:
    agent: str
    runs: int
    workers: int
    judge_span_seconds: float
    bare_span_seconds: float
    ratio: float
    bound_seconds: float
    captures: int
    errors: int
    ok: bool


def queries() -> list[str]:
    return [f"{TEXTS[i % len(TEXTS)]} (case {i})" for i in range(QUERIES)]


async def bare_client(judge: Any, template: Any, texts: list[str]) -> float:
    """The same requests through the same SDK, WORKERS at a time, each stream read to its end."""
    agent = judge.agent
    client = agent.client(
        api_key=DUMMY_KEY, base_url=judge._base_url, timeout=120, http_client=None
    )
    gate = asyncio.Semaphore(WORKERS)

    async def one(text: str) -> None:
        body = template.body_for(agent, text, judge.clock())
        async with gate:
            stream = await client.beta.messages.create(
                **agent.call_arguments(template.path, template.headers, body)
            )
            async for _ in stream:
                pass

    await asyncio.gather(*(one(f"warm-up {i}") for i in range(WORKERS)))
    start = time.perf_counter()
    await asyncio.gather(*(one(text) for text in texts for _ in range(RUNS)))
    span = time.perf_counter() - start
    await client.close()
    return span


async def measure(agent_judge: type, url: str, templates: Path) -> AgentFigures | None:
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.options import EvalContext, TriggerOptions
    from skillbench.trigger.run import run_trigger_eval

    try:
        judge = agent_judge(
            api_key=DUMMY_KEY, base_url=url, template_dir=templates, max_concurrency=WORKERS
        )
    except BackendError as exc:
        print(f"{agent_judge.agent.name}: SKIPPED ({exc})")
        return None
    target, catalog = SKILLS[0], tuple(SKILLS[1:])
    template = await judge.template(target, catalog)  # the one capture, untimed
    warm = [TriggerRequest(target, catalog, f"warm-up {i}", -1 - i) for i in range(WORKERS)]
    await asyncio.gather(*(judge.judge(r) for r in warm))
    control(url, "/control", {})
    texts = queries()
    items = [EvalQuery(text, i % 2 == 0, None, (i,)) for i, text in enumerate(texts)]
    spans, bares, errors = [], [], 0
    for _ in range(ROUNDS):  # alternated, the best of each: the machine's load varies
        bares.append(await bare_client(judge, template, texts))
        start = time.perf_counter()
        report = await run_trigger_eval(
            target.name,
            target.description,
            items,
            judge,
            TriggerOptions(runs=RUNS, workers=WORKERS),
            context=EvalContext(catalog=catalog),
        )
        spans.append(report.summary.wall_seconds or (time.perf_counter() - start))
        errors += sum(r.errors for r in report.results)
    captures = judge.store.captures
    await judge.aclose()
    span, bare = min(spans), min(bares)
    ratio = span / bare
    bound = -(-QUERIES * RUNS // WORKERS) * LATENCY
    return AgentFigures(
        agent=judge.name,
        runs=QUERIES * RUNS,
        workers=WORKERS,
        judge_span_seconds=round(span, 3),
        bare_span_seconds=round(bare, 3),
        ratio=round(ratio, 3),
        bound_seconds=round(bound, 3),
        captures=captures,
        errors=errors,
        ok=ratio <= TARGET_RATIO and captures == 1,
    )


async def run_all(url: str) -> list[AgentFigures]:
    from skillbench.backends.opencode.judge import OpencodeJudge

    found = []
    for judge_class in (OpencodeJudge,):
        with tempfile.TemporaryDirectory(prefix="skillbench-bench-agents-") as tmp:
            figures = await measure(judge_class, url, Path(tmp))
        if figures is not None:
            found.append(figures)
    return found


def main() -> int:
    with fake_api() as url:
        figures = asyncio.run(run_all(url))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps([asdict(f) for f in figures], indent=1) + "\n")
    for f in figures:
        print(
            f"{f.agent}: {f.runs} runs at {f.workers} workers: span {f.judge_span_seconds:.2f} s "
            f"vs bare client {f.bare_span_seconds:.2f} s = {f.ratio:.2f}x (target <= "
            f"{TARGET_RATIO}); captures {f.captures}; errors {f.errors} "
            f"{'ok' if f.ok else 'MISSED'}"
        )
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
