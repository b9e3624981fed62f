"""One call's whole-call deadline, for every backend: `within_deadline` raises `CallTimedOut`,
a neutral error (not any provider SDK's), which the judges turn into an error outcome, never
"not triggered"."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any


class CallTimedOut(Exception):
    """A call (retries included) ran past its deadline."""


async def within_deadline(call: Awaitable[Any], deadline: float, seconds: float) -> Any:
    """Await `call` until the loop time `deadline`; then `CallTimedOut` naming `seconds`."""
    try:
        async with asyncio.timeout_at(deadline):
            return await call
    except TimeoutError:
        raise CallTimedOut(
            f"call timed out after {seconds:g} s (whole call, retries included)"
        ) from None
