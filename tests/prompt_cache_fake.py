"""The Messages API's prompt cache as billed, for loopback fakes (tests and benchmarks).

A request is cut into blocks in cache order (tools, system blocks, message content blocks), each
worth len(json) / 4 tokens; every block carrying `cache_control` is a breakpoint. The longest
breakpoint prefix already readable (same model, same SHA-256; the billing header's per-request
suffix masked) is `cache_read`; from there to the last breakpoint is `cache_creation` (0 when
the last breakpoint's prefix is readable); the rest is `input_tokens`.

As on the real API, an entry becomes readable only once the response of the request that wrote
it has begun (`begin`, called by the fake when it sends the first bytes): requests that arrive
before that each write the same prefix again. A breakpoint whose prefix is shorter than the
model's minimum cacheable length (`cost.estimate.min_cacheable_tokens`: 4,096 tokens for
haiku-4-5, 1,024 for sonnet-4-5) is neither written nor read. (The 20-block look-back and the
5-minute lifetime are not modelled.)
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from skillbench.backends.anthropic.prompt_cache import mask_volatile
from skillbench.cost.estimate import min_cacheable_tokens


def tokens(value: Any) -> int:
    """The fake's token count of a JSON value: characters / 4, at least 1."""
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


def blocks(body: dict[str, Any]) -> list[Any]:
    """The request in prompt-cache order: tools, system blocks, message content blocks."""
    out: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    if isinstance(system, str):
        out.append({"type": "text", "text": system})
    elif isinstance(system, list):
        out.extend(system)
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            out.extend({"role": message.get("role"), **b} for b in content if isinstance(b, dict))
        else:
            out.append({"role": message.get("role"), "text": content})
    return out


@dataclass
class Bill:
    """One request's usage, and the prefixes it writes (readable once `begin` is called)."""

    usage: dict[str, int]
    writes: list[str] = field(default_factory=list)


class PromptCache:
    """Readable prefixes, and how many times each prefix was written."""

    def __init__(self, minimum: Callable[[str], int] = min_cacheable_tokens) -> None:
        self.minimum = minimum  # model → its minimum cacheable prefix (tokens)
        self.lock = threading.Lock()
        self.readable: set[str] = set()
        self.written: dict[str, int] = {}

    def bill(self, body: dict[str, Any]) -> Bill:
        """Bill `body` against the prefixes readable now (see the module docstring)."""
        ends: list[tuple[int, str]] = []  # (prefix tokens, prefix hash) at each breakpoint
        total = 0
        digest = hashlib.sha256(str(body.get("model")).encode())
        minimum = self.minimum(str(body.get("model")))
        for block in blocks(body):
            total += tokens(block)
            digest.update(json.dumps(mask_volatile(block), sort_keys=True).encode())
            if isinstance(block, dict) and block.get("cache_control") and total >= minimum:
                ends.append((total, digest.copy().hexdigest()))
        with self.lock:
            read = max((n for n, h in ends if h in self.readable), default=0)
            last = ends[-1][0] if ends else 0
            created = 0 if not ends or ends[-1][1] in self.readable else last - read
            writes = [h for n, h in ends if n > read and h not in self.readable] if created else []
            for h in writes:
                self.written[h] = self.written.get(h, 0) + 1
        usage = {
            "input_tokens": total - max(last, read),
            "cache_creation_input_tokens": created,
            "cache_read_input_tokens": read,
        }
        return Bill(usage, writes)

    def begin(self, bill: Bill) -> None:
        """The response of `bill`'s request has begun: what it wrote is readable from now."""
        with self.lock:
            self.readable.update(bill.writes)

    def forget(self) -> None:
        """Empty the cache (as if its 5-minute lifetime had passed)."""
        with self.lock:
            self.readable.clear()
            self.written.clear()

    def write_counts(self) -> list[int]:
        """How many times each prefix was written (one entry per distinct prefix)."""
        with self.lock:
            return sorted(self.written.values())
