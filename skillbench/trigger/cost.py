"""What a trigger eval costs: the plan and estimate of a dry run, the actual cost of a report.

`trigger_requests` builds exactly the requests `run_trigger_eval` sends (for `--runs auto`, the
upper bound of `max_runs` per query). `estimate_requests` checks each against the call cache
(hits are free) and asks the backend's estimator about the rest. `plan_trigger_eval` is the
`--dry-run` of `evaluate_skill` (`trigger.run.plan_skill_eval` loads the files and calls it): no model call. `actual_cost` is the report's cost block.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillbench.backends.base import SkillEntry, TriggerJudge, TriggerOutcome, TriggerRequest
from skillbench.backends.describe import describe
from skillbench.cost import notes
from skillbench.cost.actual import actual_block, cost_line
from skillbench.cost.budget import CAP_ERROR, backend_priced
from skillbench.cost.estimate import Estimator, Planned, for_judge, get_estimator
from skillbench.cost.plan import CostPlan, key_judge, plan_block
from skillbench.schemas.cost import UNKNOWN, CostBlock, Dollars
from skillbench.trigger.evalset import EvalQuery

if TYPE_CHECKING:
    from skillbench.backends.cache import CachingJudge, CallUsage
    from skillbench.trigger.options import EvalContext, TriggerOptions

AUTO_NOTE = notes.RUNS_AUTO


def eval_entries(
    skill_name: str,
    description: str,
    body: str,
    catalog: Iterable[SkillEntry],
    folder: str | Path | None,
    content_hash: str | None,
) -> tuple[SkillEntry, tuple[SkillEntry, ...]]:
    """The target entry and the competing catalog entries (the target's name left out) of a
    trigger eval: one construction for the eval and its plan, so their cache keys agree."""
    target = SkillEntry(
        name=skill_name,
        description=description,
        body=body,
        folder=None if folder is None else str(folder),
        content_hash=content_hash,
    )
    return target, tuple(entry for entry in catalog if entry.name != skill_name)


def trigger_requests(
    skill_name: str,
    description: str,
    queries: Sequence[EvalQuery],
    *,
    body: str = "",
    catalog: Iterable[SkillEntry] = (),
    runs_per_query: int,
    seed: int = 0,
    folder: str | Path | None = None,
    content_hash: str | None = None,
) -> list[TriggerRequest]:
    """The requests a fixed-runs trigger eval sends, in its order (the same target entry as
    `run_trigger_eval`'s, so the same cache keys)."""
    target, others = eval_entries(skill_name, description, body, catalog, folder, content_hash)
    return [
        TriggerRequest(target, others, query.text, run, seed)
        for query in queries
        for run in range(runs_per_query)
    ]


def estimate_requests(
    requests: Sequence[TriggerRequest],
    estimator: Estimator,
    keys: CachingJudge | None,
    *,
    purpose: str = "trigger",
    planned: Planned | None = None,
) -> Planned:
    """Fold `requests` into a planned line: cache hits free, the rest estimated."""
    line = planned or Planned(estimator, purpose)
    misses = [r for r in requests if not _cached(keys, r)]
    line.add(estimator.trigger_calls(misses), len(misses), len(requests) - len(misses))
    return line


def _cached(keys: CachingJudge | None, request: TriggerRequest) -> bool:
    """Whether the call cache holds `request`'s answer (a request whose key is not known yet,
    such as a replay run before its template is captured, is counted as a call)."""
    if keys is None or keys.cache is None:
        return False
    key = keys.key(request)
    return key is not None and keys.cache.has(key)


def runs_per_query(runs: int | str, max_runs: int) -> int:
    """Runs per query of a plan: `runs`, or `max_runs` for "auto"."""
    return max_runs if runs == "auto" else int(runs)


def plan_trigger(
    skill_name: str,
    description: str,
    queries: Sequence[EvalQuery],
    options: TriggerOptions,
    context: EvalContext,
) -> CostPlan:
    """The plan and estimate of a trigger eval with these options and this context (the
    skill's body, folder, content hash and catalog); no model call. Its calls are keyed with
    `options.judge_options()`, as the eval's judge is built."""
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.cost.plan import existing_cache

    name, model = resolve_backend_name(options.backend), options.model
    per_query = runs_per_query(options.runs, options.max_runs)
    requests = trigger_requests(
        skill_name,
        description,
        queries,
        body=context.body,
        catalog=context.catalog,
        runs_per_query=per_query,
        seed=options.seed,
        folder=context.folder,
        content_hash=context.content_hash,
    )
    cache = existing_cache(options.cache_path, enabled=options.use_cache)
    try:
        judge_options = options.judge_options()
        estimator = get_estimator(name, model=model, cache=cache, **judge_options)
        keys, note = key_judge(name, model=model, cache=cache, options=judge_options)
        if keys is not None:
            estimator = for_judge(keys, estimator, cache=cache)
        line = estimate_requests(requests, estimator, keys)
    finally:
        if cache is not None:
            cache.close()
    notes = [n for n in (note, AUTO_NOTE if options.runs == "auto" else None) if n]
    others = [entry for entry in context.catalog if entry.name != skill_name]
    lines = [
        f"plan: trigger eval of {skill_name!r} on backend {name}"
        + (f" ({estimator.model})" if estimator.model else ""),
        f"  {len(queries)} queries × {per_query} runs × 1 description = {len(requests)} runs, "
        f"{len(others)} competing skill(s)",
    ]
    return CostPlan(lines, plan_block([line], notes=notes), [line])


def refused_by_cap(outcome: TriggerOutcome) -> bool:
    """Whether a run was not made because the spend had reached the cap."""
    return outcome.error == CAP_ERROR


def priced(judge: TriggerJudge, outcomes_cost: float) -> bool:
    """Whether the judge's dollars are known (`cost.budget.backend_priced`, given what the
    outcomes reported)."""
    info = describe(judge)
    return bool(backend_priced(info.name, info.model, reported=outcomes_cost))


def actual_cost(
    judge: TriggerJudge,
    calls: int,
    hits: int,
    usage: CallUsage,
    *,
    refused: int = 0,
    cached: CallUsage | None = None,
) -> CostBlock:
    """A trigger report's cost block (stopped_at_cap when runs were refused by the cap);
    `cached`: the usage the cache hits recorded when their calls were made (first paid)."""
    known = priced(judge, usage.cost_usd) or (calls == 0)
    first_paid: Dollars | None = None
    if cached is not None and hits:
        first_paid = cached.cost_usd if priced(judge, cached.cost_usd) else UNKNOWN
    info = describe(judge)
    line = cost_line(
        info.name,
        info.model,
        "trigger",
        calls=calls,
        hits=hits,
        tokens=usage,
        dollars=usage.cost_usd if known else None,
        first_paid=first_paid,
    )
    block = actual_block([line], notes=[notes.stopped(refused)] if refused else ())
    if refused:
        block.stopped_at_cap = True
    return block
