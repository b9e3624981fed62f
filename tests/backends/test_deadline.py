"""`backends.deadline`: a call past its deadline is a neutral `CallTimedOut`; only the Anthropic
SDK's callers see it as an `AnthropicError` (issue 37: a Gemini or Codex timeout was raised as
an AnthropicError)."""

from __future__ import annotations

import asyncio

import pytest

from skillbench.aio import run_sync
from skillbench.backends.deadline import CallTimedOut, within_deadline


async def _late(call_deadline: float = 0.0) -> None:
    loop = asyncio.get_running_loop()
    await within_deadline(asyncio.sleep(5), loop.time() + call_deadline, 0.01)


def test_a_late_call_is_a_neutral_timeout() -> None:
    with pytest.raises(CallTimedOut, match=r"timed out after 0\.01 s") as caught:
        run_sync(_late)
    assert "anthropic" not in type(caught.value).__module__


def test_the_anthropic_callers_still_get_an_anthropic_error() -> None:
    anthropic = pytest.importorskip("anthropic")
    from skillbench.backends.anthropic.sdk import within_deadline as sdk_deadline

    async def late() -> None:
        loop = asyncio.get_running_loop()
        await sdk_deadline(asyncio.sleep(5), loop.time(), 0.01)

    with pytest.raises(anthropic.AnthropicError, match="timed out"):
        run_sync(late)


def test_the_other_agents_replay_times_out_neutrally() -> None:
    from skillbench.backends.replay import judge

    assert judge.within_deadline is within_deadline
