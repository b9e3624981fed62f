"""Why a query did (not) trigger: what the model did first in each cached run of it.

`explain_query` rebuilds the requests a trigger eval with these options sends for one query of
the eval set (`trigger.cost.trigger_requests`: the same target entry, catalog, runs and seed, so
the same call-cache keys, computed by `cost.plan.key_judge`) and reads their answers from the
call cache. No model call is made and nothing is captured: a replay template not stored yet means
the runs are not cached. Per run it shows the first move — the target, another skill (with its
description), another tool (with its input), a text reply (clipped, redacted) — and, once per
query, how the request listed the target: in full, truncated, by name only, or not at all
(`run.listing_info`: the captured request for the replay harness).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

from skillbench.aio import blocking
from skillbench.backends.base import SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.backends.describe import describe, stored_request
from skillbench.backends.skill_install import cli_name
from skillbench.errors import InputError
from skillbench.redaction import clip, redact_data
from skillbench.schemas.trigger import ListingInfo, TriggerReport
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions

TEXT_SHOWN = 300
"""Characters of a text reply shown (redacted)."""
MAX_EXPLAINED = 20
"""Failing queries a report explains at most."""

Move = Literal[
    "target", "other-skill", "disabled-skill", "other-tool", "text", "no-move", "not-cached"
]
MOVES: tuple[str, ...] = get_args(Move)


class RunMove(BaseModel):
    """The first move of one run, as the call cache holds it."""

    run_index: int
    move: Move
    skill: str | None = Field(default=None, description="the skill called (another skill)")
    skill_description: str | None = Field(
        default=None, description="that skill's description (catalog, else as listed)"
    )
    skill_listed: str | None = Field(
        default=None, description="how the request listed that skill: full, name-only, absent"
    )
    tool: str | None = Field(default=None, description="the other tool called first")
    tool_input: Any = Field(default=None, description="its input (redacted, cut)")
    text: str | None = Field(default=None, description="the text reply (clipped, redacted)")


class Explanation(BaseModel):
    """What the model did for one query of an eval set, run by run, from the call cache."""

    skill_name: str
    query: str
    should_trigger: bool
    backend: str
    model: str | None = None
    harness: str | None = None
    runs: list[RunMove]
    listing: ListingInfo | None = None
    listing_problem: str | None = None

    @property
    def cached_runs(self) -> int:
        """Runs whose answer the cache holds."""
        return sum(1 for r in self.runs if r.move != "not-cached")

    @property
    def passed_runs(self) -> int:
        """Cached runs that did what the query expects (the target fired, or did not)."""
        cached = [r for r in self.runs if r.move != "not-cached"]
        fired = sum(1 for r in cached if r.move == "target")
        return fired if self.should_trigger else len(cached) - fired


def find_query(queries: Sequence[EvalQuery], text: str, evals: str | Path) -> EvalQuery:
    """The eval-set query whose text is `text` (spaces at either end ignored); InputError
    naming --query and the closest queries otherwise."""
    wanted = text.strip()
    for query in queries:
        if query.text.strip() == wanted:
            return query
    close = difflib.get_close_matches(wanted, [q.text for q in queries], n=3, cutoff=0.4)
    hint = "; closest: " + " | ".join(repr(c) for c in close) if close else ""
    raise InputError(f"no query of {evals} has this text{hint}", path="--query")


def first_move(
    outcome: TriggerOutcome,
    run_index: int,
    catalog: Sequence[SkillEntry],
    listed: dict[str, str | None] | None,
) -> RunMove:
    """The first move of a cached outcome (replay's `detail.outcome`; the minimal harness's and
    other backends' fields otherwise). `listed`: name → description as the request listed it
    (None: by name only), when the listing is known."""
    detail = outcome.detail or {}
    kind = detail.get("outcome")
    text = str(detail.get("text") or "").strip()
    disabled = detail.get("disabled_skill")
    if kind is None:  # the minimal harness, claude-code, agents
        if outcome.triggered:
            kind = "target"
        elif outcome.fired:
            kind = "other-skill"
        elif disabled:
            kind = "disabled-skill"
        elif outcome.undecided or _other_tools(detail):
            kind = "other-tool"
        else:
            kind = "text" if text else "no-move"
    move = RunMove(run_index=run_index, move=kind if kind in MOVES else "no-move")
    if text:
        move.text = clip(text, TEXT_SHOWN)
    if kind in ("other-skill", "disabled-skill"):
        name = str(outcome.fired or disabled or "")
        move.skill = name
        entry = next((s for s in catalog if s.name == name), None)
        shown = listed.get(name) if listed is not None else None
        move.skill_description = clip(entry.description if entry else (shown or ""), 600) or None
        if listed is not None:
            move.skill_listed = (
                "absent"
                if name not in listed
                else ("full" if listed[name] is not None else "name-only")
            )
    elif kind == "other-tool":
        move.tool = outcome.undecided or detail.get("undecided_tool") or _other_tools(detail)[0]
        move.tool_input = redact_data(detail.get("tool_input"))
    return move


def _other_tools(detail: dict[str, Any]) -> list[str]:
    """The tools other than `Skill` a minimal-harness reply called (its `tool_uses`)."""
    return [str(t) for t in detail.get("tool_uses") or [] if t != "Skill"]


def listed_skills(
    judge: Any, target: SkillEntry, catalog: tuple[SkillEntry, ...]
) -> dict[str, str | None] | None:
    """name → description (None: name only) as the judge's request listed the skills: the
    stored replay template's listing; every skill in full for the minimal harness; None when
    not known. Never captures."""
    from skillbench.trigger import listing

    if describe(judge).listing == "full":
        return {s.name: s.description for s in (target, *catalog)}
    stored = stored_request(judge, target, catalog)
    text = listing.listing_text(stored.body) if stored is not None else None
    if text is None:
        return None
    folders = {cli_name(s) for s in (target, *catalog)}  # `folder (name)` lines by folder
    found: dict[str, str | None] = {}
    for name, description in listing.parse_listing(text, folders):
        found.setdefault(name, description)  # a user skill, before a same-named CLI line
    return found


async def explain_query(
    skill_dir: str | Path,
    evals: str | Path,
    query_text: str,
    options: TriggerOptions,
    *,
    description: str | None = None,
) -> Explanation:
    """What the model did first in each run of `query_text` (a query of `evals`) that a trigger
    eval with `options` made, read from the call cache (no model call; runs not cached are
    `not-cached`), and how its request listed the target."""
    found = await explain_queries(skill_dir, evals, [query_text], options, description=description)
    return found[0]


async def explain_queries(
    skill_dir: str | Path,
    evals: str | Path,
    query_texts: Sequence[str],
    options: TriggerOptions,
    *,
    description: str | None = None,
) -> list[Explanation]:
    """`explain_query` for several queries of `evals`, with one judge (in their order)."""
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.cost.plan import key_judge, planning_cache
    from skillbench.skill import load_as_claude_code
    from skillbench.trigger.catalog import resolve_catalog
    from skillbench.trigger.cost import runs_per_query, trigger_requests
    from skillbench.trigger.evalset import load_eval_set

    skill = load_as_claude_code(skill_dir)[0]
    queries = load_eval_set(evals)
    chosen = [find_query(queries, text, evals) for text in query_texts]
    text = skill.description if description is None else description
    catalog = resolve_catalog(options.catalog_dir, exclude=skill.name)[0]
    backend = resolve_backend_name(options.backend)
    runs = runs_per_query(options.runs, options.max_runs)
    with planning_cache(options.cache_path, enabled=options.use_cache) as cache:
        judge, note = key_judge(
            backend, model=options.model, cache=cache, options=options.judge_options()
        )
        if judge is None:
            raise InputError(f"the answers cannot be looked up: {note}", path="--backend")
        try:
            explained = []
            for query in chosen:
                requests = trigger_requests(
                    skill.name,
                    text,
                    [query],
                    body=skill.body,
                    catalog=catalog,
                    runs_per_query=runs,
                    seed=options.seed,
                    folder=skill.path,
                    content_hash=skill.content_hash,
                )
                explained.append(_explain(judge, backend, skill.name, query, requests))
        finally:
            await judge.aclose()
    return explained


def _explain(
    judge: Any, backend: str, skill_name: str, query: EvalQuery, requests: list[TriggerRequest]
) -> Explanation:
    """One query's runs read from the cache through `judge` (a `CachingJudge`)."""
    from skillbench.trigger.run import listing_info

    # keys straight from the judge (`CachingJudge.key`): a replay template not stored leaves
    # them unknown — nothing is captured here — so those runs read as not cached
    outcomes = [_cached(judge, r) for r in requests]
    target, others = requests[0].target, requests[0].catalog
    described = describe(judge)
    listed, found, problem = None, None, None
    if any(outcomes):
        listed = listed_skills(judge, target, others)
        found, problem = listing_info(judge, target, others)
    moves = [
        first_move(o, r.run_index, others, listed)
        if o is not None
        else RunMove(run_index=r.run_index, move="not-cached")
        for r, o in zip(requests, outcomes, strict=True)
    ]
    return Explanation(
        skill_name=skill_name,
        query=query.text,
        should_trigger=query.should_trigger,
        backend=backend,
        model=described.model,
        harness=described.harness_name,
        runs=moves,
        listing=found,
        listing_problem=problem,
    )


async def explain_failures(
    skill_dir: str | Path,
    evals: str | Path,
    report: TriggerReport,
    options: TriggerOptions,
    *,
    description: str | None = None,
    limit: int = MAX_EXPLAINED,
) -> list[Explanation]:
    """`explain_queries` for the failing queries of `report` (at most `limit`, in report
    order): the trigger report's "Why queries failed"."""
    failing = [r.query for r in report.results if not r.passed][:limit]
    if not failing:
        return []
    return await explain_queries(skill_dir, evals, failing, options, description=description)


def _cached(judge: Any, request: TriggerRequest) -> TriggerOutcome | None:
    """The cached answer of `request`, or None (no key yet, no cache, not stored)."""
    key = judge.key(request)
    if key is None or judge.cache is None:
        return None
    data = judge.cache.get(key)
    return TriggerOutcome.from_cache(data) if data is not None else None


def explanation_lines(explanation: Explanation) -> list[str]:
    """The explanation as plain lines (the CLI prints them; the report reuses them)."""
    from skillbench.trigger.listing import HOW

    e = explanation
    expect = "should trigger" if e.should_trigger else "should not trigger"
    lines = [f"query ({expect}): {e.query}"]
    if e.listing is not None:
        shown = f"; as shown: {e.listing.shown}" if e.listing.shown else ""
        lines.append(f"  target {e.skill_name!r} {HOW[e.listing.target]}{shown}")
        if e.listing.warning:
            lines.append(f"  note: {e.listing.warning}")
    elif e.listing_problem:
        lines.append(f"  {e.listing_problem}")
    cached = e.cached_runs
    lines.append(f"  {e.passed_runs}/{cached} cached run(s) as expected")
    for run in e.runs:
        lines.append(f"  run {run.run_index}: {_move_text(run, e.skill_name)}")
    return lines


def _move_text(run: RunMove, target: str) -> str:
    if run.move == "not-cached":
        return "not in the call cache"
    if run.move == "target":
        return f"called the target skill {target!r}"
    if run.move in ("other-skill", "disabled-skill"):
        what = "a disabled skill" if run.move == "disabled-skill" else "another skill"
        listed = f" (listed: {run.skill_listed})" if run.skill_listed else ""
        about = f" — {run.skill_description}" if run.skill_description else " (no description)"
        return f"called {what}, {run.skill!r}{listed}{about}"
    if run.move == "other-tool":
        given = "" if run.tool_input is None else f" with {json.dumps(run.tool_input)[:300]}"
        return f"called another tool first, {run.tool}{given}"
    if run.move == "text":
        return f"answered in text: {run.text!r}"
    return "no skill, no tool, no text"


explain_failures_sync = blocking(explain_failures)
