"""The judge stack every trigger-eval workflow runs through, built in one place: the call cache,
the backend's judge behind it (`--escalate`'s fallback around it), the meter and cap of the
workflow's budget around that. Trigger, library, improve and gate (and whatever runs trigger
evals next) open it with their `TriggerOptions`, so the keys, the escalation and the cap are the
same whichever command runs."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from skillbench.backends.base import TriggerJudge
from skillbench.backends.cache import CallCache
from skillbench.cost.budget import Budget, MeteredJudge
from skillbench.trigger.options import TriggerOptions


@dataclass(frozen=True)
class JudgeStack:
    """An open judge stack: `judge` is what runs are sent to."""

    cache: CallCache | None  # None with --no-cache
    cached: TriggerJudge  # the backend's judge behind the call cache (and escalation)
    judge: TriggerJudge  # `cached`, metered against the budget when there is one
    budget: Budget | None

    def flush(self) -> list[str]:
        """Answers a locked cache could not take: written now, or said so (report warnings)."""
        return self.cache.flush() if self.cache is not None else []


def with_default_workers(options: TriggerOptions) -> TriggerOptions:
    """`options` with `workers` set to the backend's default when not given."""
    from skillbench.backends.registry import default_workers

    if options.workers is not None:
        return options
    return options.but(workers=default_workers(options.backend))


@contextlib.asynccontextmanager
async def judge_stack(
    options: TriggerOptions, budget: Budget | None, *, priced: bool | None = True
) -> AsyncIterator[JudgeStack]:
    """Open the cache and the backend's judge for `options` (keyed with `judge_options()`, as
    the planners key it), metered against `budget` (None: not metered); closed on the way out,
    the judge before the cache."""
    from skillbench.backends.registry import cached_judge, escalation_backend, open_cache

    cache = open_cache(options.cache_path, enabled=options.use_cache)
    try:
        cached: TriggerJudge = cached_judge(
            options.backend,
            model=options.model,
            cache=cache,
            workers=options.workers,
            **options.judge_options(),
        )
        try:
            if options.escalate:
                from skillbench.trigger.escalate import EscalatingJudge

                # where the specs say undecided runs go (`BackendSpec.escalation`: the real CLI), in
                # the run's CLI mode (the replay's), so both judges ask the same CLI's request
                mode = options.judge_cli_mode()
                escalation: dict[str, Any] = {"cli_mode": mode} if mode is not None else {}
                fallback = cached_judge(
                    escalation_backend(), model=options.model, cache=cache, **escalation
                )
                cached = EscalatingJudge(cached, fallback)
            judge = MeteredJudge(cached, budget, priced=priced) if budget is not None else cached
            yield JudgeStack(cache, cached, judge, budget)
        finally:
            await cached.aclose()
    finally:
        if cache is not None:
            cache.close()
