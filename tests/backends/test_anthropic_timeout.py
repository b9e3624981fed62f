"""The per-call timeout bounds the whole API call (a server that never answers), not a read."""

from __future__ import annotations

import asyncio
import time

import httpx2

from skillbench.backends.anthropic.sdk import AnthropicJudge, AnthropicTextModel
from skillbench.backends.base import SkillEntry, TriggerRequest

KEY = "sk-ant-api03-TIMEOUTTEST-abcdefghijklmnopqrstuvwxyz0123456789"


async def _never_answers(request: httpx2.Request) -> httpx2.Response:
    await asyncio.sleep(3600)  # a hung server: no byte ever arrives
    raise AssertionError("unreachable")


def _client() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.MockTransport(_never_answers))


async def test_hung_call_ends_at_the_timeout_as_an_error_outcome() -> None:
    judge = AnthropicJudge(api_key=KEY, http_client=_client(), timeout=0.3)
    request = TriggerRequest(SkillEntry("csv", "Clean CSV files."), (), "fix my csv", 0)
    started = time.monotonic()
    outcome = await asyncio.wait_for(judge.judge(request), 20)  # fails, never hangs, if broken
    elapsed = time.monotonic() - started
    await judge.aclose()
    assert 0.25 < elapsed < 5
    assert outcome.error is not None and "timed out after 0.3 s" in outcome.error
    assert KEY not in outcome.error


def test_default_timeouts_are_the_documented_ones() -> None:
    assert AnthropicJudge.default_timeout == 120.0
    assert AnthropicTextModel.default_timeout == 300.0
