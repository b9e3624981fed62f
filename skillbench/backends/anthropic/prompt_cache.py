"""Where a Messages request's prompt-cache breakpoints fall relative to the query.

The API caches the prefix of a request (tools, then system blocks, then message content blocks)
up to each block that carries `cache_control`; a later request with the same prefix up to a
breakpoint reads it instead of paying for it again. Claude Code 2.1.197 puts its breakpoints on
two system blocks and on the query's own block, so everything between the system prompt and the
query (the agent and skill listings, the context reminder: ~2k tokens) is written to the cache
anew for every different query. `add_breakpoint_before_query` adds one breakpoint on the block
just before the query, so that part is read from the cache too. The model sees the same tokens;
only the request's caching hints differ from Claude Code's own.

`layout` tells an estimator which part of a templated request is shared by every query (read
after the first call), which part is per query but cached (read again only when the same query
repeats) and which is never cached.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

MAX_BREAKPOINTS = 4
"""The Messages API accepts at most four `cache_control` blocks per request."""

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

_BILLING_SUFFIX = re.compile(r"(cc_version=\d+\.\d+\.\d+\.)[0-9a-f]+")
"""The per-request suffix of Claude Code's billing header (`cc_version=2.1.197.44f`)."""


@dataclass(frozen=True)
class Slot:
    """One block of a request in cache order: `part` is tools, system or messages."""

    part: str
    message: int | None  # index of the message (messages only)
    index: int  # index in `tools`, `system` or the message's content
    block: Any

    @property
    def breakpoint(self) -> bool:
        """Whether this block carries `cache_control`."""
        return isinstance(self.block, dict) and bool(self.block.get("cache_control"))


def slots(body: dict[str, Any]) -> list[Slot]:
    """The request's blocks in prompt-cache order: tools, system blocks, message blocks."""
    out = [Slot("tools", None, i, t) for i, t in enumerate(body.get("tools") or [])]
    system = body.get("system")
    if isinstance(system, list):
        out += [Slot("system", None, i, b) for i, b in enumerate(system)]
    elif isinstance(system, str) and system:
        out.append(Slot("system", None, 0, system))
    for m, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            out += [Slot("messages", m, i, b) for i, b in enumerate(content)]
        elif content is not None:
            out.append(Slot("messages", m, 0, content))
    return out


def _holds(block: Any, query: str) -> bool:
    if isinstance(block, str):
        return query in block
    if isinstance(block, dict):
        return any(_holds(value, query) for value in block.values())
    if isinstance(block, list):
        return any(_holds(item, query) for item in block)
    return False


def swap_text(value: Any, old: str, new: str) -> Any:
    """A copy of a JSON value with `old` replaced by `new` in every string (keys untouched)."""
    if isinstance(value, str):
        return value.replace(old, new) if old in value else value
    if isinstance(value, list):
        return [swap_text(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: swap_text(item, old, new) for key, item in value.items()}
    return value


def mask_volatile(value: Any) -> Any:
    """`value` with what legitimately differs between two CLI runs masked: the per-request
    suffix of the billing header's `cc_version` (for comparing requests and naming cache
    prefixes, not for sending)."""
    if isinstance(value, str):
        return _BILLING_SUFFIX.sub(r"\1*", value)
    if isinstance(value, list):
        return [mask_volatile(item) for item in value]
    if isinstance(value, dict):
        return {key: mask_volatile(item) for key, item in value.items()}
    return value


def without_breakpoints(value: Any) -> Any:
    """A copy of a JSON value without `cache_control` keys (what the model's tokens are)."""
    if isinstance(value, list):
        return [without_breakpoints(item) for item in value]
    if isinstance(value, dict):
        return {k: without_breakpoints(v) for k, v in value.items() if k != "cache_control"}
    return value


def query_slot(found: list[Slot], query: str) -> int | None:
    """Index in `found` (a request's `slots`) of the first message block holding `query`, or
    None."""
    if not query:
        return None
    for n, slot in enumerate(found):
        if slot.part == "messages" and _holds(slot.block, query):
            return n
    return None


@dataclass(frozen=True)
class Layout:
    """Cache layout of a templated request, as `slots` indices (None: no such breakpoint).

    shared: the last breakpoint before the query's block (its prefix is the same for every
    query); last: the last breakpoint of the request (at or after the query's block when the
    per-query part is cached too)."""

    query: int | None
    shared: int | None
    last: int | None
    count: int

    @property
    def query_cached(self) -> bool:
        """Whether the query's part of the request is written to (and read from) the cache."""
        return self.last is not None and self.query is not None and self.last >= self.query


def layout(body: dict[str, Any], query: str) -> Layout:
    """The breakpoints of `body` relative to the block holding `query`."""
    found = slots(body)
    points = [n for n, slot in enumerate(found) if slot.breakpoint]
    q = query_slot(found, query)
    shared = max((n for n in points if q is None or n < q), default=None)
    return Layout(query=q, shared=shared, last=max(points, default=None), count=len(points))


def add_breakpoint_before_query(body: dict[str, Any], query: str) -> dict[str, Any]:
    """A copy of `body` with `cache_control` on the message block just before the query's block
    (in the same message, else the previous message's last block). Unchanged when that block
    already is a breakpoint, when the query is not found or is the first message block, when
    the block is a bare string, or when the request already has the API's maximum of four."""
    found = slots(body)
    q = query_slot(found, query)
    if q is None or q == 0:
        return body
    before = found[q - 1]
    if before.part != "messages" or before.breakpoint or not isinstance(before.block, dict):
        return body
    if sum(slot.breakpoint for slot in found) >= MAX_BREAKPOINTS:
        return body
    out = copy.deepcopy(body)
    assert before.message is not None
    message = out["messages"][before.message]
    message["content"][before.index]["cache_control"] = dict(EPHEMERAL)
    return out


def prefix(body: dict[str, Any], end: int) -> dict[str, Any]:
    """`tools`, `system` and `messages` of `body` cut after slot `end` (in `slots` order)."""
    kept = slots(body)[: end + 1]
    tools = [s.block for s in kept if s.part == "tools"]
    system_slots = [s.block for s in kept if s.part == "system"]
    system: Any = system_slots
    if isinstance(body.get("system"), str):
        system = system_slots[0] if system_slots else None
    messages: list[dict[str, Any]] = []
    source = body.get("messages") or []
    for slot in (s for s in kept if s.part == "messages"):
        assert slot.message is not None
        original = source[slot.message]
        if not messages or messages[-1]["_at"] != slot.message:
            content: Any = [] if isinstance(original.get("content"), list) else slot.block
            messages.append({"_at": slot.message, "role": original.get("role"), "content": content})
        if isinstance(messages[-1]["content"], list):
            messages[-1]["content"].append(slot.block)
    return {
        "tools": tools,
        "system": system or None,
        "messages": [{k: v for k, v in m.items() if k != "_at"} for m in messages],
    }
