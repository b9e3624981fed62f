"""Where a session backend's sessions run: on this machine (the default) or wherever a placer
installed by a package above (`skillbench.cluster`) sends them.

The seam keeps the arrows pointing down: the question packages build their judges and executors
as always (`registry.get_judge`, `behavior.execute.run_cases`), and those two hand each one of a
backend whose spec says `sessions` to `place_judge` / `place_executor`. Without a placer (no
`--cluster`) both return their argument unchanged, so single-machine behaviour is untouched.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Placer(Protocol):
    """Wraps a session backend's judge or executor so its sessions run elsewhere."""

    def judge(self, judge: Any) -> Any:
        """A judge with the same identity whose `judge()` runs the session elsewhere."""
        ...

    def executor(self, executor: Any) -> Any:
        """An executor with the same identity whose `execute()` runs the session elsewhere."""
        ...


_placer: list[Placer] = []


def active() -> Placer | None:
    """The placer in force (None: sessions run on this machine)."""
    return _placer[-1] if _placer else None


@contextlib.contextmanager
def placed(placer: Placer) -> Iterator[Placer]:
    """Send session backends' sessions through `placer` for the duration of the block."""
    _placer.append(placer)
    try:
        yield placer
    finally:
        _placer.remove(placer)


def place_judge(judge: T, sessions: bool) -> T:
    """`judge`, wrapped by the active placer when its backend runs `sessions` (its spec says)."""
    placer = active()
    if placer is None or not sessions:
        return judge
    wrapped: T = placer.judge(judge)
    return wrapped


def place_executor(executor: T, sessions: bool) -> T:
    """`executor`, wrapped by the active placer when its backend runs `sessions`."""
    placer = active()
    if placer is None or not sessions:
        return executor
    wrapped: T = placer.executor(executor)
    return wrapped
