"""The AIMD limiter: slots, retries, retry-after, rate-limit headers, adaptation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from skillbench.backends.limiter import (
    AdaptiveLimiter,
    Failure,
    RetryPolicy,
    parse_retry_after,
    ratelimit_wait,
    request_sent,
)


class Boom(Exception):
    """A failed attempt carrying how the limiter should see it."""

    def __init__(self, failure: Failure | None) -> None:
        super().__init__("boom")
        self.failure = failure


def classify(exc: BaseException) -> Failure | None:
    return exc.failure if isinstance(exc, Boom) else None


RATE_LIMITED = Failure(retryable=True, rate_limited=True, retry_after=1.0)


def instant(slept: list[float]) -> Callable[[float], Awaitable[None]]:
    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0)

    return sleep


async def test_in_flight_never_exceeds_the_limit() -> None:
    limiter = AdaptiveLimiter(3)
    in_flight = 0
    peak = 0

    async def call() -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.005)
        in_flight -= 1
        return 1

    results = await asyncio.gather(*(limiter.run(call, classify) for _ in range(20)))
    assert sum(results) == 20
    assert peak == 3 and limiter.peak == 3 and limiter.in_flight == 0


async def test_a_call_waiting_out_retry_after_frees_its_slot() -> None:
    """Limit 1: while the throttled call waits, the other call runs to the end."""
    limiter = AdaptiveLimiter(1)
    order: list[str] = []
    other_done = asyncio.Event()

    async def sleep(seconds: float) -> None:
        order.append(f"wait {seconds:g}")
        await other_done.wait()

    limiter.sleep = sleep
    tries = 0

    async def throttled_once() -> str:
        nonlocal tries
        tries += 1
        if tries == 1:
            raise Boom(RATE_LIMITED)
        order.append("retried")
        return "a"

    async def other() -> str:
        order.append("other")
        other_done.set()
        return "b"

    first = asyncio.create_task(limiter.run(throttled_once, classify))
    await asyncio.sleep(0)
    second = asyncio.create_task(limiter.run(other, classify))
    assert await asyncio.gather(first, second) == ["a", "b"]
    assert order == ["wait 1", "other", "retried"]
    assert limiter.attempts == 3 and limiter.rate_limited == 1


async def test_failures_after_the_last_retry_are_raised() -> None:
    slept: list[float] = []
    limiter = AdaptiveLimiter(2, policy=RetryPolicy(max_retries=2, overload_retries=1))
    limiter.sleep = instant(slept)

    async def server_error() -> None:
        raise Boom(Failure(retryable=True))

    with pytest.raises(Boom):
        await limiter.run(server_error, classify)
    assert limiter.attempts == 3 and len(slept) == 2  # 1 + max_retries
    assert all(0 < s <= 8 for s in slept)

    async def overloaded() -> None:
        raise Boom(Failure(retryable=True, rate_limited=True))

    limiter.attempts, slept[:] = 0, []
    with pytest.raises(Boom):
        await limiter.run(overloaded, classify)
    assert limiter.attempts == 4  # rate limits get the overload tail too
    assert 1.0 <= slept[-1] <= 2.0  # full jitter from the 2 s overload base

    async def bad_request() -> None:
        raise Boom(Failure(retryable=False))

    limiter.attempts = 0
    with pytest.raises(Boom):
        await limiter.run(bad_request, classify)
    assert limiter.attempts == 1

    async def bug() -> None:
        raise KeyError("not an API failure")

    with pytest.raises(KeyError):
        await limiter.run(bug, classify)
    assert limiter.in_flight == 0


async def test_window_halves_when_429s_persist_and_regrows() -> None:
    now = [0.0]
    limiter = AdaptiveLimiter(16, clock=lambda: now[0])
    for _ in range(15):  # a burst of fast 429s before any success: not yet a whole window
        limiter.throttled()
    assert limiter.window == 16.0
    limiter.throttled()
    assert limiter.window == 8.0 and limiter.decreases == 1
    for _ in range(16):  # within the cooldown: no second cut
        limiter.throttled()
    assert limiter.window == 8.0
    now[0] = 5.0
    limiter.throttled()
    assert limiter.window == 4.0
    for _ in range(40):
        limiter.succeeded()
    assert 8.0 < limiter.window < 16.0  # additive: about one per window of successes
    for _ in range(400):
        limiter.succeeded()
    assert limiter.window == 16.0


def test_scattered_429s_do_not_shrink_the_window() -> None:
    now = [0.0]
    limiter = AdaptiveLimiter(32, clock=lambda: now[0])
    for i in range(200):
        now[0] += 0.1
        if i % 5 == 0:
            limiter.throttled()
        else:
            limiter.succeeded()
    assert limiter.window == 32.0 and limiter.decreases == 0 and limiter.rate_limited == 40


def test_the_decrease_factor_is_a_parameter() -> None:
    limiter = AdaptiveLimiter(16, decrease=0.75)
    for _ in range(16):
        limiter.throttled()
    assert limiter.window == 12.0


def test_fixed_limiter_never_adapts() -> None:
    limiter = AdaptiveLimiter(8, adaptive=False)
    for _ in range(20):
        limiter.throttled()
    assert limiter.window == 8.0


async def test_exhausted_ratelimit_headers_pause_new_requests() -> None:
    now = [100.0]
    slept: list[float] = []
    limiter = AdaptiveLimiter(4, clock=lambda: now[0])

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter.sleep = sleep
    reset = (datetime.now(UTC) + timedelta(seconds=3)).isoformat().replace("+00:00", "Z")
    limiter.observe_headers(
        {
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": reset,
            "anthropic-ratelimit-tokens-remaining": "5000",
            "anthropic-ratelimit-tokens-reset": reset,
        }
    )

    async def ok() -> str:
        return "ok"

    assert await limiter.run(ok, classify) == "ok"
    assert len(slept) == 1 and 2.0 < slept[0] <= 3.0
    slept.clear()
    limiter.observe_headers({"anthropic-ratelimit-requests-remaining": "7"})
    assert await limiter.run(ok, classify) == "ok"
    assert slept == []


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    later = datetime.now(UTC) + timedelta(seconds=30)
    seconds = parse_retry_after({"retry-after": format_datetime(later, usegmt=True)})
    assert seconds is not None and 28 <= seconds <= 30
    policy = RetryPolicy()
    assert policy.delay(0, Failure(True, True, retry_after=120.0)) <= 0.5  # beyond 60 s: backoff
    assert policy.delay(0, Failure(True, True, retry_after=3.0)) == 3.0


def test_ratelimit_wait_ignores_budgets_left_and_bad_values() -> None:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    reset = (base + timedelta(seconds=10)).isoformat()
    now = base.timestamp()
    assert ratelimit_wait({}, now=now) == 0.0
    headers = {
        "anthropic-ratelimit-output-tokens-remaining": "0",
        "anthropic-ratelimit-output-tokens-reset": reset,
    }
    assert ratelimit_wait(headers, now=now) == pytest.approx(10.0)
    headers["anthropic-ratelimit-output-tokens-remaining"] = "12"
    assert ratelimit_wait(headers, now=now) == 0.0
    headers["anthropic-ratelimit-output-tokens-remaining"] = "x"
    assert ratelimit_wait(headers, now=now) == 0.0


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError):
        AdaptiveLimiter(0)


# serial sends ------------------------------------------------------------------------------


def sending_call(
    log: list[str], name: str, *, report: bool = True, server: float = 0.02
) -> Callable[[], Awaitable[str]]:
    """A call that 'writes' its request in two steps (yielding between them, as an HTTP client
    does), reports it written, then waits `server` seconds for its answer."""

    async def call() -> str:
        log.append(f"{name} head")
        await asyncio.sleep(0)
        log.append(f"{name} body")
        if report:
            request_sent()
        await asyncio.sleep(server)
        log.append(f"{name} answer")
        return name

    return call


async def test_once_reported_requests_are_written_one_at_a_time_answers_overlap() -> None:
    limiter = AdaptiveLimiter(3, serial_sends=True)
    log: list[str] = []
    await limiter.run(sending_call(log, "first"), classify)  # the client reports its sends
    log.clear()
    names = ["a", "b", "c"]
    start = asyncio.get_running_loop().time()
    results = await asyncio.gather(*(limiter.run(sending_call(log, n), classify) for n in names))
    elapsed = asyncio.get_running_loop().time() - start
    assert results == names
    writes = [entry for entry in log if not entry.endswith("answer")]
    assert writes == ["a head", "a body", "b head", "b body", "c head", "c body"]
    assert elapsed < 0.05  # the three 20 ms server waits overlapped
    assert limiter.peak == 3 and limiter.in_flight == 0


async def test_sends_stay_free_until_a_call_reports_one() -> None:
    limiter = AdaptiveLimiter(3, serial_sends=True)
    log: list[str] = []
    calls = [sending_call(log, n, report=False) for n in "abc"]
    await asyncio.gather(*(limiter.run(call, classify) for call in calls))
    assert log[:3] == ["a head", "b head", "c head"]  # interleaved: never reported, never serial
    log.clear()
    limiter = AdaptiveLimiter(3)  # serial_sends off: reports change nothing
    await limiter.run(sending_call(log, "first"), classify)
    log.clear()
    await asyncio.gather(*(limiter.run(sending_call(log, n), classify) for n in "abc"))
    assert log[:3] == ["a head", "b head", "c head"]


async def test_a_call_that_fails_or_is_cancelled_before_reporting_frees_the_turn() -> None:
    limiter = AdaptiveLimiter(2, serial_sends=True)
    log: list[str] = []
    await limiter.run(sending_call(log, "first"), classify)

    async def fails() -> str:
        await asyncio.sleep(0)
        raise Boom(None)

    with pytest.raises(Boom):
        await limiter.run(fails, classify)
    assert await limiter.run(sending_call(log, "next"), classify) == "next"

    stuck = asyncio.Event()

    async def hangs() -> str:
        await stuck.wait()
        return "never"

    hanging = asyncio.create_task(limiter.run(hangs, classify))
    given_up = asyncio.create_task(limiter.run(sending_call(log, "given up"), classify))
    await asyncio.sleep(0.01)
    given_up.cancel()  # cancelled while queued for its turn to write
    waiting = asyncio.create_task(limiter.run(sending_call(log, "queued"), classify))
    await asyncio.sleep(0.01)
    assert not waiting.done()  # its turn to write comes after the hanging call's
    hanging.cancel()
    assert await waiting == "queued"
    assert given_up.cancelled() and "given up head" not in log
    assert limiter.in_flight == 0
    request_sent()  # outside a limiter's call: nothing happens
