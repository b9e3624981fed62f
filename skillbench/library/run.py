"""Route a whole library: every skill's trigger queries against every skill installed at once.

Every request holds the whole library (the first skill by name as `target`, the others as its
catalog: one skill set, so the replay harness captures Claude Code's request once and every
request shares one template), and one call per query-run names the skill that fired. A library
costs queries × runs calls, not skills × queries × runs. With the replay harness a request's key
is the template and the query, not the target, so `skillbench trigger SKILL --catalog LIBRARY`
shares these calls through the call cache. A run counts as a hit of its query when the skill it
was written for fired (`LibraryQuery.target`; for a should-not-trigger query, the skill whose
set holds it), which is what `--runs auto` settles.

The run reuses the trigger eval's parts: `_run_wave` (concurrency, batches, timeouts),
`QueryTally` (a run's first move: a skill fired, none, another tool first = undecided, error),
`SequentialRule` (`runs="auto"`: a query stops once its own skill's rate is settled), the
call cache and the cost cap.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Literal

from skillbench.aio import blocking, heap_frozen
from skillbench.backends.base import CallUsage, SkillEntry, TriggerJudge, TriggerRequest
from skillbench.backends.claude_cli.tested import cli_warnings
from skillbench.backends.describe import agent_view, captured_request, describe
from skillbench.backends.skill_install import cli_name
from skillbench.cost import notes as notes_of_cost
from skillbench.cost.plan import CostPlan
from skillbench.errors import InputError
from skillbench.library import confusion
from skillbench.library.discover import Library, LibraryQuery, load_library, without_evals
from skillbench.library.document import (
    NONE,
    LibraryConfig,
    LibraryListing,
    LibraryReport,
    QueryRouting,
)
from skillbench.library.listing import (
    agent_listing,
    as_listed,
    hidden_line,
    library_listing,
    listing_warnings,
)
from skillbench.library.overlap import overlap_pairs
from skillbench.redaction import redact
from skillbench.stats import SequentialRule
from skillbench.timestamps import utc_timestamp
from skillbench.trigger.cost import actual_cost, estimate_requests, refused_by_cap, runs_per_query
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.listing import BUDGET_ENV, DEFAULT_MODEL
from skillbench.trigger.options import DEFAULT_OPTIONS, TriggerOptions
from skillbench.trigger.report import QueryTally
from skillbench.trigger.run import (
    _run_wave,
    backend_info,
    backend_workers,
    harness_info,
    listing_model,
)
from skillbench.version import __version__

Runs = int | Literal["auto"]
ProgressCallback = Callable[[int, int], None]
PURPOSE = "library"
"""The purpose of the library's cost line, in the plan and in the report."""
PROXY_LISTING_NOTE = (
    "offline proxy: it reads descriptions directly, so each skill was shown to it as Claude "
    "Code's listing rule would list it at this budget (a name-only skill without its description)"
)
NOT_APPLIED_NOTE = (
    "listing: not applied by this harness: it sends every description in full, so the listing "
    "shown is Claude Code's rule for comparison, not what the model saw"
)
CHANGED_SET_NOTE = (
    "every request carries the whole library's listing: adding, removing or editing one skill "
    "changes the request of every query, so all of them are planned as new calls"
)


@contextlib.contextmanager
def listing_budget_env(budget: int | None) -> Iterator[None]:
    """`SLASH_COMMAND_TOOL_CHAR_BUDGET` set to `budget` for the judge's construction and the run
    (the capture and the claude-code sessions read it from the environment), then restored."""
    if budget is None:
        yield
        return
    before = os.environ.get(BUDGET_ENV)
    os.environ[BUDGET_ENV] = str(budget)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(BUDGET_ENV, None)
        else:
            os.environ[BUDGET_ENV] = before


def library_set(
    entries: Sequence[SkillEntry],
) -> tuple[SkillEntry, tuple[SkillEntry, ...]]:
    """(target, catalog) of every request: the first skill and the rest (one skill set, one
    catalog tuple whose digest is computed once; the plan and the run build the same keys)."""
    return entries[0], tuple(entries[1:])


