"""The trigger eval: does the model pick the skill for the queries it should, and only those?

Each (query, run) becomes a ``TriggerRequest`` for a ``TriggerJudge``; runs go out concurrently
(bounded by ``workers``). A run that errors, raises or times out is counted in ``errors`` and never
as "not triggered"; ``runs`` counts completed runs; a query with no completed run is unresolved
and fails. ``runs="auto"`` samples each query in waves until ``stats.SequentialRule`` settles it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from skillbench import limits
from skillbench.aio import blocking, heap_frozen, run_sync
from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TriggerJudge,
    TriggerOutcome,
    TriggerRequest,
)
from skillbench.backends.claude_cli.tested import cli_warnings
from skillbench.backends.describe import (
    agent_listing,
    captured_request,
    describe,
    warm_up,
)
from skillbench.cost import notes as notes_module
from skillbench.cost.budget import Budget
from skillbench.cost.plan import CostPlan
from skillbench.errors import InputError
from skillbench.redaction import clip
from skillbench.schemas.cost import UNKNOWN
from skillbench.schemas.trigger import (
    BackendInfo,
    HarnessInfo,
    ListingInfo,
    RunConfig,
    TriggerQuery,
    TriggerReport,
)
from skillbench.stats import SequentialRule
from skillbench.timestamps import utc_timestamp
from skillbench.trigger.cost import actual_cost, eval_entries, plan_trigger, refused_by_cap
from skillbench.trigger.evalset import EvalQuery, file_sha256, load_eval_set
from skillbench.trigger.options import (
    DEFAULT_CONTEXT,
    DEFAULT_OPTIONS,
    EvalContext,
    Runs,
    TriggerOptions,
)
from skillbench.trigger.report import (
    QueryTally,
    build_result,
    build_summary,
    harness_warnings,
    runs_needed_to_settle,
)
from skillbench.version import __version__

__all__ = [
    "EvalContext",
    "EvalQuery",
    "TriggerOptions",
    "evaluate_description",
    "evaluate_description_sync",
    "evaluate_skill",
    "evaluate_skill_sync",
    "load_catalog",
    "load_eval_set",
    "run_sync",
    "run_trigger_eval",
    "run_trigger_eval_sync",
]

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done_runs, planned_runs)`` after every run (planned shrinks in auto mode)."""

SELF_BOUNDED_HEADROOM = 4  # workers per limiter slot for a judge that queues its own calls
DEFAULT_RUNS = limits.DEFAULT_RUNS
"""Runs per query by default (`skillbench.limits.DEFAULT_RUNS`, kept here for importers)."""

PROXY_NOTE = (
    "this is an offline proxy, not Claude: trigger rates come from an embedding router and only "
    "approximate how Claude would route these queries"
)
T = TypeVar("T")
LOG = logging.getLogger(__name__)


class SkillLike(Protocol):
    """What evaluate_description needs from a skill (skillbench.skill.Skill fits)."""

    @property
    def name(self) -> str: ...

    @property
    def body(self) -> str: ...


