"""Running the improvement loop end to end: backend, cache, outputs on disk, `--apply`.

`improve_skill` is what the CLI and the notebooks call: it loads the skill, the eval set and the
catalog, builds the backend's judge and proposer behind the call cache (so a re-run makes zero
calls), runs the loop, writes the outputs atomically and, with `apply=True`, writes the best
description into SKILL.md (only when it differs from the original; every other byte kept).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from skillbench.aio import blocking
from skillbench.cost.budget import Budget, MeteredTextModel, backend_priced
from skillbench.cost.plan import CostPlan
from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.improve.adopt import adoption_warning
from skillbench.improve.cost import plan_loop
from skillbench.improve.loop import (
    DEFAULT_IMPROVE,
    LoopResult,
    ProgressHook,
    check_split_covers,
    run_improve_loop,
)
from skillbench.improve.options import ImproveOptions
from skillbench.improve.proposers import HeuristicProposer, ModelProposer, Proposer
from skillbench.improve.splits import Split, split_from_record, stratified_split
from skillbench.io import write_json
from skillbench.schemas.loop import ImprovementHistory, LoopSummary
from skillbench.trigger.evalset import load_eval_set
from skillbench.trigger.options import EvalContext

HISTORY_FILE = "history.json"
SUMMARY_FILE = "loop_summary.json"
ROUND_REPORT = "round_{round:02d}.trigger.json"
_ROUND_FILE = re.compile(r"round_\d{2,}\.trigger\.json")


def check_out_dir(out: str | Path, *, label: str = "out") -> Path:
    """Check, before any work, that `out` can become the output folder: it is not an existing
    file and no part of its path is one, and its nearest existing ancestor is a writable folder.
    InputError(path=label) otherwise; nothing is created."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{str(folder)!r} is an existing file, not a folder", path=label)
    ancestor = folder.absolute()
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InputError(
            f"cannot create {str(folder)!r}: {str(ancestor)!r} is a file, not a folder", path=label
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InputError(
            f"cannot create {str(folder)!r}: {str(ancestor)!r} is not writable", path=label
        )
    return folder


def refuse_earlier_outputs(out: str | Path, *, label: str = "out") -> None:
    """InputError(path=label), before any work, when `out` is a folder that already holds files
    (an earlier run's outputs would be replaced without a word); the CLI skips this check under
    `--overwrite`, which is also how a stopped run resumes (its calls come from the cache)."""
    folder = Path(out)
    if not folder.is_dir() or next(os.scandir(folder), None) is None:
        return
    earlier = " (an earlier improve run's outputs)" if (folder / SUMMARY_FILE).exists() else ""
    raise InputError(
        f"{str(folder)!r} already holds files{earlier}; pass --overwrite to replace them (a "
        "re-run answers the calls already made from the call cache: how a run stopped by "
        "--max-cost resumes) or choose another --out",
        path=label,
        rule="no-clobber",
    )


def load_recorded_split(path: str | Path) -> Split:
    """The split recorded in a loop summary (a file, or a folder holding `loop_summary.json`),
    to rerun on exactly the same train / selection / test queries."""
    source = summary_file(path)
    summary = load_loop_summary(source)
    if summary.split is None:
        raise InputError("this loop summary records no split", path=source, field="split")
    return split_from_record(summary.split)


def write_loop_outputs(result: LoopResult, out_dir: str | Path) -> list[Path]:
    """Write each round's trigger report, `history.json`, then `loop_summary.json` (last, so a
    folder with a summary is complete); every write is atomic. Returns the paths written.

    A previous run's files in the folder are replaced: its summary is removed first (so no
    summary ever stands beside round files of another run), then its round reports beyond this
    run's rounds (`round_03`… after a 2-round run)."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SUMMARY_FILE).unlink(missing_ok=True)
    keep = {ROUND_REPORT.format(round=it.round) for it in result.summary.iterations}
    for entry in os.scandir(folder):
        if _ROUND_FILE.fullmatch(entry.name) and entry.name not in keep:
            Path(entry.path).unlink(missing_ok=True)
    written = [
        write_json(folder / ROUND_REPORT.format(round=it.round), report)
        for it, report in zip(result.summary.iterations, result.reports, strict=True)
    ]
    written.append(write_json(folder / HISTORY_FILE, result.history))
    written.append(write_json(folder / SUMMARY_FILE, result.summary))
    return written


def summary_file(path: str | Path) -> Path:
    """A loop summary's file: `path` itself, or `loop_summary.json` when it is a folder."""
    source = Path(path)
    return source / SUMMARY_FILE if source.is_dir() else source


def load_loop_summary(path: str | Path) -> LoopSummary:
    """Read a loop summary (a file, or a folder holding `loop_summary.json`); InputError names
    the file and the field of any problem."""
    return read_model(summary_file(path), LoopSummary, what="invalid loop summary")


def load_history(path: str | Path) -> ImprovementHistory:
    """Read an Improvement History file (InputError on any problem)."""
    return read_model(path, ImprovementHistory, what="invalid history")


def apply_best(result: LoopResult, skill_dir: str | Path) -> bool:
    """Write the chosen description (the best round, when the adoption rule lets it replace the
    original; see `skillbench.improve.adopt`) into SKILL.md when it differs from the original;
    returns whether the file was changed."""
    from skillbench.skill import write_description

    chosen = result.chosen.description
    if chosen == result.summary.original_description:
        return False
    write_description(skill_dir, chosen)
    return True


def make_proposer(
    backend: str, *, model: str | None, cache: Any, budget: Budget | None = None
) -> Proposer:
    """An offline backend (no model calls, see `BackendSpec.offline`) → the HeuristicProposer;
    any other → ModelProposer over the backend's TextModel behind the call cache (metered by
    `budget` when given)."""
    from skillbench.backends.registry import backend_spec, cached_text_model

    if backend_spec(backend).offline:
        return HeuristicProposer()
    text_model: Any = cached_text_model(backend, model=model, cache=cache)
    if budget is not None:
        text_model = MeteredTextModel(text_model, budget, priced=backend_priced(backend, model))
    return ModelProposer(text_model)


async def improve_skill(
    skill_dir: str | Path,
    evals: str | Path,
    options: ImproveOptions = DEFAULT_IMPROVE,
    *,
    out: str | Path | None = None,
    apply: bool = False,
    proposer: Proposer | None = None,
    progress: ProgressHook | None = None,
    budget: Budget | None = None,
) -> LoopResult:
    """Load, run the loop through the cached backend, write `out`, optionally apply; close all.

    `options` are the loop's and its trigger evals' (`ImproveOptions`); a recorded split in
    `options.split_from` (a loop summary file or folder) is loaded and must hold exactly the eval
    set's queries. `out` is checked before any call is made. `options.trigger.max_cost` (USD):
    refuse to start (CostCapError) when the estimate exceeds it; stop at the end of the round in
    which the spend reaches it (the outputs so far are written). `budget`: a `Budget` shared
    across runs (a notebook session) whose meter records this loop and whose cap stops it; no
    upfront refusal (that is `max_cost`'s). `proposer` replaces the backend's."""
    from skillbench.backends.registry import require_replay, resolve_backend_name
    from skillbench.cost.limit import workflow_budget
    from skillbench.skill import load_as_claude_code
    from skillbench.trigger.stack import judge_stack

    trigger = options.trigger
    if out is not None:
        check_out_dir(out)
    if trigger.project is not None:
        require_replay(trigger.backend, trigger.harness, "--project")
    if trigger.as_user is not None:
        require_replay(trigger.backend, trigger.harness, "--as-user")
    skill, load_warnings = load_as_claude_code(skill_dir)  # a YAML finding warns, as in trigger
    queries = load_eval_set(evals)
    if options.library_dir is not None:
        queries, options = with_neighbours(queries, skill.name, options)
        trigger = options.trigger
    split_from = options.split_from
    split: Split | None = None
    if isinstance(split_from, Split):
        split = split_from
        check_split_covers(split, queries, str(evals))
    elif split_from is not None:
        split = load_recorded_split(split_from)
        check_split_covers(split, queries, str(summary_file(split_from)), against=str(evals))
    from skillbench.trigger.catalog import resolve_catalog

    catalog, catalog_info = resolve_catalog(trigger.catalog_dir, exclude=skill.name)
    name = resolve_backend_name(trigger.backend)

    context = EvalContext(
        body=skill.body,
        catalog=tuple(catalog),
        folder=skill.path,
        content_hash=skill.content_hash,
        evals_file=evals,
    )

    def plan() -> CostPlan:
        return plan_loop(
            skill.name,
            skill.description,
            queries,
            split or _draw_split(queries, evals, options),
            options,
            context,
        )

    budget = workflow_budget(budget=budget, max_cost=trigger.max_cost, plan=plan)
    priced = backend_priced(name, trigger.model)
    async with judge_stack(trigger.but(escalate=False), budget, priced=priced) as stack:
        chosen = proposer or make_proposer(
            name, model=trigger.model, cache=stack.cache, budget=budget
        )
        try:
            result = await run_improve_loop(
                skill.name,
                skill.description,
                queries,
                stack.judge,
                chosen,
                options.but(split_from=split),
                context=context,
                progress=progress,
                budget=budget,
            )
        finally:
            model_obj = getattr(chosen, "model", None)
            if proposer is None and model_obj is not None:
                await model_obj.aclose()
    if result.summary.settings is not None:  # the header's catalog row: source and hash
        result.summary.settings.catalog_source = catalog_info.source
        result.summary.settings.catalog_sha256 = catalog_info.sha256
    for report in result.reports if load_warnings else ():
        report.warnings = [*load_warnings, *(report.warnings or [])]
    if options.library_dir is not None:
        from skillbench.library.neighbours import neighbour_steals

        result.summary.neighbour_steals = neighbour_steals(result.reports)
    if out is not None:
        write_loop_outputs(result, out)
    if apply:
        result.applied = apply_best(result, skill.path)
    return result


def _draw_split(queries: Any, evals: str | Path, options: ImproveOptions) -> Split:
    """The split the loop will draw (same seed, same fractions)."""
    return stratified_split(
        queries, options.fractions, seed=options.drawn_split_seed, source=str(evals)
    )


def planned_split(
    queries: Any, evals: str | Path, options: ImproveOptions = DEFAULT_IMPROVE
) -> Split:
    """The split a loop over `queries` will use: `options.split_from` (a Split, or a loop
    summary file or folder) when given, else the seeded stratified draw; checked against the
    eval set."""
    split_from = options.split_from
    if isinstance(split_from, Split):
        split = split_from
    elif split_from is not None:
        split = load_recorded_split(split_from)
    else:
        split = _draw_split(queries, evals, options)
    check_split_covers(split, queries, str(evals))
    return split


def improve_warnings(
    evals: str | Path,
    options: ImproveOptions = DEFAULT_IMPROVE,
    *,
    skill_dir: str | Path | None = None,
) -> list[str]:
    """What a dry run must say before the plan: a selection split too small for any round ever
    to be adopted at `options.adopt_alpha` (with the size it needs and a `--split` that reaches
    it). With `options.library_dir`, over the queries the plan uses (the eval set plus the
    neighbours' queries of the skill at `skill_dir`), so the split is the plan's."""
    queries = load_eval_set(evals)
    if options.library_dir is not None and skill_dir is not None:
        from skillbench.skill import load_as_claude_code

        name = load_as_claude_code(skill_dir)[0].name
        queries, options = with_neighbours(queries, name, options)
    split = planned_split(queries, evals, options)
    warning = adoption_warning(
        len(split.selection), len(queries), split.fractions, options.adopt_alpha
    )
    return [] if warning is None else [warning]


async def plan_improve(
    skill_dir: str | Path, evals: str | Path, options: ImproveOptions = DEFAULT_IMPROVE
) -> CostPlan:
    """The `--dry-run` of `improve_skill`: the same inputs loaded, the plan and the estimate
    returned; no model call."""
    from skillbench.skill import load_as_claude_code

    trigger = options.trigger
    skill = load_as_claude_code(skill_dir)[0]  # a YAML finding warns, never refuses
    queries = load_eval_set(evals)
    if options.library_dir is not None:
        queries, options = with_neighbours(queries, skill.name, options)
        trigger = options.trigger
    split = planned_split(queries, evals, options)
    from skillbench.trigger.catalog import resolve_catalog

    catalog, _info = resolve_catalog(trigger.catalog_dir, exclude=skill.name)
    context = EvalContext(
        body=skill.body,
        catalog=tuple(catalog),
        folder=skill.path,
        content_hash=skill.content_hash,
        evals_file=evals,
    )
    return plan_loop(skill.name, skill.description, queries, split, options, context)


improve_skill_sync = blocking(improve_skill)


def with_neighbours(
    queries: list[Any], target: str, options: ImproveOptions
) -> tuple[list[Any], ImproveOptions]:
    """`--library`: the eval set plus the neighbours' should-trigger queries as should-not-trigger
    ones, and the options with the library as the catalog (unless one was given)."""
    from skillbench.library.neighbours import neighbour_queries

    library = options.library_dir
    assert library is not None
    extra = neighbour_queries(library, target, queries)
    if options.trigger.catalog_dir in (None, "none"):
        options = options.but(trigger=options.trigger.but(catalog_dir=library))
    return [*queries, *extra], options