def _queries(library: Library) -> list[LibraryQuery]:
    if not library.queries:
        raise InputError(
            "no skill of the library has a trigger eval set (<skill>/evals/trigger.json, "
            "<skill>/*.trigger.json or --evals DIR/<skill-name>.trigger.json)",
            path=library.root,
        )
    return library.queries


def check_listing_budget(budget: int | None) -> None:
    """`--budget`: a positive whole number of characters."""
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int) or budget < 1
    ):
        raise InputError("must be a positive number of characters", path="--budget")


def _listing(
    judge: TriggerJudge, entries: Sequence[SkillEntry], budget: int | None
) -> tuple[LibraryListing | None, str | None]:
    """The library's listing: read from the replay harness's captured request, else the
    listing rules of the judge's CLI applied (2.1.197's table when it runs none); the what-if
    and the cut by those rules, read from the CLI (`rules_for_judge`); (None, why) when the
    capture failed, or when the CLI's rules are needed and cannot be read."""
    from skillbench.backends.anthropic.listing_calibration import rules_for_judge

    info = describe(judge)
    env = dict(os.environ)
    if budget is not None:
        env[BUDGET_ENV] = str(budget)
    model = listing_model(judge)
    target, catalog = entries[0], tuple(entries[1:])
    if info.listing != "captured" and info.agent_title is not None:  # another agent's rules
        try:
            view = agent_view(judge, target, catalog)
        except Exception as exc:  # the runs report the same failure
            return (
                None,
                f"LISTING: unknown: {info.agent_title}'s request could not be captured ({exc})",
            )
        return agent_listing(entries, view), None
    try:
        rules, unread = rules_for_judge(judge, model), None
    except Exception as exc:  # the CLI's rules could not be read
        rules, unread = None, redact(str(exc))
    if info.listing == "captured":
        try:
            captured = captured_request(judge, target, catalog)
        except Exception as exc:  # the runs report the same failure
            return None, f"LISTING: unknown: Claude Code's request could not be captured ({exc})"
        env.update(captured.settings)
        found = library_listing(
            entries, model, env=env, captured=captured, rules=rules, predict=rules is not None
        )
        return found, None if unread is None else f"LISTING: no what-if or cut advice: {unread}"
    if rules is None:  # the CLI's listing is not known without its rules
        return None, f"LISTING: unknown: {unread}"
    return library_listing(entries, model, env=env, rules=rules), None


def budget_applies(judge: object) -> bool:
    """Whether Claude Code's listing budget decides what the judge is shown: its own request
    (the replay harness, the real CLI) or a proxy given the listed descriptions (`as_listed`);
    not a harness that sends every description in full (`minimal`) nor another agent."""
    info = describe(judge)
    return info.is_proxy or info.own_request


def listing_applies(judge: object) -> bool:
    """Whether the report's listing is what the judge was shown: Claude Code's (see
    `budget_applies`) or another agent's own, read from its captured request."""
    return budget_applies(judge) or describe(judge).agent_title is not None


def check_budget_applies(budget: int | None, applies: bool, harness: str | None) -> None:
    """`--budget` with a harness that does not apply Claude Code's listing: refused."""
    if budget is not None and not applies:
        raise InputError(
            f"the {harness or 'chosen'} harness does not apply Claude Code's listing budget (it "
            "sends every description in full, or is another agent with its own listing); use "
            "the replay harness, the claude-code backend or an offline proxy",
            path="--budget",
        )


def library_requests(
    queries: Sequence[LibraryQuery], entries: Sequence[SkillEntry], per_query: int, seed: int
) -> list[TriggerRequest]:
    """The requests of a fixed-runs library run, in order (the plan's and the run's)."""
    target, catalog = library_set(entries)
    return [
        TriggerRequest(target, catalog, query.text, run, seed)
        for query in queries
        for run in range(per_query)
    ]


