"""Prompt-cache priming: each breakpoint prefix is written once, however many calls fan out.

The fake (`prompt_cache_fake.PromptCache` behind an httpx2 mock transport) makes a written prefix
readable only once the response that wrote it has begun (its first bytes, after a short delay),
as the API does; calls that arrive before that write it again. The tests count writes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
from mock_anthropic_sse import json_message, tool_use_stream
from prompt_cache_fake import PromptCache
from test_replay import CATALOG, MODEL, TARGET, make_judge

from skillbench.backends.anthropic.priming import CachePrimer, breakpoint_keys
from skillbench.backends.anthropic.sdk import AnthropicJudge
from skillbench.backends.base import TriggerRequest

FIRST_BYTE = 0.05  # seconds before a response begins (the prefix it wrote is readable then)
QUERIES = [f"merge report-{i}.pdf with cover.pdf" for i in range(6)]
RUNS = 3


class Begins(httpx2.AsyncByteStream):
    """A response body whose first byte marks the request's cache writes readable."""

    def __init__(self, cache: PromptCache, bill: Any, body: bytes) -> None:
        self.cache, self.bill, self.body = cache, bill, body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        await asyncio.sleep(FIRST_BYTE)
        self.cache.begin(self.bill)
        yield self.body


def requests() -> list[TriggerRequest]:
    return [TriggerRequest(TARGET, CATALOG, q, r) for q in QUERIES for r in range(RUNS)]


async def test_replay_first_wave_writes_each_prefix_once(tmp_path: Path) -> None:
    cache = PromptCache(minimum=lambda model: 1)  # the tiny test template caches too

    def handler(request: httpx2.Request) -> httpx2.Response:
        bill = cache.bill(json.loads(request.content))
        body = tool_use_stream(MODEL, "Skill", {"skill": TARGET.name})
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, stream=Begins(cache, bill, body))

    judge = make_judge(tmp_path, handler, max_concurrency=16)
    outcomes = await asyncio.gather(*(judge.judge(r) for r in requests()))
    await judge.aclose()
    assert all(o.error is None and o.triggered for o in outcomes)
    # one template: its two system breakpoints (the shared prefix) written once, by one primer;
    # each query's own breakpoint written once, its repeats read it
    assert cache.write_counts() == [1] * (2 + len(QUERIES))


async def test_minimal_first_wave_writes_each_listing_once() -> None:
    cache = PromptCache(minimum=lambda model: 1)  # the tiny test template caches too

    async def handler(request: httpx2.Request) -> httpx2.Response:
        bill = cache.bill(json.loads(request.content))
        await asyncio.sleep(FIRST_BYTE)  # a non-streamed reply begins when it is complete
        cache.begin(bill)
        reply = json_message(MODEL, "")
        reply["content"] = [
            {"type": "tool_use", "id": "toolu_1", "name": "Skill", "input": {"skill": "pdf-tools"}}
        ]
        return httpx2.Response(200, json=reply)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    judge = AnthropicJudge(
        MODEL, api_key="sk-ant-test-key-0123456789", http_client=client, max_concurrency=16
    )
    outcomes = await asyncio.gather(*(judge.judge(r) for r in requests()))
    await judge.aclose()
    assert all(o.error is None and o.triggered for o in outcomes)
    listings = {json.dumps(judge.params(r)["tools"]) for r in requests()}
    # one listing order per run: its tools prefix and tools + system prefix, each written once
    assert cache.write_counts() == [1] * (2 * len(listings))


async def test_a_primer_that_fails_hands_its_prefix_to_the_next_call() -> None:
    primer = CachePrimer()
    first = await primer.acquire(["a", "b"])
    order: list[str] = []

    async def later(name: str) -> None:
        release = await primer.acquire(["a", "b"])
        order.append(name)
        release(True)

    waiting = asyncio.gather(later("x"), later("y"))
    await asyncio.sleep(0)
    assert order == []  # both wait for the first call's response
    first(False)  # it failed without one: one of them writes, the other then reads
    await waiting
    assert order == ["x", "y"] and primer.primers == 2
    assert await primer.acquire(["a", "b"]) is not first  # written: no wait, nothing to write


def test_breakpoint_keys_ignore_hints_and_the_billing_suffix() -> None:
    body = {
        "system": [
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.197.44f;"},
            {"type": "text", "text": "You are Claude.", "cache_control": {"type": "ephemeral"}},
        ],
        "messages": [{"role": "user", "content": "hi"}],
    }
    other = json.loads(json.dumps(body).replace("197.44f", "197.9ab"))
    assert breakpoint_keys(body, MODEL) == breakpoint_keys(other, MODEL)
    assert len(breakpoint_keys(body, MODEL)) == 1
    assert breakpoint_keys(body, MODEL) != breakpoint_keys(body, "claude-sonnet-4-5")