async def run_trigger_eval(
    skill_name: str,
    description: str,
    queries: Sequence[EvalQuery | TriggerQuery],
    judge: TriggerJudge,
    options: TriggerOptions = DEFAULT_OPTIONS,
    *,
    context: EvalContext = DEFAULT_CONTEXT,
    progress: ProgressCallback | None = None,
) -> TriggerReport:
    """Run every query ``options.runs`` times (or adaptively) against ``description``; report.

    The description evaluated may differ from the skill's SKILL.md (a candidate); nothing is
    written. The judge is not closed here: its owner closes it, and it is already built, so only
    the sampling options (runs … timeout) apply. ``options.workers`` None means the judge's own
    ``max_concurrency`` (see `backend_workers`). ``context`` holds the skill's body and folder
    (which the CLI harness installs whole), the competing catalog and the inputs' provenance.
    """
    runs, max_runs, confidence, threshold = (
        options.runs,
        options.max_runs,
        options.confidence,
        options.threshold,
    )
    seed, timeout = options.seed, options.timeout
    workers = options.workers if options.workers is not None else backend_workers(judge)
    limits.check_int(workers, "--workers", 1, limits.MAX_WORKERS)
    if timeout is not None and describe(judge).batch:
        raise InputError(
            "a per-run timeout cannot apply to a Message Batch, which is awaited as a whole: "
            "drop --timeout, or drop --batch to run live calls with a timeout each",
            path="--timeout",
        )
    items = [_as_eval_query(q, i) for i, q in enumerate(queries)]
    if not items:
        raise InputError("no queries to evaluate", field="queries")
    catalog = context.catalog
    target, others = eval_entries(
        skill_name, description, context.body, catalog, context.folder, context.content_hash
    )
    auto = runs == "auto"
    per_query = max_runs if auto else int(runs)
    tallies = [QueryTally(query) for query in items]
    tracker = _Progress(progress, per_query * len(items))
    rule = SequentialRule(threshold=threshold, confidence=confidence, max_runs=max_runs)
    warm_up(judge)  # e.g. the SDK import: not part of the measured wall time
    LOG.info(
        "trigger eval of %s: %d queries, runs %s, %d workers, judge %s",
        skill_name,
        len(items),
        runs,
        workers,
        describe(judge).name,
    )
    started = time.perf_counter()
    pending = list(tallies)
    refused = 0
    while pending:
        wave: list[tuple[QueryTally, TriggerRequest]] = []
        for tally in pending:
            size = rule.next_wave(tally.attempted) if auto else per_query - tally.attempted
            wave.extend(
                (tally, TriggerRequest(target, others, tally.query.text, tally.attempted + i, seed))
                for i in range(size)
            )
        if not wave:
            break
        requests = [request for _, request in wave]
        LOG.debug("trigger eval of %s: a wave of %d runs", skill_name, len(requests))
        with heap_frozen():  # no full collection of the SDK's objects stalls calls in flight
            outcomes = await _run_wave(judge, requests, workers, timeout, tracker.advance)
        for (tally, _), outcome in zip(wave, outcomes, strict=True):
            tally.record(outcome, skill_name)
            refused += refused_by_cap(outcome)
        if not auto:
            break
        still: list[QueryTally] = []
        for tally in pending:
            if tally.attempted < max_runs and not rule.settled(
                tally.triggers, tally.completed, tally.attempted
            ):
                still.append(tally)
            else:
                tracker.shrink(max_runs - tally.attempted)
        pending = still
    wall = time.perf_counter() - started

    results = [
        build_result(
            t, threshold=threshold, confidence=confidence, runs_planned=max_runs if auto else None
        )
        for t in tallies
    ]
    calls_saved = sum(max_runs - t.attempted for t in tallies) if auto else None
    summary = build_summary(
        results,
        tallies,
        threshold=threshold,
        confidence=confidence,
        seed=seed,
        calls_saved=calls_saved,
        wall_seconds=wall,
    )
    backend = backend_info(judge)
    cost = actual_cost(
        judge,
        summary.calls or 0,
        summary.cache_hits or 0,
        _usage(tallies),
        refused=refused,
        cached=_usage(tallies, cached=True),
    )
    if cost.dollars == UNKNOWN:
        summary.cost_usd = None  # an unknown price is never reported as 0
    warnings = harness_warnings(results)
    if refused:
        warnings.append(
            notes_module.stopped(
                refused,
                "run(s) not made (counted as errors, never as outcomes)",
                option="--max-cost",
            )
        )
    notes = _notes(items, backend, runs, threshold, confidence, skill_name, catalog)
    described = describe(judge)
    notes.extend(described.notes)  # e.g. a forgotten batch
    harness = described.harness
    listing, listing_problem = listing_info(judge, target, others)
    if harness is not None and harness.note:
        notes.insert(0, harness.note)
    escalated = described.escalated
    if escalated is not None:
        from skillbench.backends.registry import escalation_name

        notes.append(
            f"--escalate: {escalated} undecided run(s) re-run through the {escalation_name()} "
            "backend."
        )
    if listing is not None and listing.warning:
        warnings.insert(0, listing.warning)
    if listing_problem is not None:
        warnings.insert(0, listing_problem)
    warnings[:0] = cli_warnings(backend.versions)  # a CLI newer than every tested one
    config = RunConfig(
        runs=runs,
        max_runs=max_runs if auto else None,
        confidence=confidence,
        threshold=threshold,
        seed=seed,
        workers=workers,
        timeout_seconds=timeout,
        catalog=[entry.name for entry in others],
        evals_file=str(context.evals_file) if context.evals_file is not None else None,
        evals_sha256=_sha_or_none(context.evals_file),
    )
    return TriggerReport(
        skill_name=skill_name,
        description=description,
        summary=summary,
        results=results,
        backend=backend,
        config=config,
        harness=harness,
        listing=listing,
        catalog=context.catalog_info,
        warnings=warnings or None,
        notes=notes or None,
        cost=cost,
        created_at=utc_timestamp(),
        skillbench_version=__version__,
    )