async def run_library(
    library: Library,
    judge: TriggerJudge,
    options: TriggerOptions = DEFAULT_OPTIONS,
    *,
    listing_budget: int | None = None,
    embedder: str | None = "lexical",
    evals_dir: str | Path | None = None,
    progress: ProgressCallback | None = None,
) -> LibraryReport:
    """Route every query of `library` through `judge` (not closed here) and report, with
    `options`' runs, max_runs, confidence, threshold (`--runs auto`), seed, workers (None: the
    judge's) and timeout."""
    runs, max_runs, seed = options.runs, options.max_runs, options.seed
    confidence, threshold, timeout = options.confidence, options.threshold, options.timeout
    workers = options.workers if options.workers is not None else backend_workers(judge)
    check_listing_budget(listing_budget)
    queries = _queries(library)
    applies = listing_applies(judge)
    harness = harness_info(judge)
    check_budget_applies(listing_budget, budget_applies(judge), harness.name if harness else None)
    listing, listing_problem = _listing(judge, library.entries, listing_budget)
    notes: list[str] = []
    entries = library.entries
    if listing is not None and not applies:
        listing.applied = False
        notes.append(NOT_APPLIED_NOTE)
    if describe(judge).is_proxy and listing is not None:
        entries = as_listed(entries, listing)
        notes.append(PROXY_LISTING_NOTE)
    target, catalog = library_set(entries)
    by_folder = {cli_name(e): e.name for e in library.entries}
    auto = runs == "auto"
    per_query = max_runs if auto else int(runs)
    rule = SequentialRule(threshold=threshold, confidence=confidence, max_runs=max_runs)
    tallies = [QueryTally(EvalQuery(q.text, q.expected == q.target)) for q in queries]
    planned = per_query * len(queries)
    done = 0

    def advance(n: int = 1) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, planned)

    pending = list(range(len(queries)))
    refused = 0
    while pending:
        wave: list[tuple[int, TriggerRequest]] = []
        for i in pending:
            tally = tallies[i]
            size = rule.next_wave(tally.attempted) if auto else per_query - tally.attempted
            wave.extend(
                (i, TriggerRequest(target, catalog, queries[i].text, tally.attempted + r, seed))
                for r in range(size)
            )
        if not wave:
            break
        with heap_frozen():
            outcomes = await _run_wave(judge, [r for _, r in wave], workers, timeout, advance)
        for (i, _), outcome in zip(wave, outcomes, strict=True):
            if outcome.fired is not None:
                outcome.fired = by_folder.get(outcome.fired, outcome.fired)
            outcome.triggered = outcome.fired == queries[i].target  # its own skill, not the set's
            tallies[i].record(outcome, queries[i].target)
            refused += refused_by_cap(outcome)
        del wave, outcomes  # recorded: a 90,000-run wave's outcomes are not kept for the report
        if not auto:
            break
        still = []
        for i in pending:
            t = tallies[i]
            if t.attempted < max_runs and not rule.settled(t.triggers, t.completed, t.attempted):
                still.append(i)
            else:
                planned -= max_runs - t.attempted
        pending = still
    routed = [_routing(q, t) for q, t in zip(queries, tallies, strict=True)]
    return _report(
        library,
        judge,
        routed,
        tallies,
        listing=listing,
        listing_problem=listing_problem,
        notes=notes,
        refused=refused,
        config=LibraryConfig(
            runs=runs,
            max_runs=max_runs if auto else None,
            confidence=confidence,
            threshold=threshold,
            seed=seed,
            workers=workers,
            timeout_seconds=timeout,
            budget_chars=listing_budget,
            evals_dir=None if evals_dir is None else str(evals_dir),
        ),
        embedder=embedder,
    )


def _routing(query: LibraryQuery, tally: QueryTally) -> QueryRouting:
    fired: dict[str, int] = {}
    if tally.triggers:
        fired[query.target] = tally.triggers
    for name, n in tally.fired_instead.items():
        fired[name] = fired.get(name, 0) + n
    nothing = tally.completed - sum(fired.values())
    if nothing:
        fired[NONE] = nothing
    return QueryRouting(
        query=query.text,
        expected=query.expected,
        sources=query.sources,
        target=query.target,
        runs=tally.completed,
        undecided=tally.undecided,
        errors=tally.errors,
        fired=fired,
        error_messages=list(tally.error_messages) or None,
    )


