"""Library routing at scale on a fake Messages API (issue 23).

A generated 100-skill library (pseudo-word vocabularies, some words shared between neighbours),
500 queries (5 per skill) × 3 runs, routed by `library.run.run_library` through the replay
harness (`ReplayJudge` behind the call cache) against the loopback fake of billing_api.py, which
bills prompt caching by breakpoint (in its own process, so its CPU is not the clients') and calls `Skill` with the listed skill sharing the most
content words with the query (name-only skills cannot be picked: the fake reads the listing).
The one-off capture (the real pinned CLI against its own capture server) is not timed.

Targets:
- exactly 1,500 calls (queries × runs, not skills × queries × runs);
- after the first call, ≥ 90 % of input tokens are cache reads;
- span within 1.15× of a bare SDK client sending the same 1,500 requests at the same
  concurrency (16 in flight; the fake answers after 50 ms, as a stand-in for the API);
- peak memory (RSS of the measuring process; the fake runs in its own) ≤ 400 MB;
- the confusion matrix equals the fake's own decisions, cell by cell.

Writes benchmarks/results/library.json; exits 1 when a target is missed. Skips (exit 0) when
the CLI is not installed.

    .venv/bin/python benchmarks/bench_library.py
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import resource
import shutil
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import billing_api  # noqa: E402
from billing_api import BillingServer  # noqa: E402
from mock_anthropic_sse import user_query  # noqa: E402

from skillbench.backends.anthropic.replay import ReplayJudge  # noqa: E402
from skillbench.backends.cache import CachingJudge, CallCache  # noqa: E402
from skillbench.backends.replay.store import templates_dir  # noqa: E402
from skillbench.io import write_json  # noqa: E402
from skillbench.library.discover import load_library  # noqa: E402
from skillbench.library.document import NONE  # noqa: E402
from skillbench.library.run import run_library  # noqa: E402
from skillbench.trigger.options import TriggerOptions  # noqa: E402

RESULTS = HERE / "results" / "library.json"
CLI = ROOT / ".tools" / "node_modules" / ".bin" / "claude"
MODEL = "claude-haiku-4-5"
DUMMY_KEY = "sk-ant-bench-dummy-not-secret"
SKILLS = 100
QUERIES_PER_SKILL = 5
RUNS = 3
WORKERS = 16
LATENCY = 0.05
STOP_WHEN_DECIDED = os.environ.get("BENCH_LIBRARY_STOP_EARLY", "1") != "0"
"""The harness closes a stream once the first move is known (its default); 0 reads every reply
to its end, as the bare client does, to tell the connection churn apart from the rest."""
OPTIONS = TriggerOptions(runs=RUNS, workers=WORKERS)
TARGETS = {"cache_read_share": 0.90, "span_ratio": 1.15, "peak_mb": 400}


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))


def build_library(root: Path) -> dict[str, str]:
    """100 skills with their eval sets; returns query → the skill it was written for."""
    rng = random.Random(23)
    vocab = [[pseudo_word(rng) for _ in range(6)] for _ in range(SKILLS)]
    written_for: dict[str, str] = {}
    for i in range(SKILLS):
        name = f"skill-{i:03d}"
        words = vocab[i]
        description = (
            f"Handles {' '.join(words)} work for the team. Use when the user asks about "
            f"{words[0]} or {words[1]}."
        )
        folder = root / name
        (folder / "evals").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n", encoding="utf-8"
        )
        neighbour = vocab[(i + 1) % SKILLS]
        queries = []
        for k in range(QUERIES_PER_SKILL):
            mine = rng.sample(words, 2)
            other = rng.sample(neighbour, 1 if k < 3 else 3)  # two queries lean on a neighbour
            text = f"query {i}-{k}: please sort out the {' '.join(mine + other)} thing"
            written_for[text] = name
            queries.append({"query": text, "should_trigger": True})
        (folder / "evals" / "trigger.json").write_text(json.dumps(queries), encoding="utf-8")
    return written_for


class Recorder:
    """Wraps the fake's routing: records (query, skill called) and adds the API latency."""

    def __init__(self) -> None:
        self.decisions: list[tuple[str, str | None]] = []
        self.original = billing_api.route_request

    def __call__(self, body: dict[str, Any], target: str | None) -> str | None:
        skill = self.original(body, target)
        self.decisions.append((user_query(body), skill))
        time.sleep(LATENCY)
        return skill


class FakeHandler(billing_api.BillingHandler):
    """The billing fake, plus `GET /phase` (a cold prompt cache, ledger and decisions emptied)
    and `GET /report` (the ledger's rows and the decisions since, as JSON)."""

    def do_GET(self) -> None:
        server: Any = self.server
        if self.path == "/phase":
            server.ledger.forget()
            with server.ledger.lock:
                server.ledger.rows.clear()
            server.recorder.decisions.clear()
            self._send(200, b"{}", "application/json")
        elif self.path == "/report":
            data = {"rows": server.ledger.rows, "decisions": server.recorder.decisions}
            self._send(200, json.dumps(data).encode(), "application/json")
        else:
            super().do_GET()


def serve_fake(ready: Any) -> None:
    """The fake in its own process (its CPU and threads apart from the clients measured)."""
    recorder = Recorder()
    billing_api.route_request = recorder  # type: ignore[assignment]
    server = BillingServer()
    server.RequestHandlerClass = FakeHandler
    server.recorder = recorder  # type: ignore[attr-defined]
    ready.put(server.url)
    server.serve_forever()


def fake_get(url: str, path: str) -> Any:
    with urllib.request.urlopen(url + path, timeout=60) as answer:  # loopback only
        return json.loads(answer.read())


