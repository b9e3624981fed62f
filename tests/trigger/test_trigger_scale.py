"""A large eval runs through `workers` coroutines, not one task per run (memory stays flat)."""

from __future__ import annotations

import asyncio

from trigger_fakes import ScriptedJudge

from skillbench.backends.base import TriggerOutcome, TriggerRequest
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import run_trigger_eval


class TaskCountingJudge(ScriptedJudge):
    """Records how many asyncio tasks exist while it judges."""

    def __init__(self) -> None:
        super().__init__({})
        self.most_tasks = 0

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        self.most_tasks = max(self.most_tasks, len(asyncio.all_tasks()))
        return await super().judge(request)


async def test_runs_are_pulled_by_workers_not_spawned_per_run() -> None:
    queries = [EvalQuery(f"query {i}", i % 2 == 0, None, (i,)) for i in range(1000)]
    judge = TaskCountingJudge()
    report = await run_trigger_eval(
        "s", "Does s.", queries, judge, options=TriggerOptions(runs=3, workers=4)
    )  # type: ignore[arg-type]
    assert len(judge.requests) == 3000
    assert judge.most_tasks <= 4 + 2  # the workers, the test's own task, slack of one
    assert [r.query for r in report.results] == [q.text for q in queries]
    assert all(r.runs == 3 for r in report.results)
