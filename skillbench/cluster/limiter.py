"""One limit of API calls in flight for the whole cluster: the AIMD `AdaptiveLimiter` of the
anthropic backend, held by one Ray actor that every node's proxy asks before forwarding a call.

`SharedLimiter` is the plain object (tested without Ray); `create_limiter` makes the actor
around it on the head node (`connect`). A slot is a *lease*: the proxy takes one before it sends a
request and gives it back with the answer's status and headers once the answer is read to its
end (429/529 shrink the window, other answers grow it back, `retry-after` and exhausted
`anthropic-ratelimit-*` budgets pause every node). Leases of a node that died are reclaimed
(`reclaim`), so a killed worker never keeps the window's slots.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from skillbench.backends.limiter import AdaptiveLimiter, parse_retry_after

HEAD_RESOURCE = "node:__internal_head__"
RATE_LIMITED = frozenset({429, 529})


@dataclass
class Lease:
    """One call in flight: which node's proxy holds it and since when."""

    node: str
    started: float


class SharedLimiter:
    """Leases of an `AdaptiveLimiter` (AIMD window starting at `limit`), with peak tracking."""

    def __init__(self, limit: int, *, cooldown: float = 1.0) -> None:
        self.limiter = AdaptiveLimiter(limit, cooldown=cooldown)
        self.leases: dict[int, Lease] = {}
        self._next = 0
        self.granted = 0
        self.reclaimed = 0

    async def acquire(self, node: str) -> int:
        """Wait for a slot of the cluster's window; returns the lease id."""
        await self.limiter.acquire()
        self._next += 1
        self.leases[self._next] = Lease(node, time.monotonic())
        self.granted += 1
        return self._next

    def release(self, lease: int, status: int, headers: Mapping[str, str]) -> None:
        """Give the slot back with what the call got (`status` 0: no answer at all)."""
        if self.leases.pop(lease, None) is None:
            return  # already reclaimed (its node was declared dead)
        self.limiter.release()
        self.feedback(status, headers)

    def feedback(self, status: int, headers: Mapping[str, str]) -> None:
        """AIMD and pauses from one answer, as the single-machine limiter takes them."""
        lowered = {k.lower(): v for k, v in headers.items()}
        if status in RATE_LIMITED:
            self.limiter.throttled()
            wait = parse_retry_after(lowered)
            if wait is not None:
                self.limiter.pause(wait)
        elif 0 < status < 500:
            self.limiter.succeeded()
        self.limiter.observe_headers(lowered)

    def reclaim(self, alive: Iterable[str]) -> int:
        """Release the leases of nodes not in `alive`; how many were released."""
        living = set(alive)
        dead = [lease for lease, held in self.leases.items() if held.node not in living]
        for lease in dead:
            del self.leases[lease]
            self.limiter.release()
        self.reclaimed += len(dead)
        return len(dead)

    def stats(self) -> dict[str, Any]:
        """Window, calls in flight now and at the peak, grants, 429/529 seen, reclaimed leases."""
        lim = self.limiter
        return {
            "limit": lim.limit,
            "window": lim.window,
            "in_flight": lim.in_flight,
            "peak": lim.peak,
            "granted": self.granted,
            "rate_limited": lim.rate_limited,
            "decreases": lim.decreases,
            "reclaimed": self.reclaimed,
        }


class LimiterActor(SharedLimiter):
    """The actor's body: a `SharedLimiter` that reclaims dead nodes' leases every `period` s."""

    def __init__(
        self,
        limit: int,
        *,
        cooldown: float = 1.0,
        period: float = 1.0,
        alive_nodes: Callable[[], list[str]] | None = None,
    ) -> None:
        super().__init__(limit, cooldown=cooldown)
        self.period = period
        self.alive_nodes = alive_nodes or _alive_nodes
        self._watch: asyncio.Task[None] | None = None

    async def acquire(self, node: str) -> int:
        """As `SharedLimiter.acquire`; starts the dead-node watch on first use."""
        if self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._reclaim_loop())
        return await super().acquire(node)

    # every method a coroutine: Ray runs them all on the actor's one event loop, the only
    # thread that may touch the limiter's futures

    async def release(self, lease: int, status: int, headers: Mapping[str, str]) -> None:  # type: ignore[override]
        """As `SharedLimiter.release`, on the actor's event loop."""
        super().release(lease, status, headers)

    async def stats(self) -> dict[str, Any]:  # type: ignore[override]
        """As `SharedLimiter.stats`, on the actor's event loop."""
        return super().stats()

    async def _reclaim_loop(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            if self.leases:
                alive = await asyncio.to_thread(self.alive_nodes)
                self.reclaim(alive)


def _alive_nodes() -> list[str]:
    import ray

    return [node["NodeID"] for node in ray.nodes() if node.get("Alive")]


def create_limiter(limit: int) -> Any:
    """The cluster's limiter actor (an async actor on the driver's node, no CPU reserved)."""
    import ray

    # on the head node: a worker node that dies never takes the cluster's limit with it
    return (
        ray.remote(LimiterActor)
        .options(num_cpus=0, max_concurrency=10_000, resources={HEAD_RESOURCE: 0.001})
        .remote(limit)
    )