run_trigger_eval_sync = blocking(run_trigger_eval)


async def evaluate_description(
    skill: SkillLike,
    description: str,
    queries: Sequence[EvalQuery | TriggerQuery],
    judge: TriggerJudge,
    options: TriggerOptions = DEFAULT_OPTIONS,
    *,
    catalog: Iterable[SkillEntry] = (),
    progress: ProgressCallback | None = None,
) -> TriggerReport:
    """Evaluate a candidate ``description`` for ``skill`` (SKILL.md is not touched): the skill's
    body, and its folder and content hash when it has them, make the eval's context."""
    context = EvalContext(
        body=skill.body,
        catalog=tuple(catalog),
        folder=getattr(skill, "path", None),
        content_hash=getattr(skill, "content_hash", None),
    )
    return await run_trigger_eval(
        skill.name, description, queries, judge, options, context=context, progress=progress
    )


evaluate_description_sync = blocking(evaluate_description)


async def evaluate_skill(
    skill_dir: str | Path,
    evals: str | Path,
    options: TriggerOptions = DEFAULT_OPTIONS,
    *,
    description: str | None = None,
    progress: ProgressCallback | None = None,
    budget: Budget | None = None,
) -> TriggerReport:
    """Everything the CLI and the notebook do: load the skill, the eval set and the catalog
    (`options.catalog_dir`), build the backend's judge behind the call cache, run, close.

    ``description`` replaces the SKILL.md description (a candidate; the file is untouched).
    ``options.max_cost`` (USD): refuse to start (CostCapError) when the estimate exceeds it, and
    stop starting calls once the spend reaches it (the report says "stopped at the cost cap").
    ``budget``: a `Budget` shared across runs (a notebook session): its meter records this run
    and its cap stops it; no upfront refusal (that is ``max_cost``'s).
    """
    from skillbench.backends.registry import require_replay
    from skillbench.cost.limit import active_budget, workflow_budget
    from skillbench.skill import load_as_claude_code
    from skillbench.trigger.stack import judge_stack, with_default_workers

    if options.project is not None:
        require_replay(options.backend, options.harness, "--project")
    if options.as_user is not None:
        require_replay(options.backend, options.harness, "--as-user")
    skill, load_warnings = load_as_claude_code(skill_dir)
    queries = load_eval_set(evals)
    text = skill.description if description is None else description
    if not text.strip():
        raise InputError("must be a non-empty string", field="description")
    from skillbench.trigger.catalog import resolve_catalog

    catalog, catalog_info = resolve_catalog(options.catalog_dir, exclude=skill.name)
    options = with_default_workers(options)

    def plan() -> CostPlan:
        return plan_trigger(skill.name, text, queries, options, _skill_context(skill, catalog))

    if budget is None and (options.max_cost is not None or active_budget() is not None):
        budget = workflow_budget(budget=None, max_cost=options.max_cost, plan=plan)
    context = EvalContext(
        body=skill.body,
        catalog=tuple(catalog),
        folder=skill.path,
        content_hash=skill.content_hash,
        evals_file=evals,
        catalog_info=catalog_info,
    )
    async with judge_stack(options, budget) as stack:
        report = await run_trigger_eval(
            skill.name, text, queries, stack.judge, options, context=context, progress=progress
        )
        if report.cost is not None and budget is not None:
            report.cost.cap_usd = budget.cap_usd
        if load_warnings:
            report.warnings = [*load_warnings, *(report.warnings or [])]
        if stack.cache is not None:  # answers a locked cache could not take: written, or said
            report.warnings = [*(report.warnings or []), *stack.flush()] or None
        from skillbench.trigger.verdict import trigger_header

        header = trigger_header(report, skill_dir=skill.path)
        report.header = header.model_dump(mode="json", exclude_none=True)
        return report


