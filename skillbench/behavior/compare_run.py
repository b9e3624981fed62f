"""One `compare` call end to end: resolve the judge, compare blind in both orders, then analyze.

Kept apart from `compare` (the comparison itself) because the analyzer reads comparison results:
`analyze` imports `compare`, and this module imports both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skillbench.aio import blocking
from skillbench.backends.base import TextModel
from skillbench.backends.registry import backend_spec, open_cache, resolve_backend_name
from skillbench.behavior.analyze import AnalysisResult
from skillbench.behavior.analyze import analyze as run_analyzer
from skillbench.behavior.compare import (
    Comparator,
    CompareSummary,
    ProgressFn,
    case_specs,
    compare_workspace,
    plan_compare,
    summary_path,
)
from skillbench.behavior.options import CompareOptions
from skillbench.behavior.workspace import Workspace
from skillbench.cost.budget import Budget, meter_text_model, metered_text_model
from skillbench.cost.limit import workflow_budget
from skillbench.cost.plan import CostPlan, planning_cache
from skillbench.cost.prices import price_table_date
from skillbench.errors import InputError
from skillbench.io import write_json

DEFAULT_COMPARE_OPTIONS = CompareOptions()


@dataclass
class CompareRun:
    """What `compare` produced: the summary and, unless skipped, the analyzer's result."""

    summary: CompareSummary
    analysis: AnalysisResult | None

    def __repr__(self) -> str:
        analysed = "" if self.analysis is None else f", analyzer {self.analysis.analyzer}"
        return f"CompareRun({self.summary!r}{analysed})"

    def _repr_html_(self) -> str:
        return self.summary._repr_html_()


async def compare(
    skill_dir: str | Path,
    config_a: str,
    config_b: str,
    options: CompareOptions = DEFAULT_COMPARE_OPTIONS,
    *,
    workspace: str | Path | None = None,
    text_model: TextModel | None = None,
    progress: ProgressFn | None = None,
    budget: Budget | None = None,
) -> CompareRun:
    """Everything the CLI and the notebook do: resolve the backend (local → the proxy), judge
    behind the call cache, write the files, then run the analyzer (`options.analyze=False` skips it).
    `text_model` replaces the backend's model (tests, plugins). `budget` (a fresh, uncapped one
    when None) meters the judge's and the analyzer's answers — calls, and call-cache hits at no
    cost — which the summary's `cost` states; once the spend reaches its cap, pairs not yet
    judged are skipped ("not judged: stopped at the cost cap") and the analyzer is not run.
    `options.max_cost` (USD): refuse to start (CostCapError) when the plan's estimate exceeds it,
    then cap the spend (see `cost.limit`); inside a `cost_limit`, its budget is used."""
    model, dialect, seed = options.model, options.dialect, options.seed
    space = _workspace(skill_dir, workspace)
    cases = case_specs(skill_dir)
    name = resolve_backend_name(options.backend) if text_model is None else text_model.name

    def plan() -> CostPlan:
        return plan_compare_run(
            skill_dir, config_a, config_b, options.but(backend=name), workspace=workspace
        )

    budget = workflow_budget(budget=budget, max_cost=options.max_cost, plan=plan)
    mark = budget.meter.snapshot()
    cache = None
    judge: TextModel | None = None
    if text_model is not None:
        judge = meter_text_model(text_model, budget)
    elif not backend_spec(name).offline:
        cache = open_cache(options.cache_path, enabled=options.use_cache)
        judge = metered_text_model(name, model=model, cache=cache, budget=budget)
    comparator = Comparator(
        workspace=space,
        cases=cases,
        config_a=config_a,
        config_b=config_b,
        judge=judge,
        backend=name,
        model=judge.model if judge is not None else None,
        dialect=dialect,
        seed=seed,
        budget=budget,
    )
    try:
        summary = await compare_workspace(comparator, workers=options.workers, progress=progress)
        result = None
        if options.analyze and not budget.stopped:
            result = await run_analyzer(space, summary, cases, model=judge, dialect=dialect)
            if result.analyzer == "model":  # the summary's cost now counts the analyzer's call
                summary.cost = budget.block(as_of=price_table_date(), since=mark)
                write_json(summary_path(space, config_a, config_b), summary)
        return CompareRun(summary, result)
    finally:
        try:
            if judge is not None and text_model is None:
                await judge.aclose()
        finally:
            if cache is not None:
                cache.close()


def _workspace(skill_dir: str | Path, workspace: str | Path | None) -> Workspace:
    space = Workspace.for_skill(skill_dir, workspace)
    if not space.root.is_dir():
        raise InputError(
            "workspace not found: run `skillbench init` and `skillbench run` first",
            path=space.root,
            field="--workspace",
        )
    return space


def plan_compare_run(
    skill_dir: str | Path,
    config_a: str,
    config_b: str,
    options: CompareOptions,
    *,
    workspace: str | Path | None = None,
) -> CostPlan:
    """The plan of `compare` with these options (`compare.plan_compare` over the comparator
    `compare` builds; the call cache as it is, never created); no model call. `options.backend`
    is the resolved backend name."""
    comparator = Comparator(
        workspace=Workspace.for_skill(skill_dir, workspace),
        cases=case_specs(skill_dir),
        config_a=config_a,
        config_b=config_b,
        judge=None,
        backend=str(options.backend),
        model=options.model,
        dialect=options.dialect,
        seed=options.seed,
    )
    with planning_cache(options.cache_path, enabled=options.use_cache) as cache:
        return plan_compare(comparator, cache=cache)


compare_sync = blocking(compare)
