"""Prime the prompt cache: one call per cacheable prefix first, the rest once it has begun.

The API makes a prompt-cache entry readable only once the response of the request that writes
it has begun. Calls sent together before that (a first wave of `--workers` calls on one
template) each write the same prefix again: with 16 workers and Claude Code's ~27k-token prefix
the first run cost 3–7× its estimate. `CachePrimer` lets the first call with a given breakpoint
prefix go alone; later calls needing that prefix wait until its response has begun (the first
stream event; a non-streamed reply's arrival), then read it. So each distinct prefix is
written once, which is what the estimate (`cost/estimate.py`) prices. A primer whose attempt
fails (a 429 it waits out, a dropped connection) hands over at once, so a throttled call holds
no one up.

`breakpoint_keys(body)` names the prefixes of a request: one digest per `cache_control` block,
of the model and everything up to that block in cache order (tools, system, messages), the
per-request billing suffix masked (the cache does not key on it).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from skillbench.backends.anthropic.prompt_cache import mask_volatile, slots, without_breakpoints

Release = Callable[[bool], None]
"""`release(begun)`: the primer's response has begun (True) or the call ended without one."""


def breakpoint_keys(body: dict[str, Any], model: str | None = None) -> list[str]:
    """One digest per breakpoint of `body`, of the model and the blocks up to it (cache order);
    `cache_control` hints and the billing header's per-request suffix are left out."""
    digest = hashlib.sha256(str(model or body.get("model") or "").encode("utf-8"))
    keys: list[str] = []
    for slot in slots(body):
        block = mask_volatile(without_breakpoints(slot.block))
        digest.update(json.dumps([slot.part, block], sort_keys=True).encode("utf-8"))
        if slot.breakpoint:
            keys.append(digest.copy().hexdigest())
    return keys


class CachePrimer:
    """Orders calls so that each breakpoint prefix is written once (see the module docstring).

    `await acquire(keys)` returns once no call in flight is still writing any of `keys`; the
    keys nobody has written become this call's to write, and it gets a `release` to call when
    its response begins (or, with False, when it ends without one). Single event loop; the
    registry grows with the distinct prefixes of a run (a few per template)."""

    def __init__(self) -> None:
        self._writing: dict[str, asyncio.Event] = {}
        self._written: set[str] = set()
        self.primers = 0  # calls that went first to write a prefix

    async def acquire(self, keys: Sequence[str]) -> Release:
        """Wait for the writers of `keys` in flight; claim the keys not written yet."""
        while True:
            pending = [self._writing[k] for k in keys if k in self._writing]
            if not pending:
                break
            for event in pending:
                await event.wait()
        mine = [k for k in dict.fromkeys(keys) if k not in self._written]
        if not mine:
            return _nothing
        event = asyncio.Event()
        for key in mine:
            self._writing[key] = event
        self.primers += 1
        done = False

        def release(begun: bool) -> None:
            nonlocal done
            if done:
                return
            done = True
            for key in mine:
                self._writing.pop(key, None)
                if begun:
                    self._written.add(key)
            event.set()

        return release


def _nothing(begun: bool) -> None:
    """The release of a call that writes no new prefix."""