async def plan_skill_eval(
    skill_dir: str | Path,
    evals: str | Path,
    options: TriggerOptions = DEFAULT_OPTIONS,
    *,
    description: str | None = None,
) -> CostPlan:
    """The `--dry-run` of `evaluate_skill`: load the same files, return the plan and the
    estimate (cache hits free); no model call. Only the options that change the plan are read
    (backend, model, harness, runs, max_runs, seed, catalog, cache)."""
    from skillbench.skill import load_as_claude_code

    skill = load_as_claude_code(skill_dir)[0]
    queries = load_eval_set(evals)
    text = skill.description if description is None else description
    if not text.strip():
        raise InputError("must be a non-empty string", field="description")
    from skillbench.trigger.catalog import resolve_catalog

    catalog = resolve_catalog(options.catalog_dir, exclude=skill.name)[0]
    return plan_trigger(skill.name, text, queries, options, _skill_context(skill, catalog))


evaluate_skill_sync = blocking(evaluate_skill)


def _skill_context(skill: Any, catalog: Sequence[SkillEntry]) -> EvalContext:
    """What a plan of `skill`'s eval needs beside its options: body, folder, hash, catalog."""
    return EvalContext(
        body=skill.body,
        catalog=tuple(catalog),
        folder=skill.path,
        content_hash=skill.content_hash,
    )


def load_catalog(root: str | Path, *, exclude: str | None = None) -> list[SkillEntry]:
    """Every skill folder under ``root`` (see `skillbench.skill.find_skills`), as catalog
    entries, sorted by name; a skill named ``exclude`` (the target) is left out."""
    from skillbench.skill import find_skills, load_as_claude_code

    base = Path(root)
    if not base.is_dir():
        raise InputError("catalog folder not found", path=base)
    entries: dict[str, SkillEntry] = {}
    for folder in find_skills(base):  # .claude/skills etc. included; .git, node_modules skipped
        skill, _ = load_as_claude_code(folder, base)  # as Claude Code would load it
        if skill.name == exclude or skill.name in entries:
            continue
        entries[skill.name] = SkillEntry(
            skill.name,
            skill.description,
            skill.body,
            str(skill.path),
            skill.content_hash,
            root=str(base),
        )
    return [entries[name] for name in sorted(entries)]


def backend_workers(judge: TriggerJudge, fallback: int = 8) -> int:
    """The judge's declared `max_concurrency` (through cache wrappers), else `fallback`."""
    value = describe(judge).max_concurrency
    return value if value is not None else fallback


def backend_info(judge: TriggerJudge) -> BackendInfo:
    """Name, model, harness versions and proxy flag of the judge, for the report."""
    try:
        versions = {str(k): str(v) for k, v in judge.versions().items()}
    except Exception:  # a report must not fail because a version probe did
        versions = {}
    info = describe(judge)
    return BackendInfo(
        name=info.name,
        model=info.model,
        versions=versions,
        is_proxy=info.is_proxy,
        notes=PROXY_NOTE if info.is_proxy else None,
    )


def harness_info(judge: TriggerJudge) -> HarnessInfo | None:
    """Whether the model was asked Claude Code's own request (replay, claude-code) or not, as
    the judge declares it (`backends.describe`)."""
    return describe(judge).harness


def listing_model(judge: object) -> str:
    """The Claude model whose listing budget applies to `judge` (`listing.cli_budget`), the one
    choice every command makes the same way: the judge's model, else the one the CLI reported
    running, else `listing.DEFAULT_MODEL`; a proxy has no Claude model (its `model` is an
    embedding model's name), so `DEFAULT_MODEL`."""
    from skillbench.trigger.listing import DEFAULT_MODEL

    return describe(judge).listing_model or DEFAULT_MODEL