async def bare_client(url: str, replay: ReplayJudge, requests: list[str]) -> float:
    """The same bodies through the SDK alone, WORKERS in flight; returns the span."""
    import anthropic

    library_template = next(iter(replay.templates_used.values()))
    client = anthropic.AsyncAnthropic(api_key=DUMMY_KEY, base_url=url, max_retries=0)
    gate = asyncio.Semaphore(WORKERS)

    async def one(query: str) -> None:
        async with gate:
            arguments = replay.call_arguments(library_template, query)
            stream = await client.beta.messages.create(**arguments)
            async for _ in stream:
                pass

    start = time.perf_counter()
    await asyncio.gather(*(one(q) for q in requests))
    span = time.perf_counter() - start
    await client.close()
    return span


async def measure(url: str, tmp: Path) -> dict[str, Any]:
    root = tmp / "library"
    written_for = build_library(root)
    library = load_library(root)
    cache_path = tmp / "cache.sqlite"
    replay = ReplayJudge(
        MODEL,
        api_key=DUMMY_KEY,
        base_url=url,
        claude_bin=CLI,
        template_dir=templates_dir(cache_path),
        max_concurrency=WORKERS,
        stop_when_decided=STOP_WHEN_DECIDED,
    )
    started = time.perf_counter()
    replay.template_for(library.entries[0], tuple(library.entries[1:]))  # the capture, untimed
    capture = time.perf_counter() - started
    cache = CallCache(cache_path)
    judge = CachingJudge(replay, cache)
    queries = [q.text for q in library.queries for _ in range(RUNS)]

    fake_get(url, "/phase")
    cpu = time.process_time()
    bare_before = await bare_client(url, replay, queries)
    bare_cpu = time.process_time() - cpu

    fake_get(url, "/phase")
    started, cpu = time.perf_counter(), time.process_time()
    report = await run_library(library, judge, OPTIONS, embedder=None)
    span, lib_cpu = time.perf_counter() - started, time.process_time() - cpu
    seen = fake_get(url, "/report")
    rows, decisions = seen["rows"], [tuple(d) for d in seen["decisions"]]

    fake_get(url, "/phase")
    bare_after = await bare_client(url, replay, queries)

    again_started = time.perf_counter()
    again = await run_library(library, judge, OPTIONS, embedder=None)
    again_span = time.perf_counter() - again_started
    await replay.aclose()
    cache.close()

    later = rows[1:]
    read = sum(r["cache_read_input_tokens"] for r in later)
    total = sum(
        r["input_tokens"] + r["cache_creation_input_tokens"] + r["cache_read_input_tokens"]
        for r in later
    )
    expected: Counter[tuple[str, str]] = Counter()
    for query, skill in decisions:
        expected[(written_for[query], skill or NONE)] += 1
    got: Counter[tuple[str, str]] = Counter()
    m = report.matrix
    for row, counts in zip(m.rows, m.counts, strict=True):
        for column, n in zip(m.columns, counts, strict=True):
            if n:
                got[(row, column)] += n
    listed = sum(1 for s in report.listing.skills if s.state == "full") if report.listing else None
    bare = (bare_before + bare_after) / 2
    return {
        "skills": len(library.entries),
        "queries": len(library.queries),
        "runs": RUNS,
        "workers": WORKERS,
        "fake_latency_seconds": LATENCY,
        "stop_when_decided": STOP_WHEN_DECIDED,
        "calls": report.calls,
        "requests_seen_by_fake": len(rows),
        "listed_in_full": listed,
        "capture_seconds": round(capture, 2),
        "span_seconds": round(span, 2),
        "bare_span_seconds": [round(bare_before, 2), round(bare_after, 2)],
        "span_ratio": round(span / bare, 3),
        "client_cpu_seconds": {"library": round(lib_cpu, 2), "bare": round(bare_cpu, 2)},
        "cache_read_share_after_first": round(read / total, 4) if total else None,
        "matrix_equals_fake": got == expected,
        "matrix_cells": len(got),
        "off_diagonal_runs": sum(n for (r, c), n in got.items() if r != c),
        "rerun_calls": again.calls,
        "rerun_cache_hits": again.cache_hits,
        "rerun_span_seconds": round(again_span, 2),
    }


def main() -> int:
    """Measure; print the figures; exit 1 when a target is missed."""
    if not CLI.exists() and not shutil.which("claude"):
        print("SKIP: the Claude Code CLI is not installed (make claude)")
        return 0
    ready: Any = multiprocessing.Queue()
    fake = multiprocessing.Process(target=serve_fake, args=(ready,), daemon=True)
    fake.start()
    try:
        url = ready.get(timeout=60)
        with tempfile.TemporaryDirectory() as tmp:
            data = asyncio.run(measure(url, Path(tmp)))
    finally:
        fake.terminate()
        fake.join(timeout=10)
    data["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    data["targets"] = TARGETS
    missed = []
    if data["calls"] != SKILLS * QUERIES_PER_SKILL * RUNS:
        missed.append(f"calls {data['calls']} != {SKILLS * QUERIES_PER_SKILL * RUNS}")
    if (data["cache_read_share_after_first"] or 0) < TARGETS["cache_read_share"]:
        missed.append("cache read share")
    if data["span_ratio"] > TARGETS["span_ratio"]:
        missed.append("span ratio")
    if data["peak_mb"] > TARGETS["peak_mb"]:
        missed.append("peak memory")
    if not data["matrix_equals_fake"]:
        missed.append("matrix differs from the fake's decisions")
    if data["rerun_calls"] != 0:
        missed.append("a re-run made calls")
    data["missed"] = missed
    write_json(RESULTS, data)
    for key, value in data.items():
        print(f"{key}: {value}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
