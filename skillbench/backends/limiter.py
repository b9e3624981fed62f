"""One concurrency limiter for API backends: AIMD on the number of calls in flight.

`AdaptiveLimiter(limit)` lets at most `window` calls run at once, `window` starting at `limit`
(the `--workers` the user asked for) and never above it. `run(make, classify)` makes one call
with retries:

- A slot is held only while a request is on the wire. A call that waits out `retry-after` or a
  backoff gives its slot back first, so the other calls keep the pipe full meanwhile.
- `retry-after-ms` / `retry-after` (seconds or an HTTP date) is honoured up to
  `RetryPolicy.max_retry_after` seconds; without it the wait is an exponential backoff with
  jitter (0.5 s doubling to 8 s, like the SDK's own), and past `max_retries` rate-limit and
  overload answers get `overload_retries` more tries with full-jitter backoff from 2 s up to 30 s.
- The `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining` /
  `-reset` headers of any answer (fed through `observe_headers`): when one says nothing is
  left, no new request starts before its reset time.
- AIMD: when rate-limit answers persist — at least half of the last `max(8, limit)` finished
  attempts (a full such window, counted afresh after each cut) were 429/529 — the window halves (once per `cooldown`, at least 1); every success
  then adds 1/window, so the window regrows by one per window's worth of successes. Scattered
  429s (a fifth of the answers, say) do not shrink it: they cost one retry-after each, not
  the throughput of every other call.
- What still fails after the last retry is raised to the caller (which reports an error,
  never an outcome).
- With `serial_sends` (the API backends), an attempt starts only once the previous one's
  request is written (the backend's HTTP hook calls `request_sent`; a wait for a new
  connection counts as written; until a first call has reported, sends are not serial). Calls whose slots were freed together (a wave of answers)
  would otherwise interleave every step of their sends on the one event loop, each request
  reaching the server only once the last of them was built: a whole wave late, wave after
  wave, so the span of an eval grew by about the client's whole CPU time (+13 % at 32 workers
  against a 300 ms loopback fake, +6 % with serial sends: `benchmarks/bench_limiter.py`).
  Only the writing is serial: the waits for the server overlap as before.

Why AIMD on concurrency rather than a token bucket on request rate: the user's knob is the
number of calls in flight, latency varies by prompt and model (a rate that fits one eval
starves or floods the next), and the API's limits answer with 429 + `retry-after` rather than
a rate to follow. `benchmarks/bench_limiter.py` measures both against a loopback fake; the
figures are in docs/backends.md.

The limiter uses no loop-bound asyncio primitives: waiters are futures of the running loop, so
one backend object serves notebooks that switch event loops.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

T = TypeVar("T")
LOG = logging.getLogger(__name__)
Sleep = Callable[[float], Awaitable[None]]

RATELIMIT_KINDS = ("requests", "tokens", "input-tokens", "output-tokens")
RATELIMIT_PREFIX = "anthropic-ratelimit-"
# (limiter, attempt) whose call this task is making: how `request_sent` finds its limiter
_SENDING: ContextVar[tuple[AdaptiveLimiter, object] | None] = ContextVar(
    "skillbench_limiter_sending", default=None
)


@dataclass(frozen=True)
class Failure:
    """How `classify` sees one failed attempt."""

    retryable: bool
    """Whether another attempt may succeed (timeouts, 408/409/429/5xx, connection errors)."""
    rate_limited: bool = False
    """A 429 (rate limit) or 529 (overloaded): a congestion signal for the window."""
    retry_after: float | None = None
    """Seconds the server asked to wait, if it said."""


@dataclass(frozen=True)
class RetryPolicy:
    """Retry budget and backoff shape (defaults follow the SDK's, plus the overload tail)."""

    max_retries: int = 4
    overload_retries: int = 2
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    overload_base: float = 2.0
    overload_cap: float = 30.0
    max_retry_after: float = 60.0

    def delay(self, retry: int, failure: Failure) -> float:
        """Seconds to wait before retry number `retry` (0-based)."""
        if failure.retry_after is not None and 0 <= failure.retry_after <= self.max_retry_after:
            return failure.retry_after
        if retry < self.max_retries:
            cap = min(self.backoff_cap, self.backoff_base * 2**retry)
            return cap * (1 - 0.25 * random.random())
        cap = min(self.overload_cap, self.overload_base * 2 ** (retry - self.max_retries))
        return random.uniform(cap / 2, cap)

    def allows(self, retry: int, failure: Failure) -> bool:
        """Whether retry number `retry` (0-based) may be made after `failure`."""
        if not failure.retryable:
            return False
        budget = self.max_retries + (self.overload_retries if failure.rate_limited else 0)
        return retry < budget


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms`, else `retry-after` (seconds or an HTTP date)."""
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


def ratelimit_wait(headers: Mapping[str, str], *, now: float | None = None) -> float:
    """Seconds until the first exhausted `anthropic-ratelimit-*` budget resets (0 if none is)."""
    current = datetime.now(UTC).timestamp() if now is None else now
    wait = 0.0
    for kind in RATELIMIT_KINDS:
        remaining = headers.get(f"{RATELIMIT_PREFIX}{kind}-remaining")
        reset = headers.get(f"{RATELIMIT_PREFIX}{kind}-reset")
        if remaining is None or reset is None:
            continue
        try:
            if int(remaining) > 0:
                continue
            when = datetime.fromisoformat(reset.replace("Z", "+00:00"))
        except ValueError:
            continue
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        wait = max(wait, when.timestamp() - current)
    return wait


class AdaptiveLimiter:
    """At most `window` calls in flight (AIMD between 1 and `limit`); see the module docstring."""

    def __init__(
        self,
        limit: int,
        *,
        policy: RetryPolicy | None = None,
        adaptive: bool = True,
        cooldown: float = 1.0,
        decrease: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        serial_sends: bool = False,
    ) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError("limit must be a positive integer")
        self.limit = limit
        self.policy = policy or RetryPolicy()
        self.adaptive = adaptive
        self.cooldown = cooldown
        self.decrease = decrease
        self.clock = clock
        self.sleep: Sleep = asyncio.sleep
        self.window = float(limit)
        self.in_flight = 0
        self.peak = 0
        self.attempts = 0
        self.rate_limited = 0
        self.decreases = 0
        self._paused_until = 0.0
        self._last_decrease = float("-inf")
        self._recent: deque[bool] = deque(maxlen=max(8, limit))
        self._waiters: deque[asyncio.Future[None]] = deque()
        self.serial_sends = serial_sends
        self._sending: object | None = None  # the attempt whose request is being written
        self._reports_sends = False  # whether `request_sent` was ever called (see there)
        self._send_waiters: deque[tuple[asyncio.Future[None], object]] = deque()

    def __repr__(self) -> str:
        return f"AdaptiveLimiter(limit={self.limit}, window={self.window:.1f})"

    # slots -------------------------------------------------------------------------------

    def _free(self) -> bool:
        return self.in_flight < max(1, int(self.window))

    async def acquire(self, *, first: bool = False) -> None:
        """Wait for a free slot (and for any rate-limit pause to end), then take it; `first`
        (a retry) queues ahead of calls not yet started, so retries do not pile up at the end."""
        woken = False
        waited_for: float | None = (
            None  # the pause already slept out (a later, longer one is honoured too)
        )
        while True:
            until = self._paused_until
            if until != waited_for and until > self.clock():
                await self.sleep(until - self.clock())
                waited_for = until
                continue
            if self._free() and (woken or not self._waiters):
                break
            waiter = asyncio.get_running_loop().create_future()
            if first:
                self._waiters.appendleft(waiter)
            else:
                self._waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                self._wake()
                raise
            woken = True
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def release(self) -> None:
        """Give a slot back and wake the next waiter."""
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self._free():
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    # feedback ----------------------------------------------------------------------------

    def succeeded(self) -> None:
        """An attempt got an answer: the window grows by 1/window (up to `limit`)."""
        self._recent.append(False)
        if self.adaptive and self.window < self.limit:
            self.window = min(float(self.limit), self.window + 1.0 / self.window)
            self._wake()

    def throttled(self) -> None:
        """An attempt got 429/529: halve the window if such answers persist."""
        self.rate_limited += 1
        self._recent.append(True)
        if not self.adaptive:
            return
        now = self.clock()
        full = len(self._recent) == self._recent.maxlen  # a 429 answers faster than a success:
        persistent = full and 2 * sum(self._recent) >= len(self._recent)  # judge whole windows
        if persistent and now - self._last_decrease >= self.cooldown:
            before = self.window
            self.window = max(1.0, self.window * self.decrease)
            self._last_decrease = now
            self.decreases += 1
            self._recent.clear()
            LOG.debug(
                "limiter: rate limits persist: concurrency %.1f -> %.1f (of %d)",
                before,
                self.window,
                self.limit,
            )

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        """Honour `anthropic-ratelimit-*`: no new request before an exhausted budget resets."""
        self.pause(ratelimit_wait(headers))

    def pause(self, seconds: float) -> None:
        """No new request for `seconds` (at most `policy.max_retry_after`): an exhausted budget,
        or a `retry-after` a shared limiter applies to every caller (`skillbench.cluster`)."""
        wait = min(seconds, self.policy.max_retry_after)
        if wait > 0:
            self._paused_until = max(self._paused_until, self.clock() + wait)
            LOG.debug("limiter: a rate-limit budget is exhausted: no new request for %.2f s", wait)

    # serial sends ------------------------------------------------------------------------

    async def _start_sending(self, attempt: object) -> None:
        """Wait until no other attempt is writing its request (first come, first served)."""
        if not (self.serial_sends and self._reports_sends):
            return
        if self._sending is None and not self._send_waiters:
            self._sending = attempt
            return
        waiter = asyncio.get_running_loop().create_future()
        self._send_waiters.append((waiter, attempt))
        try:
            await waiter
        except BaseException:
            if self._sending is attempt:
                self._sent(attempt)
            elif (waiter, attempt) in self._send_waiters:
                self._send_waiters.remove((waiter, attempt))
            raise

    def _sent(self, attempt: object) -> None:
        """`attempt`'s request is written (or it ended): the next attempt may write its own."""
        if self._sending is not attempt:
            return
        self._sending = None
        while self._send_waiters:
            waiter, following = self._send_waiters.popleft()
            if not waiter.done():
                self._sending = following
                waiter.set_result(None)
                return

    # calls -------------------------------------------------------------------------------

    async def run(
        self,
        make: Callable[[], Awaitable[T]],
        classify: Callable[[BaseException], Failure | None],
    ) -> T:
        """One call with retries; `classify` says how an exception counts (None: not an API
        failure, raised at once). The slot is free while waiting between attempts."""
        retry = 0
        while True:
            await self.acquire(first=retry > 0)
            attempt = object()
            try:
                await self._start_sending(attempt)
                sending = _SENDING.set((self, attempt))
                try:
                    self.attempts += 1
                    result = await make()
                finally:
                    _SENDING.reset(sending)
                    self._sent(attempt)
            except BaseException as exc:
                self.release()
                failure = classify(exc) if isinstance(exc, Exception) else None
                if failure is None:
                    raise
                if failure.rate_limited:
                    self.throttled()
                if not self.policy.allows(retry, failure):
                    LOG.debug("limiter: %s: no retry left after %d retries", _kind(failure), retry)
                    raise
                delay = self.policy.delay(retry, failure)
                LOG.debug(
                    "limiter: %s: retry %d in %.2f s (%s)",
                    _kind(failure),
                    retry + 1,
                    delay,
                    "retry-after"
                    if failure.retry_after is not None
                    and 0 <= failure.retry_after <= self.policy.max_retry_after
                    else "backoff",
                )
                await self.sleep(delay)
                retry += 1
                continue
            self.release()
            self.succeeded()
            return result


def _kind(failure: Failure) -> str:
    """How a failure reads in a debug line: rate limited, or transient."""
    return "rate limited" if failure.rate_limited else "transient failure"


def request_sent() -> None:
    """Called (by an HTTP client hook) in the task making a limiter's call once its request is
    written: with `serial_sends`, the next attempt may then start writing its own. A no-op
    outside a limiter's call, and after the first time.

    Sends are serial only once a first call has reported this way: an HTTP transport that
    never reports (httpx's MockTransport, say) keeps every call's send free, rather than
    holding each call's turn until its answer."""
    held = _SENDING.get()
    if held is not None:
        limiter, attempt = held
        limiter._reports_sends = True
        limiter._sent(attempt)
