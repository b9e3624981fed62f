"""Does `--workers` reach the API, and what do 429s cost? AnthropicJudge against a loopback fake.

A trigger eval of 320 runs (20 queries × 16 runs) through `run_trigger_eval` with the real
`AnthropicJudge` (SDK, httpx2, the limiter) against a fake Messages API in a child process that
answers every call after 300 ms. Figures, each as a ratio:

- span / bound at 8, 32 and 64 workers, bound = ceil(320 / workers) × 300 ms (target at 32:
  ≤ 1.1), with the peak of calls in flight the fake saw; the span is the eval's `wall_seconds`
  (first call to last outcome). What is left above the bound is the client's CPU per call
  (SDK + httpx2, ≈ 2 ms), on one event loop: the requests of a wave are written one at a time
  (the limiter's `serial_sends`), so a wave reaches the fake about 2 ms × workers after it
  starts; a bare asyncio client without the SDK makes 1.01;
- the same clean scenario at 32 workers through the replay harness (the anthropic backend's
  default: Claude Code's captured request, ~120 kB per call, streamed back), target ≤ 1.1 too;
  skipped without the pinned CLI. The SDK alone costs ~4 ms of CPU per call for such a body, so
  the span depends on the calls' sends not piling up (`serial_sends`) and on each stream being
  read to its end after the decision, which keeps its connection in the pool;
- 20 % of the runs answered 429 (`retry-after: 1`) on their first attempt, at 32 workers:
  span ≤ 1.3 × the clean span + one retry-after;
- limiter choice (documented in docs/backends.md): a fake that admits only 16 calls at once
  and answers 429 (`retry-after: 1`) beyond, asked with 64 workers (bound: 320 / 16 × 300 ms)
  — the AIMD limiter, the same limiter with adaptation off (a plain slot pool), and a token
  bucket refilled at workers / latency: span, 429s provoked, errors.

The fake is an asyncio HTTP/1.1 server on 127.0.0.1 (keep-alive), bounded in time; the key is a
dummy. The SDK is imported and the connections opened before any timing (an untimed warm-up).
Writes benchmarks/results/bench_limiter.json; exits 1 if a target is missed.

    .venv/bin/python benchmarks/bench_limiter.py
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from skillbench.trigger.options import EvalContext, TriggerOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))

RESULTS = Path(__file__).resolve().parent / "results" / "bench_limiter.json"
LATENCY = 0.3
QUERIES = 20
RUNS = 16
RETRY_AFTER = 1.0
DUMMY_KEY = "dummy-loopback-key"
ID_HEADER = "x-bench-run"
LIMITERS = ["aimd", "fixed", "token-bucket"]
REPLY = {
    "id": "msg_bench",
    "type": "message",
    "role": "assistant",
    "model": "claude-haiku-4-5",
    "content": [{"type": "text", "text": "no skill needed"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1200, "output_tokens": 3},
}
RATE_LIMITED = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


STREAM_REPLY = "".join(
    [
        _event(
            "message_start",
            {"type": "message_start", "message": {**REPLY, "content": [], "stop_reason": None}},
        ),
        _event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        _event(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "no skill needed"},
            },
        ),
        _event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 3},
            },
        ),
        _event("message_stop", {"type": "message_stop"}),
    ]
).encode()
"""The same reply streamed (server-sent events), for requests with `"stream": true`."""


# ---- the fake API (child process) ---------------------------------------------------------


class FakeState:
    """What the fake does (set through POST /control) and what it saw."""

    def __init__(self) -> None:
        self.latency = LATENCY
        self.first_429 = 0.0  # share of runs whose first attempt gets 429
        self.cap = 0  # admit at most this many at once (0: no cap)
        self.reset()

    def reset(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.requests = 0
        self.throttled = 0
        self.seen: set[str] = set()

    def throttle(self, run_id: str) -> bool:
        """Whether this attempt gets 429."""
        if self.cap and self.in_flight > self.cap:
            return True
        first = run_id not in self.seen
        self.seen.add(run_id)
        if not first or self.first_429 <= 0:
            return False
        digest = hashlib.sha256(run_id.encode()).digest()
        return int.from_bytes(digest[:4], "big") / 2**32 < self.first_429


async def _respond(writer: asyncio.StreamWriter, status: int, body: Any, extra: str = "") -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    kind = "text/event-stream" if isinstance(body, bytes) else "application/json"
    reason = {200: "OK", 429: "Too Many Requests", 404: "Not Found"}.get(status, "OK")
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: {kind}\r\n"
        f"content-length: {len(data)}\r\n{extra}\r\n"
    )
    writer.write(head.encode() + data)
    await writer.drain()


async def _serve_connection(
    state: FakeState, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {
                k.strip().lower(): v.strip()
                for k, v in (x.split(":", 1) for x in lines[1:] if ":" in x)
            }
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if path == "/control":
                settings = json.loads(body or b"{}")
                for name, value in settings.items():
                    setattr(state, name, value)
                state.reset()
                await _respond(writer, 200, {"ok": True})
            elif path == "/stats":
                stats = {k: getattr(state, k) for k in ("peak", "requests", "throttled")}
                await _respond(writer, 200, stats)
            elif method == "POST" and path.startswith("/v1/messages"):
                state.requests += 1
                state.in_flight += 1
                state.peak = max(state.peak, state.in_flight)
                try:
                    if state.throttle(headers.get(ID_HEADER, "")):
                        state.throttled += 1
                        await asyncio.sleep(0.005)
                        await _respond(
                            writer, 429, RATE_LIMITED, f"retry-after: {RETRY_AFTER:g}\r\n"
                        )
                    else:
                        await asyncio.sleep(state.latency)
                        streamed = b'"stream": true' in body or b'"stream":true' in body
                        await _respond(writer, 200, STREAM_REPLY if streamed else REPLY)
                finally:
                    state.in_flight -= 1
            else:
                await _respond(writer, 404, {"error": "not found"})
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def serve(lifetime: float) -> None:
    """Listen on 127.0.0.1 (a free port, printed), for at most `lifetime` seconds."""
    state = FakeState()
    server = await asyncio.start_server(
        lambda r, w: _serve_connection(state, r, w), "127.0.0.1", 0, backlog=256
    )
    port = server.sockets[0].getsockname()[1]
    print(f"LISTENING http://127.0.0.1:{port}", flush=True)
    async with server:
        await asyncio.sleep(lifetime)


@contextmanager
def fake_api() -> Iterator[str]:
    """Start the fake in a child process; yields its URL."""
    cmd = [sys.executable, __file__, "--serve"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("LISTENING "):
            raise RuntimeError(f"fake API did not start: {line!r}")
        yield line.split()[1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def control(url: str, path: str, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    data = json.dumps(settings).encode() if settings is not None else None
    request = urllib.request.Request(f"{url}{path}", data=data, method="POST")
    with urllib.request.urlopen(request, timeout=10) as reply:
        result: dict[str, Any] = json.load(reply)
        return result


# ---- the client ----------------------------------------------------------------------------


class Scenario(BaseModel):
    """One measured eval."""

    name: str
    workers: int
    limiter: str
    span_seconds: float
    bound_seconds: float
    ratio: float
    peak_in_flight: int
    server_requests: int
    server_429s: int
    errors: int


class LimiterBench(BaseModel):
    """benchmarks/results/bench_limiter.json."""

    runs: int
    load_average: float
    latency_seconds: float
    retry_after_seconds: float
    scenarios: list[Scenario]
    span_over_bound_at_32: float
    target_span_over_bound_at_32: float = 1.1
    with_429_span_seconds: float
    with_429_allowed_seconds: float
    span_ok: bool
    with_429_ok: bool
    replay_span_over_bound_at_32: float | None = None
    replay_span_ok: bool | None = None


def make_judge(url: str, workers: int, limiter: str) -> Any:
    """An AnthropicJudge whose requests carry a run id header (so the fake can tell a retry
    from a new run), with the chosen limiter."""
    from skillbench.backends.anthropic.sdk import AnthropicJudge
    from skillbench.backends.base import TriggerRequest
    from skillbench.backends.limiter import AdaptiveLimiter

    class TaggedJudge(AnthropicJudge):
        def params(self, request: TriggerRequest) -> dict[str, Any]:
            params = super().params(request)
            run_id = f"{request.query}|{request.run_index}"
            params["extra_headers"] = {ID_HEADER: hashlib.sha256(run_id.encode()).hexdigest()}
            return params

    judge = TaggedJudge(api_key=DUMMY_KEY, base_url=url, max_concurrency=workers)
    if limiter.startswith("aimd-"):
        judge.limiter = AdaptiveLimiter(
            workers, policy=judge.limiter.policy, decrease=float(limiter.split("-")[1])
        )
    elif limiter == "fixed":
        judge.limiter = AdaptiveLimiter(workers, policy=judge.limiter.policy, adaptive=False)
    elif limiter == "token-bucket":
        judge.limiter = TokenBucket(workers, rate=workers / LATENCY, policy=judge.limiter.policy)
    return judge


def _token_bucket_class() -> type:
    from skillbench.backends.limiter import AdaptiveLimiter

    class _TokenBucket(AdaptiveLimiter):
        """Requests start at most `rate` per second (burst = limit), at most `limit` in flight."""

        def __init__(self, limit: int, *, rate: float, **options: Any) -> None:
            super().__init__(limit, adaptive=False, **options)
            self.rate = rate
            self.tokens = float(limit)
            self.stamp = time.monotonic()

        async def acquire(self, *, first: bool = False) -> None:
            while True:
                now = time.monotonic()
                self.tokens = min(float(self.limit), self.tokens + (now - self.stamp) * self.rate)
                self.stamp = now
                if self.tokens >= 1:
                    self.tokens -= 1
                    break
                await asyncio.sleep((1 - self.tokens) / self.rate)
            await super().acquire(first=first)

    return _TokenBucket


def TokenBucket(limit: int, *, rate: float, **options: Any) -> Any:
    """A token-bucket limiter for comparison (not part of skillbench)."""
    return _token_bucket_class()(limit, rate=rate, **options)


async def measure(
    url: str,
    name: str,
    workers: int,
    limiter: str = "aimd",
    admitted: int = 0,
    judge: Any = None,
) -> Scenario:
    """One eval of QUERIES × RUNS through run_trigger_eval; the fake was configured before.
    `judge`: another judge than the minimal harness's `AnthropicJudge` with `limiter`."""
    from sample_catalog import QUERIES as TEXTS
    from sample_catalog import SKILLS

    from skillbench.backends.base import TriggerRequest
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.run import run_trigger_eval

    judge = judge or make_judge(url, workers, limiter)
    target, catalog = SKILLS[0], tuple(SKILLS[1:])
    warm = [TriggerRequest(target, catalog, f"warm-up {i}", -1 - i) for i in range(workers)]
    # untimed: SDK import, connections (and the replay harness's capture)
    await asyncio.gather(*(judge.judge(r) for r in warm))
    control(url, "/control", {})  # keeps the scenario's settings, resets the counters
    queries = [EvalQuery(text, i % 2 == 0, None, (i,)) for i, text in enumerate(TEXTS[:QUERIES])]
    start = time.perf_counter()
    report = await run_trigger_eval(
        target.name,
        target.description,
        queries,
        judge,
        options=TriggerOptions(runs=RUNS, workers=workers),
        context=EvalContext(catalog=tuple(catalog)),
    )
    whole = time.perf_counter() - start
    span = report.summary.wall_seconds or whole  # first call to last outcome (no report building)
    stats = _stats(url)
    await judge.aclose()
    bound = math.ceil(QUERIES * RUNS / min(workers, admitted or workers)) * LATENCY
    return Scenario(
        name=name,
        workers=workers,
        limiter=limiter,
        span_seconds=round(span, 3),
        bound_seconds=round(bound, 3),
        ratio=round(span / bound, 3),
        peak_in_flight=int(stats["peak"]),
        server_requests=int(stats["requests"]),
        server_429s=int(stats["throttled"]),
        errors=sum(r.errors for r in report.results),
    )