def listing_info(
    judge: TriggerJudge, target: SkillEntry, catalog: tuple[SkillEntry, ...]
) -> tuple[ListingInfo | None, str | None]:
    """How the target was listed to the model — read from the captured request (replay; the
    budget from the CLI's own log), Claude Code's rule applied (claude-code); the imitation and
    the proxy show it whole — and, when nothing was captured, why (no listing is claimed)."""
    from skillbench.trigger import listing

    info = describe(judge)
    if info.listing == "agent":  # a judge that reads its own request (the agent backends)
        return agent_listing(judge, target, catalog)
    model = listing_model(judge)
    if info.listing == "captured":
        try:
            captured = captured_request(judge, target, catalog)
        except Exception as exc:  # the runs already errored for the same reason
            return None, redact(
                f"LISTING: unknown: Claude Code's request could not be captured, so what the "
                f"model would see is not known ({exc})"
            )
        env = {**os.environ, **captured.settings}
        budget = captured.listing_budget
        return listing.from_request(captured.body, target, budget=budget, env=env), None
    if info.listing not in ("rule", "full", "proxy"):
        return None, None
    from skillbench.backends.anthropic.listing_calibration import rules_for_judge

    try:
        rules = rules_for_judge(judge, model)  # the CLI in use's, or 2.1.197's table
    except Exception as exc:  # the CLI's rules could not be read: no listing is claimed
        return None, redact(f"LISTING: unknown: {exc}")
    try:
        env = {**os.environ, **info.listing_env}
        would = listing.estimate(target, catalog, model, env, rules)
    except Exception as exc:  # an unreadable folder: the runs report it
        return None, redact(f"LISTING: unknown: Claude Code's listing rule not applied ({exc})")
    if info.listing == "rule":
        return would, None
    note = None
    if would.target != "full":
        note = (
            f"this harness showed the full description, but Claude Code itself would list "
            f"{target.name!r} {would.target} (budget {would.budget_chars or 0:,} characters; "
            f"{rules.label()})"
        )
    shown = ListingInfo(
        target="full" if info.listing == "full" else "not-applicable",
        source="harness",
        budget_chars=would.budget_chars,
        budget_source=would.budget_source,
        warning=note,
    )
    return shown, None


async def _run_wave(
    judge: TriggerJudge,
    requests: list[TriggerRequest],
    workers: int,
    timeout: float | None,
    on_done: Callable[[int], None],
) -> list[TriggerOutcome]:
    """Run one wave of requests.

    When the judge takes whole waves (`JudgeInfo.whole_waves`) and no per-run timeout is set,
    the whole wave goes to ``judge_many`` in one call (one embedding batch for the local proxy,
    one Message Batch with ``batch=True``; the call cache serves hits); a failure of that call
    turns every run of the wave into an error. Otherwise each run is its own task, each bounded by ``timeout``. A judge with
    its own ``limiter`` (`backends.limiter`: the API backend) gets every task at once when no
    ``timeout`` is set, so a run waiting out a ``retry-after`` gives its slot to another; with a
    ``timeout`` (a run's clock starts when it gets a worker), and for other judges, at most
    ``workers`` run at a time.
    """
    info = describe(judge)
    if timeout is None and info.whole_waves:
        try:
            outcomes = list(await judge.judge_many(requests))  # type: ignore[attr-defined]
        except Exception as exc:
            message = redact(f"{type(exc).__name__}: {exc}")
            outcomes = [TriggerOutcome(triggered=False, error=message) for _ in requests]
        if len(outcomes) != len(requests):
            message = f"backend returned {len(outcomes)} outcomes for {len(requests)} requests"
            outcomes = [TriggerOutcome(triggered=False, error=message) for _ in requests]
        on_done(len(requests))
        return [_checked(outcome) for outcome in outcomes]
    # `workers` coroutines pull from one index iterator: memory and scheduling stay O(workers),
    # not one task per run (50,000 queries x 100 runs would be 5 million tasks)
    done: list[TriggerOutcome | None] = [None] * len(requests)
    pending = iter(range(len(requests)))
    # a judge with its own limiter frees its slot while a call waits out a retry-after: give it
    # headroom (runs queued in the limiter, not holding a worker), still O(workers) coroutines
    self_bounded = timeout is None and info.self_limited
    width = SELF_BOUNDED_HEADROOM * workers if self_bounded else workers

    async def worker() -> None:
        for index in pending:
            done[index] = await _judge_once(judge, requests[index], timeout)
            on_done(1)

    await asyncio.gather(*(worker() for _ in range(min(width, len(requests)))))
    return [o if o is not None else TriggerOutcome(False, error="not run") for o in done]