def _report(
    library: Library,
    judge: TriggerJudge,
    routed: list[QueryRouting],
    tallies: Sequence[QueryTally],
    *,
    listing: LibraryListing | None,
    listing_problem: str | None,
    notes: list[str],
    refused: int,
    config: LibraryConfig,
    embedder: str | None,
) -> LibraryReport:
    names = [e.name for e in library.entries]
    per_skill = confusion.per_skill(names, routed, config.confidence, config.threshold)
    if listing is not None and listing.applied:
        state = {s.name: s.state for s in listing.skills}
        for skill in per_skill:
            skill.listing = state.get(skill.name)
    usage, cached = CallUsage(), CallUsage()  # cached: what the cache hits cost when first paid
    for tally in tallies:
        usage.add(tally.usage)
        cached.add(tally.cached_usage)
    calls = sum(t.calls for t in tallies)
    hits = sum(t.cache_hits for t in tallies)
    cost = actual_cost(judge, calls, hits, usage, refused=refused, cached=cached)
    for line in cost.lines:  # the plan's purpose (`estimate_requests(purpose="library")`)
        line.purpose = PURPOSE
    backend = backend_info(judge)
    warnings = [*cli_warnings(backend.versions), *library.warnings]
    untested = without_evals(library.untested)
    if untested:
        warnings.append(untested)
    if listing_problem:
        warnings.append(listing_problem)
    if listing is not None:
        warnings.extend(listing_warnings(listing))
    errors = sum(t.errors for t in tallies)
    attempted = sum(t.attempted for t in tallies)
    if attempted and errors == attempted:
        warnings.append(f"all {attempted} runs errored: no rate was measured")
    elif attempted and errors / attempted > 0.2:
        warnings.append(f"{errors} of {attempted} runs errored: rates rest on the others")
    if refused:
        warnings.append(notes_of_cost.stopped(refused, option="--max-cost"))
    harness = harness_info(judge)
    if harness is not None and harness.note:
        notes.insert(0, harness.note)
    return LibraryReport(
        library=str(library.root),
        library_sha256=library.sha256,
        skills=library.evals,
        untested=library.untested,
        backend=backend,
        harness=harness,
        config=config,
        queries=routed,
        matrix=confusion.build_matrix(names, routed),
        per_skill=per_skill,
        pairs=confusion.confused_pairs(routed, config.confidence),
        listing=listing,
        overlap=overlap_pairs(library.entries, embedder=embedder) if embedder else [],
        calls=calls,
        cache_hits=hits,
        cost=cost,
        warnings=warnings,
        notes=notes,
        created_at=utc_timestamp(),
        skillbench_version=__version__,
    )


async def route_library(
    library_dir: str | Path,
    options: TriggerOptions = DEFAULT_OPTIONS,
    *,
    evals_dir: str | Path | None = None,
    listing_budget: int | None = None,
    embedder: str | None = "lexical",
    progress: ProgressCallback | None = None,
) -> LibraryReport:
    """Everything `skillbench library DIR` does: read the library and its eval sets, build the
    backend's judge behind the call cache (and `options.max_cost`'s cap), route every query,
    close. ``listing_budget`` sets Claude Code's skill listing budget
    (`SLASH_COMMAND_TOOL_CHAR_BUDGET`) for the run; ``embedder`` (`lexical`, `local` or None) is
    the overlap pre-screen's. `options.catalog_dir` and `options.escalate` do not apply (the
    library is the catalog)."""
    from skillbench.cost.limit import active_budget, workflow_budget
    from skillbench.trigger.stack import judge_stack, with_default_workers

    check_listing_budget(listing_budget)
    library = load_library(library_dir, evals_dir=evals_dir)
    _queries(library)
    options = with_default_workers(options)
    with listing_budget_env(listing_budget):

        def plan() -> CostPlan:
            return plan_library(
                library_dir,
                options,
                evals_dir=evals_dir,
                listing_budget=listing_budget,
                embedder=None,
            )

        budget = None
        if options.max_cost is not None or active_budget() is not None:
            budget = workflow_budget(budget=None, max_cost=options.max_cost, plan=plan)
        # the library is its own catalog: --escalate does not apply
        async with judge_stack(options.but(escalate=False), budget) as stack:
            report = await run_library(
                library,
                stack.judge,
                options,
                listing_budget=listing_budget,
                embedder=embedder,
                evals_dir=evals_dir,
                progress=progress,
            )
            if report.cost is not None and budget is not None:
                report.cost.cap_usd = budget.cap_usd
            report.warnings.extend(stack.flush())
            return report


