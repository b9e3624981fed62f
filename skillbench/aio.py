"""Run library coroutines from synchronous code, including inside a running Jupyter kernel; keep
the cycle collector from stalling an event loop full of calls in flight."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import gc
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")

_freeze_lock = threading.Lock()
_freeze_depth = 0


def run_sync(make_coroutine: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from synchronous code.

    Without a running loop this is ``asyncio.run``. Inside one (a Jupyter kernel), asyncio.run
    would fail, so the coroutine runs on a fresh loop in a worker thread and this call blocks.
    """

    # The result is handed back in a box, not as the main task's result: Python 3.11's
    # `asyncio.run` restores the SIGINT handler at exit, and `signal` builds (then drops) a
    # message with the repr of the old handler, which holds the task, whose repr holds the whole
    # result (`reprlib` truncates only after a full `repr`): seconds and hundreds of MB for a
    # library report of 10,000 skills.
    box: list[T] = []

    async def main() -> None:
        box.append(await make_coroutine())

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(main())
        return box[0]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="skillbench-sync") as pool:
        # the caller's context (an active `cost.limit.cost_limit`, …) goes along to the thread
        pool.submit(contextvars.copy_context().run, asyncio.run, main()).result()
    return box[0]


def blocking(function: Callable[P, Awaitable[T]]) -> Callable[P, T]:
    """The blocking form of a coroutine function (`<name>_sync`, through `run_sync`), with the
    same parameters and types: `inspect.signature` and type checkers see them, not `**options`."""

    @functools.wraps(function)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(lambda: function(*args, **kwargs))

    call.__name__ = f"{function.__name__}_sync"
    call.__qualname__ = f"{function.__qualname__}_sync"
    call.__doc__ = (
        f"Blocking form of `{function.__name__}`; safe inside a running Jupyter kernel.\n\n"
        + (function.__doc__ or "")
    )
    return call


@contextmanager
def heap_frozen() -> Iterator[None]:
    """Within the block, the cycle collector skips every object that existed when it began.

    A full collection walks every tracked object with the event loop stopped: once the anthropic
    SDK is imported that is about 160,000 objects and 90-130 ms, long enough to hold up a whole
    wave of calls in flight (a tenth of a second on a 3 s eval of 32 workers). `gc.freeze()`
    moves the objects alive now to the permanent generation, which collections skip, and
    `gc.unfreeze()` gives them back at the end: nothing is leaked (a cycle among them that became
    garbage meanwhile is collected after the block). Objects made inside the block are collected
    as usual. Nested and concurrent blocks (threads included) share one freeze, undone when the
    last one ends.
    """
    global _freeze_depth
    with _freeze_lock:
        if _freeze_depth == 0:
            gc.freeze()
        _freeze_depth += 1
    try:
        yield
    finally:
        with _freeze_lock:
            _freeze_depth -= 1
            if _freeze_depth == 0:
                gc.unfreeze()