async def _judge_once(
    judge: TriggerJudge, request: TriggerRequest, timeout: float | None
) -> TriggerOutcome:
    """One run; exceptions and timeouts become error outcomes (never "not triggered")."""
    try:
        if timeout is None:
            outcome = await judge.judge(request)
        else:
            outcome = await asyncio.wait_for(judge.judge(request), timeout)
    except TimeoutError:
        return TriggerOutcome(triggered=False, error=f"timeout after {timeout:g} s")
    except Exception as exc:
        return TriggerOutcome(triggered=False, error=redact(f"{type(exc).__name__}: {exc}"))
    return _checked(outcome)


def _checked(outcome: object) -> TriggerOutcome:
    """The outcome itself if well-formed (its error message redacted), else an error outcome."""
    if not isinstance(outcome, TriggerOutcome):
        return TriggerOutcome(
            triggered=False, error=f"backend returned {type(outcome).__name__}, not an outcome"
        )
    if outcome.error is not None:
        outcome.error = redact(outcome.error)
    return outcome


def redact(text: str, limit: int = 300) -> str:
    """Shorten a message and mask secrets (see skillbench.redaction)."""
    return clip(text, limit)


class _Progress:
    """Counts finished runs for the optional progress callback."""

    def __init__(self, callback: ProgressCallback | None, planned: int) -> None:
        self.callback, self.done, self.planned = callback, 0, planned

    def advance(self, runs: int = 1) -> None:
        self.done += runs
        self._emit()

    def shrink(self, skipped: int) -> None:
        if skipped > 0:
            self.planned -= skipped
            self._emit()

    def _emit(self) -> None:
        if self.callback is not None:
            self.callback(self.done, self.planned)


def _as_eval_query(query: EvalQuery | TriggerQuery, index: int) -> EvalQuery:
    if isinstance(query, EvalQuery):
        return query
    if isinstance(query, TriggerQuery):
        return EvalQuery(query.text, query.should_trigger, query.family, (index,))
    raise InputError(
        f"expected EvalQuery or TriggerQuery, got {type(query).__name__}", field=f"queries[{index}]"
    )


def _notes(
    items: Sequence[EvalQuery],
    backend: BackendInfo,
    runs: Runs,
    threshold: float,
    confidence: float,
    skill_name: str,
    catalog: Iterable[SkillEntry],
) -> list[str]:
    notes: list[str] = []
    if backend.is_proxy:
        notes.append(f"backend {backend.name!r}: {PROXY_NOTE}.")
    for query in items:
        if query.merged:
            positions = ", ".join(str(i) for i in query.sources)
            notes.append(
                f"query {query.text!r} appeared {len(query.sources)} times (items {positions}); "
                "merged into one."
            )
    if any(entry.name == skill_name for entry in catalog):
        notes.append(f"the catalog held a skill named {skill_name!r}; it was left out.")
    if runs != "auto":
        needed = runs_needed_to_settle(threshold, confidence)
        if needed is not None and runs < needed:
            notes.append(
                f"{runs} run(s) per query cannot settle a verdict at {confidence:.0%} confidence: "
                f"even a unanimous series has a Wilson interval crossing the threshold {threshold:g} "
                f"(that takes {needed} runs). Use --runs auto or more runs."
            )
    return notes


def _usage(tallies: Sequence[QueryTally], *, cached: bool = False) -> CallUsage:
    """The usage of the calls made (`cached`: of the answers served from the call cache)."""
    total = CallUsage()
    for tally in tallies:
        total.add(tally.cached_usage if cached else tally.usage)
    return total


def _sha_or_none(path: str | Path | None) -> str | None:
    if path is None:
        return None
    try:
        return file_sha256(path)
    except OSError:
        return None