CLI = Path(__file__).resolve().parent.parent / ".tools" / "node_modules" / ".bin" / "claude"


async def measure_replay(url: str, workers: int, template_dir: Path) -> Scenario | None:
    """The clean scenario through the replay harness (the anthropic backend's default): Claude
    Code's captured request (~120 kB each) streamed back. None without the pinned CLI."""
    from skillbench.backends.anthropic.replay import ReplayJudge

    if not CLI.exists():
        return None
    judge = ReplayJudge(
        api_key=DUMMY_KEY,
        base_url=url,
        claude_bin=CLI,
        template_dir=template_dir,
        max_concurrency=workers,
    )
    return await measure(url, "clean, replay harness", workers, judge=judge)


def _stats(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as reply:
        result: dict[str, Any] = json.load(reply)
        return result


async def run_all(url: str, limiters: list[str]) -> list[Scenario]:
    scenarios = []
    for workers in (8, 32, 64):
        control(url, "/control", {"first_429": 0.0, "cap": 0})
        scenarios.append(await measure(url, "clean", workers))
    with tempfile.TemporaryDirectory(prefix="bench-limiter-") as tmp:
        replayed = await measure_replay(url, 32, Path(tmp))
    if replayed is not None:
        scenarios.append(replayed)
    control(url, "/control", {"first_429": 0.2, "cap": 0})
    scenarios.append(await measure(url, "20% first-attempt 429", 32))
    for limiter in limiters:
        control(url, "/control", {"first_429": 0.0, "cap": 16})
        scenarios.append(await measure(url, "fake admits 16 at once", 64, limiter, admitted=16))
    return scenarios


def main(limiters: list[str]) -> int:
    with fake_api() as url:
        scenarios = asyncio.run(run_all(url, limiters))
    clean32 = next(s for s in scenarios if s.name == "clean" and s.workers == 32)
    replay32 = next((s for s in scenarios if s.name.endswith("replay harness")), None)
    with429 = next(s for s in scenarios if s.name.startswith("20%"))
    allowed = 1.3 * clean32.span_seconds + RETRY_AFTER
    result = LimiterBench(
        runs=QUERIES * RUNS,
        load_average=round(os.getloadavg()[0], 2),
        latency_seconds=LATENCY,
        retry_after_seconds=RETRY_AFTER,
        scenarios=scenarios,
        span_over_bound_at_32=clean32.ratio,
        with_429_span_seconds=with429.span_seconds,
        with_429_allowed_seconds=round(allowed, 3),
        span_ok=clean32.ratio <= 1.1,
        with_429_ok=with429.span_seconds <= allowed,
        replay_span_over_bound_at_32=replay32.ratio if replay32 else None,
        replay_span_ok=replay32.ratio <= 1.1 if replay32 else None,
    )
    from skillbench.io import write_json

    print(
        f"{QUERIES * RUNS} runs, fake API latency {LATENCY * 1000:.0f} ms, loopback; load average "
        f"{result.load_average:.1f} on {os.cpu_count()} cores (the client's CPU per call shows "
        "in the span when the cores are busy)"
    )
    header = f"  {'scenario':<24} {'limiter':<13} {'workers':>7} {'span':>7} {'bound':>6} {'ratio':>6} {'peak':>5} {'429s':>5} {'err':>4}"
    print(header)
    for s in scenarios:
        print(
            f"  {s.name:<24} {s.limiter:<13} {s.workers:>7} {s.span_seconds:>6.2f}s "
            f"{s.bound_seconds:>5.2f}s {s.ratio:>5.2f}x {s.peak_in_flight:>5} {s.server_429s:>5} {s.errors:>4}"
        )
    print(
        f"span/bound at 32 workers: {clean32.ratio:.2f}x (target <= 1.1) "
        f"{'ok' if result.span_ok else 'MISSED'}"
    )
    print(
        f"20% 429s vs clean at 32 workers: {with429.span_seconds / clean32.span_seconds:.2f}x "
        f"({with429.span_seconds:.2f}s, allowed 1.3 x {clean32.span_seconds:.2f}s + "
        f"{RETRY_AFTER:g}s = {allowed:.2f}s) {'ok' if result.with_429_ok else 'MISSED'}"
    )
    write_json(RESULTS, result)
    print(f"wrote {RESULTS}")
    if replay32 is None:
        print("replay harness: SKIPPED (no pinned CLI under .tools; run make claude)")
    else:
        print(
            f"span/bound at 32 workers, replay harness (the default): {replay32.ratio:.2f}x "
            f"(target <= 1.1) {'ok' if result.replay_span_ok else 'MISSED'}"
        )
    met = result.span_ok and result.with_429_ok and result.replay_span_ok is not False
    return 0 if met else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="run the fake API (child process)")
    parser.add_argument("--lifetime", type=float, default=600.0, help="fake API lifetime (s)")
    parser.add_argument(
        "--limiters",
        nargs="+",
        default=LIMITERS,
        help="limiters for the capped scenario: aimd, aimd-<decrease factor>, fixed, token-bucket",
    )
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.lifetime))
    else:
        raise SystemExit(main(args.limiters))
