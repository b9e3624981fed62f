"""Run library coroutines from synchronous code, including inside a running Jupyter kernel."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def run_sync(make_coroutine: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from synchronous code.

    Without a running loop this is ``asyncio.run``. Inside one (a Jupyter kernel), asyncio.run
    would fail, so the coroutine runs on a fresh loop in a worker thread and this call blocks.
    """

    async def main() -> T:
        return await make_coroutine()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="skillbench-sync") as pool:
        return pool.submit(asyncio.run, main()).result()
