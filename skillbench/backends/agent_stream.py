"""Reading a streamed reply only as far as its first move, for the agent backends whose SDKs
stream plain events (google-genai chunks, openai Responses events).

Once the fold says the move is decided, the rest of the reply is read for at most
`DRAIN_SECONDS` (after a tool call that is only the closing event carrying the usage, so the
connection goes back to the pool and the real output count arrives), as the Claude replay does;
a reply still going after that is left (the fold marks the move closed early)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

DRAIN_SECONDS = 1.0


async def read_first_move(
    events: AsyncIterator[Any],
    feed: Callable[[Mapping[str, Any]], bool],
    as_dict: Callable[[Any], Mapping[str, Any]],
    *,
    stop_when_decided: bool,
    drain_seconds: float = DRAIN_SECONDS,
) -> None:
    """Feed `events` (each through `as_dict`) to `feed` until it returns True; then, when
    `stop_when_decided`, drain at most `drain_seconds` more; else read to the end."""
    iterator = events.__aiter__()
    async for event in iterator:
        if feed(as_dict(event)) and stop_when_decided:
            break
    else:
        return
    try:
        async with asyncio.timeout(drain_seconds):
            async for event in iterator:
                feed(as_dict(event))
    except Exception:  # a timeout, a late error, a dropped connection: the move stands
        return