route_library_sync = blocking(route_library)


def plan_library(
    library_dir: str | Path,
    options: TriggerOptions = DEFAULT_OPTIONS,
    *,
    evals_dir: str | Path | None = None,
    listing_budget: int | None = None,
    embedder: str | None = "lexical",
) -> CostPlan:
    """The `--dry-run`: the requests the run sends, checked against the call cache (hits free)
    and estimated; the listing (Claude Code's rule) and the overlap pre-screen; no model call."""
    from skillbench.backends.anthropic.listing_calibration import rules_for_judge
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.cost.estimate import for_judge, get_estimator
    from skillbench.cost.plan import existing_cache, key_judge, plan_block

    check_listing_budget(listing_budget)
    library = load_library(library_dir, evals_dir=evals_dir)
    queries = _queries(library)
    name = resolve_backend_name(options.backend)
    model, runs, seed = options.model, options.runs, options.seed
    per_query = runs_per_query(runs, options.max_runs)
    with listing_budget_env(listing_budget):
        cache = existing_cache(options.cache_path, enabled=options.use_cache)
        try:
            judge_options = options.judge_options()
            estimator = get_estimator(name, model=model, cache=cache, **judge_options)
            keys, note = key_judge(name, model=model, cache=cache, options=judge_options)
            proxy = keys is not None and describe(keys).is_proxy
            listed_for = listing_model(keys) if keys is not None else model or DEFAULT_MODEL
            try:  # a plan reads no rules from the CLI: the ones read before, else the table
                rules = rules_for_judge(keys, listed_for, read=False) if keys else None
            except Exception:  # the CLI cannot tell its version: the runs will say why
                rules = None
            listing = library_listing(library.entries, listed_for, rules=rules)
            applies = listing_applies(keys) if keys is not None else options.harness != "minimal"
            budget_ok = budget_applies(keys) if keys is not None else options.harness != "minimal"
            check_budget_applies(listing_budget, budget_ok, options.harness)
            listing.applied = applies
            entries = library.entries
            if proxy:
                entries = as_listed(entries, listing)
            requests = library_requests(queries, entries, per_query, seed)
            if keys is not None:
                estimator = for_judge(keys, estimator, cache=cache)
            line = estimate_requests(requests, estimator, keys, purpose=PURPOSE)
        finally:
            if cache is not None:
                cache.close()
    notes = [n for n in (note,) if n]
    if line.cache_hits < len(requests):
        notes.append(
            f"{len(requests) - line.cache_hits} call(s) not in the call cache: {CHANGED_SET_NOTE}"
        )
    if runs == "auto":
        notes.append(notes_of_cost.RUNS_AUTO)
    skills = len(library.entries)
    lines = [
        f"plan: library routing of {library.root} on backend {name}"
        + (f" ({estimator.model})" if estimator.model else ""),
        f"  {skills} skill(s) installed at once, {skills - len(library.untested)} with an eval "
        f"set; {len(queries)} queries × {per_query} runs = {len(requests)} calls "
        f"({line.cache_hits} in the call cache)",
    ]
    untested = without_evals(library.untested)
    if untested:
        lines.append(f"  {untested}")
    hidden = hidden_line(listing)
    if not listing.applied:
        lines.append(f"  {NOT_APPLIED_NOTE}")
    else:
        lines.append(f"  listing: {hidden}" if hidden else "  listing: every skill in full")
        lines.append(f"  listing rule: {listing.rules}")
    if embedder:
        pairs = overlap_pairs(library.entries, embedder=embedder)
        lines.append(
            f"  overlap pre-screen ({embedder}): {len(pairs)} alike pair(s)"
            + ("" if pairs else " above the threshold")
        )
        lines.extend(f"    {p.a} ~ {p.b}: {p.similarity:.2f}" for p in pairs[:10])
    return CostPlan(lines, plan_block([line], notes=notes), [line])
