"""heap_frozen: the cycle collector skips the objects of before the block, and gets them back."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from skillbench.aio import heap_frozen, run_sync
from skillbench.backends.base import SkillEntry
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import EvalContext, TriggerOptions
from skillbench.trigger.run import run_trigger_eval


class Cycle:
    """An object in a reference cycle: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_objects_of_before_are_skipped_then_collected_after() -> None:
    assert gc.get_freeze_count() == 0
    before = Cycle()
    alive = weakref.ref(before)
    with heap_frozen():
        assert gc.get_freeze_count() > 0
        del before  # garbage now, but frozen: a collection inside the block leaves it
        gc.collect()
        assert alive() is not None
        during = weakref.ref(Cycle())
        gc.collect()
        assert during() is None  # made inside the block: collected as usual
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert alive() is None  # given back: nothing leaked


def test_nested_and_concurrent_blocks_share_one_freeze() -> None:
    entered, leave = threading.Event(), threading.Event()

    def other() -> None:
        with heap_frozen():
            entered.set()
            leave.wait(5)

    thread = threading.Thread(target=other)
    with heap_frozen():
        with heap_frozen():
            pass
        assert gc.get_freeze_count() > 0  # the inner block did not undo the outer one's freeze
        thread.start()
        assert entered.wait(5)
    try:
        assert gc.get_freeze_count() > 0  # the other thread's block still runs
    finally:
        leave.set()
    thread.join(5)
    assert gc.get_freeze_count() == 0


def test_an_error_inside_still_unfreezes() -> None:
    with pytest.raises(RuntimeError), heap_frozen():
        raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0


class _CountingJudge:
    """A judge that records whether the heap was frozen while it judged."""

    name = "fake"
    model = None
    is_proxy = True
    max_concurrency = 2

    def __init__(self) -> None:
        self.frozen: list[bool] = []

    def identity(self) -> dict[str, str]:
        return {"backend": self.name}

    def versions(self) -> dict[str, str]:
        return {}

    async def judge(self, request: object) -> object:
        from skillbench.backends.base import TriggerOutcome

        self.frozen.append(gc.get_freeze_count() > 0)
        return TriggerOutcome(triggered=True, fired="csv-cleanup")

    async def aclose(self) -> None:
        return None


def test_a_trigger_eval_runs_its_calls_frozen_and_unfreezes() -> None:
    judge = _CountingJudge()
    report = run_sync(
        lambda: run_trigger_eval(
            "csv-cleanup",
            "Repairs CSV files.",
            [EvalQuery("fix my csv", True, None, (0,))],
            judge,
            options=TriggerOptions(runs=3),
            context=EvalContext(catalog=tuple([SkillEntry("other", "Something else.")])),
        )
    )
    assert report.results[0].triggers == 3
    assert judge.frozen == [True, True, True]
    assert gc.get_freeze_count() == 0


def test_run_sync_never_builds_the_repr_of_its_result() -> None:
    """asyncio.run's exit reprs the main task (Python 3.11's SIGINT restore): the result must
    not be that task's result, or a 10,000-skill report is repr'd whole (seconds, 100s of MB)."""
    from skillbench.aio import run_sync

    class Costly:
        reprs = 0

        def __repr__(self) -> str:
            Costly.reprs += 1
            return "Costly()"

    async def make() -> Costly:
        return Costly()

    assert isinstance(run_sync(make), Costly)
    assert Costly.reprs == 0
