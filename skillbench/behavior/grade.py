"""Grade the runs of a behavior workspace: deterministic checks first, then one model judgement
per remaining expectation (quotes verified; K with `repeats`, the majority kept), else
UNGRADED — never guessed.

`grade_workspace_sync(skill_dir)` grades every run folder and writes each grading dialect (see
`skillbench.behavior.grade_dialects`). Pass rates count graded expectations only; the ungraded
count is always reported next to them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from skillbench.aio import blocking
from skillbench.backends.base import TextModel, TextRequest
from skillbench.behavior.checks import RunMaterial, run_check
from skillbench.behavior.grade_dialects import write_gradings
from skillbench.behavior.grade_prompt import GraderReply, Material, build_prompt, grader_request
from skillbench.behavior.grade_records import GradedExpectation, GradeSummary, RunGrade
from skillbench.behavior.grade_repeats import apply_replies, ask_repeatedly
from skillbench.behavior.grade_stored import (
    grader_label,
    stored_grader,
    stored_grading,
    stored_items,
)
from skillbench.behavior.options import GradeOptions
from skillbench.behavior.records import ExpectationCheck, expectation_checks
from skillbench.behavior.workspace import StoredRun, Workspace, evals_path, read_evals
from skillbench.cost import notes
from skillbench.cost.budget import Budget
from skillbench.cost.plan import CostPlan
from skillbench.documents import read_model
from skillbench.errors import CostCapReached, InputError
from skillbench.schemas import canonical as c
from skillbench.schemas import skill_creator as sc
from skillbench.schemas import writing_skills as ws

if TYPE_CHECKING:
    from skillbench.backends.cache import CallCache

Dialect = Literal["all", "skill-creator", "writing-skills"]
DEFAULT_GRADE_OPTIONS = GradeOptions()
# Seed 002 needs a 1–5 score per criterion: a machine check gets these placeholders, marked
# `score_source: "check"` in the file; they are never averaged as judgements (history counts
# model scores only).
CHECK_PASS_SCORE = 3
CHECK_FAIL_SCORE = 1
NO_MODEL = "not machine-checkable and no model grader (local backend): ungraded"
MODEL_CONVENTIONS = ("description_field", "progressive_disclosure", "type_alignment")
MAX_CONCURRENT = 4
ProgressFn = Callable[[int, int], None]


# ----- loading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvalCases:
    """The skill's cases (canonical) and each expectation's machine-checkable form."""

    path: Path
    cases: dict[str, c.Case]
    checks: dict[str, list[ExpectationCheck | None]]


def load_cases(skill_dir: str | Path) -> EvalCases:
    """`<skill>/evals/evals.json` in either dialect (read by `workspace.read_evals`, the one
    reader); InputError when missing or not evals. Grading and comparing both start here."""
    path = evals_path(skill_dir)
    if not path.is_file():
        raise InputError("no evals file (run `skillbench init` first)", path=path)
    evals = read_evals(path)
    return EvalCases(
        path=path,
        cases={str(case.id): case for case in evals.evals.cases},
        checks=expectation_checks(evals.model, path=path),
    )


def _read_model(path: Path, model: type[sc.SCMetrics] | type[sc.SCTiming]) -> Any:
    return read_model(path, model) if path.is_file() else None


def _is_text(data: bytes) -> bool:
    return b"\x00" not in data[:4096]


def run_material(run: StoredRun) -> Material:
    """Transcript, final reply and text outputs (metrics.json left out) as the grader sees them."""
    transcript = RunMaterial(run.dir, run.record.final_text).transcript() or ""
    outputs: dict[str, str] = {}
    if run.outputs_dir.is_dir():
        for path in sorted(p for p in run.outputs_dir.rglob("*") if p.is_file()):
            if path == run.metrics_path:
                continue
            data = path.read_bytes()
            name = path.relative_to(run.outputs_dir).as_posix()
            outputs[name] = (
                data.decode("utf-8", errors="replace")
                if _is_text(data)
                else f"(binary file, {len(data)} bytes)"
            )
    return Material(transcript=transcript, final_text=run.record.final_text, outputs=outputs)


# ----- conventions --------------------------------------------------------------------------


def output_skill_dir(run: StoredRun) -> Path | None:
    """The folder of the first SKILL.md among the run's outputs (a skill the run wrote)."""
    if not run.outputs_dir.is_dir():
        return None
    found = sorted(run.outputs_dir.rglob("SKILL.md"))
    return found[0].parent if found else None


def validator_conventions(skill_dir: Path) -> tuple[dict[str, ws.WSCheck], list[str]]:
    """(conventions the validator decides, conventions left to a model)."""
    from skillbench.validate.rules import validate_skill

    report = validate_skill(skill_dir)
    findings = [*report.errors, *report.warnings]

    def listed(prefixes: tuple[str, ...]) -> list[str]:
        return [f"{f.code}: {f.message}" for f in findings if f.code.startswith(prefixes)]

    decided: dict[str, ws.WSCheck] = {}
    front = listed(("FRONTMATTER_", "NAME_", "MISSING_RECOMMENDED", "SKILL_MD_MISSING"))
    blocking = [
        f for f in report.errors if f.code.startswith(("FRONTMATTER_", "NAME_", "SKILL_MD"))
    ]
    missing = any(f.code == "MISSING_RECOMMENDED_KEY" for f in findings)
    decided["frontmatter"] = ws.WSCheck(
        passed=not blocking and not missing,
        details="validator: " + ("; ".join(front) if front else "valid YAML, name+description"),
    )
    desc_errors = [f"{f.code}: {f.message}" for f in report.errors if f.code.startswith("DESC")]
    left = ["progressive_disclosure", "type_alignment"]
    if desc_errors:
        decided["description_field"] = ws.WSCheck(
            passed=False, details="validator: " + "; ".join(desc_errors)
        )
    else:
        left.insert(0, "description_field")
    skill_md = skill_dir / "SKILL.md"
    words = len(skill_md.read_text(encoding="utf-8", errors="replace").split())
    too_long = [f for f in findings if f.code == "SKILL_MD_TOO_LONG"]
    decided["token_efficiency"] = ws.WSCheck(
        passed=not too_long,
        details=f"validator: {words} words; "
        + ("SKILL.md exceeds 500 lines" if too_long else "SKILL.md within 500 lines"),
    )
    return decided, left


# ----- grading one run ----------------------------------------------------------------------


def _check_item(number: int, exp: c.Expectation, check: ExpectationCheck, run: StoredRun) -> Any:
    outcome = run_check(check, RunMaterial(run.dir, run.record.final_text))
    if outcome.passed is None:  # the check could not decide: ungraded, never a failure
        return GradedExpectation(
            number=number,
            text=exp.text,
            criterion=exp.criterion or exp.text,
            required=exp.required is not False,
            method="ungraded",
            evidence=f"ungraded: [{check.type} check] {outcome.evidence}",
        )
    return GradedExpectation(
        number=number,
        text=exp.text,
        criterion=exp.criterion or exp.text,
        required=exp.required is not False,
        method="check",
        passed=outcome.passed,
        score=CHECK_PASS_SCORE if outcome.passed else CHECK_FAIL_SCORE,
        evidence=f"[{check.type} check] {outcome.evidence}",
    )


def model_expectations(
    case: c.Case, checks: list[ExpectationCheck | None]
) -> list[tuple[int, str]]:
    """(number, text) of the expectations a model grades: those without a machine check."""
    return [
        (number, exp.text)
        for number, exp in enumerate(case.expectations, start=1)
        if (checks[number - 1] if number - 1 < len(checks) else None) is None
    ]


def grader_prompt(
    case: c.Case, checks: list[ExpectationCheck | None], material: Material, left: list[str]
) -> str:
    """The grader's prompt for one run: what `grade_run` asks and `plan_grade` counts."""
    return build_prompt(case.prompt, model_expectations(case, checks), material, conventions=left)


def left_conventions(run: StoredRun) -> list[str]:
    """The conventions a model must judge for a run (those the validator cannot)."""
    folder = output_skill_dir(run)
    return validator_conventions(folder)[1] if folder is not None else []


async def grade_run(
    run: StoredRun,
    case: c.Case,
    checks: list[ExpectationCheck | None],
    text_model: TextModel | None,
    *,
    repeats: int = 1,
) -> RunGrade:
    """Grade one run folder in memory (nothing is written here); the grader is asked `repeats`
    times and the majority kept (see `grade_repeats`)."""
    items: list[GradedExpectation] = []
    for number, exp in enumerate(case.expectations, start=1):
        check = checks[number - 1] if number - 1 < len(checks) else None
        if check is not None:
            items.append(_check_item(number, exp, check, run))
            continue
        items.append(
            GradedExpectation(
                number=number,
                text=exp.text,
                criterion=exp.criterion or exp.text,
                required=exp.required is not False,
                method="model" if text_model is not None else "ungraded",
                evidence="" if text_model is not None else NO_MODEL,
            )
        )
    grade = RunGrade(
        run=run,
        items=items,
        metrics=_read_model(run.metrics_path, sc.SCMetrics),
        timing=_read_model(run.timing_path, sc.SCTiming),
    )
    skill_dir = output_skill_dir(run)
    left: list[str] = []
    if skill_dir is not None:
        grade.conventions, left = validator_conventions(skill_dir)
    if text_model is None:
        grade.grader_note = "local backend: no model grader; only machine checks graded"
        grade.conventions_ungraded = {key: "needs a model (local backend)" for key in left}
        return grade
    material = run_material(run)
    wanted = [i.number for i in items if i.method == "model"]
    prompt = grader_prompt(case, checks, material, left)
    replies, problem = await ask_repeatedly(
        text_model, prompt, wanted, run_index=run.record.run_number, repeats=repeats
    )
    if not replies:
        grade.grader_note = grade.grader_problem = problem
        for item in items:
            if item.method == "model":
                item.method = "ungraded"
                item.evidence = f"ungraded: {problem}"
        grade.conventions_ungraded = {key: problem or "invalid reply" for key in left}
        return grade
    if problem:  # some repeats were invalid: the verdicts rest on the others
        grade.grader_note = f"{len(replies)} of {repeats} repeats gave a valid reply: {problem}"
    grade.reply = reply = replies[0]
    apply_replies(items, replies, material)
    judged = {conv.key: conv for conv in reply.conventions}
    for key in left:
        if key in judged:
            grade.conventions[key] = ws.WSCheck(
                passed=judged[key].passed, details=f"model: {judged[key].details}"
            )
        else:
            grade.conventions_ungraded[key] = "the model did not judge it"
    return grade


# ----- the workspace ------------------------------------------------------------------------


def _text_model(
    backend: str | None,
    model: str | None,
    use_cache: bool,
    cache_path: str | Path | None,
    budget: Budget,
) -> tuple[str, TextModel | None, Any]:
    from skillbench.backends.registry import backend_spec, open_cache, resolve_backend_name
    from skillbench.cost.budget import metered_text_model

    name = resolve_backend_name(backend)
    if backend_spec(name).offline:
        return name, None, None
    cache = open_cache(cache_path, enabled=use_cache)
    return name, metered_text_model(name, model=model, cache=cache, budget=budget), cache


async def grade_workspace(
    skill_dir: str | Path,
    options: GradeOptions = DEFAULT_GRADE_OPTIONS,
    *,
    workspace: str | Path | None = None,
    text_model: TextModel | None = None,
    progress: ProgressFn | None = None,
    budget: Budget | None = None,
) -> GradeSummary:
    """Grade every run of the workspace and write the gradings of `options.dialect` (all by
    default).

    A run's grading made by another grader (backend or model) is never replaced unless
    `options.force`:
    an InputError names the file and both graders before anything is graded.

    `text_model` (tests, notebooks) replaces the backend's model; `backend="local"` (the
    default) grades machine checks only and reports the rest UNGRADED. The grader's answers are
    metered by `budget` (a fresh, uncapped one when None) — calls, and call-cache hits at no
    cost — and `summary.cost` states them. Once the spend reaches the budget's cap, the runs not
    yet graded are left alone (not written; `summary.stopped_at_cap` counts them; a re-run
    resumes from the cache). `options.max_cost` (USD): refuse to start (CostCapError) when the plan's
    estimate exceeds it, then cap the spend (see `cost.limit`); inside a `cost_limit`, its
    budget is used.
    """
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.cost.budget import meter_text_model
    from skillbench.cost.limit import workflow_budget
    from skillbench.cost.plan import planning_cache
    from skillbench.cost.prices import price_table_date

    backend, model, dialect = options.backend, options.model, options.dialect
    use_cache, cache_path = options.use_cache, options.cache_path
    space = Workspace.for_skill(skill_dir, workspace)
    if not space.runs_dir.is_dir():
        raise InputError("workspace has no runs/ (execute the cases first)", path=space.runs_dir)
    cases = load_cases(skill_dir)

    def plan() -> CostPlan:
        with planning_cache(cache_path, enabled=use_cache) as planning:
            return plan_grade(
                skill_dir,
                workspace=workspace,
                backend=resolve_backend_name(backend),
                model=model,
                cache=planning,
                repeats=options.repeats,
            )

    budget = workflow_budget(budget=budget, max_cost=options.max_cost, plan=plan)
    mark = budget.meter.snapshot()
    cache = None
    chosen: TextModel | None
    if text_model is not None:
        name, chosen = (
            str(getattr(text_model, "name", "custom")),
            meter_text_model(text_model, budget),
        )
    else:
        name, chosen, cache = _text_model(backend, model, use_cache, cache_path, budget)
    runs = [r for config in (options.configs or space.configs()) for r in space.iter_runs(config)]
    summary = GradeSummary(space, name, getattr(chosen, "model", None) if chosen else None, [])
    if not options.force:
        wanted = {key for key, case in cases.cases.items() if case.expectations}
        check_replacing(
            [r for r in runs if r.record.case_id in wanted],
            {"backend": name, "model": summary.model},
        )
    gate = asyncio.Semaphore(MAX_CONCURRENT)
    done = 0

    async def one(run: StoredRun) -> RunGrade | None:
        nonlocal done
        case = cases.cases.get(run.record.case_id)
        if case is None:
            summary.notes.append(f"{run.dir}: case {run.record.case_id!r} is not in the evals")
            return None
        if not case.expectations:
            summary.notes.append(
                f"{run.dir}: case {run.record.case_id!r} has no expectations yet (a first "
                "draft): not graded; add expectations to evals/evals.json"
            )
            return None
        async with gate:
            if chosen is not None and not budget.allows():
                budget.refuse()
                summary.stopped_at_cap += 1
                return None
            try:
                checks = cases.checks.get(run.record.case_id, [])
                grade = await grade_run(run, case, checks, chosen, repeats=options.repeats)
            except CostCapReached:
                summary.stopped_at_cap += 1
                return None
        grade.grader = {"backend": name, "model": summary.model}
        write_gradings(grade, space, dialect)
        done += 1
        if progress is not None:
            progress(done, len(runs))
        return grade

    try:
        graded = await asyncio.gather(*(one(r) for r in runs))
    finally:
        if chosen is not None and text_model is None:
            await chosen.aclose()
        if cache is not None:
            cache.close()
    summary.runs = [g for g in graded if g is not None]
    summary.cost = budget.block(as_of=price_table_date(), since=mark)
    if summary.stopped_at_cap:
        summary.notes.append(notes.stopped(summary.stopped_at_cap, "run(s) not graded"))
    return summary


def plan_grade(
    skill_dir: str | Path,
    *,
    workspace: str | Path | None = None,
    backend: str,
    model: str | None = None,
    cache: CallCache | None = None,
    repeats: int = 1,
) -> CostPlan:
    """The plan of `grade_workspace`: `repeats` grader requests per run folder it would grade,
    built by the functions `grade_run` sends with (`grader_prompt`, `grader_request`); no model
    call."""
    from skillbench.backends.registry import backend_spec
    from skillbench.behavior.cost import key_model, planned_text_calls
    from skillbench.cost.estimate import get_estimator
    from skillbench.cost.plan import plan_block

    space = Workspace.for_skill(skill_dir, workspace)
    cases = load_cases(skill_dir)
    runs = [r for config in space.configs() for r in space.iter_runs(config)]
    asked = f", the grader asked {repeats} times each" if repeats > 1 else ""
    head = [f"plan: grade {len(runs)} run folder(s) on backend {backend}{asked}"]
    estimator = get_estimator(backend, model=model, cache=cache)
    if backend_spec(backend).offline:
        return CostPlan(head, plan_block([], notes=[f"{notes.OFFLINE} (machine checks only)"]), [])
    raw = key_model(backend, model)
    requests: list[TextRequest] = []
    for run in runs:
        case = cases.cases.get(run.record.case_id)
        if case is None or not case.expectations:  # not graded (see grade_workspace)
            continue
        checks = cases.checks.get(run.record.case_id, [])
        prompt = grader_prompt(case, checks, run_material(run), left_conventions(run))
        requests += [
            grader_request(raw, prompt, run_index=run.record.run_number, repeat=k)
            for k in range(repeats)
        ]
    line = planned_text_calls(estimator, "grade", requests, raw, GraderReply, cache)
    return CostPlan(head, plan_block([line], notes=[notes.RETRY]), [line])


def check_replacing(runs: list[StoredRun], grader: dict[str, Any]) -> None:
    """InputError (before any grading) when a run's grading.json was made by another grader
    (backend or model, or an unknown one): grading would replace it."""

    for run in runs:
        stored = stored_grader(run)
        if stored is None:
            continue
        if (stored.get("backend"), stored.get("model")) != (grader["backend"], grader["model"]):
            raise InputError(
                f"holds a grading by {grader_label(stored)}; grading with "
                f"{grader_label(grader)} would replace it (use --force, or force=True, to "
                "replace it)",
                path=run.grading_path,
                rule="other-grader",
            )


def read_gradings(skill_dir: str | Path, *, workspace: str | Path | None = None) -> GradeSummary:
    """The workspace's gradings as a `GradeSummary` (nothing is graded or written). The summary's
    backend names the grader(s) found; runs without a grading are listed with every
    expectation UNGRADED ("not graded yet")."""
    space = Workspace.for_skill(skill_dir, workspace)
    if not space.runs_dir.is_dir():
        raise InputError("workspace has no runs/ (execute the cases first)", path=space.runs_dir)
    cases = load_cases(skill_dir)
    runs: list[RunGrade] = []
    graders: set[str] = set()
    models: set[str] = set()
    missing = 0
    for config in space.configs():
        for run in space.iter_runs(config):
            grading = stored_grading(run)
            grader = dict((grading.model_extra or {}).get("grader") or {}) if grading else {}
            if grading is None:
                missing += 1
            else:
                graders.add(str(grader.get("backend") or "unknown"))
                if grader.get("model"):
                    models.add(str(grader["model"]))
            runs.append(
                RunGrade(
                    run=run,
                    items=stored_items(cases.cases.get(run.record.case_id), grading),
                    grader=grader,
                    metrics=grading.execution_metrics if grading else None,
                    timing=grading.timing if grading else None,
                )
            )
    backend = ", ".join(sorted(graders)) or "none (not graded)"
    summary = GradeSummary(space, backend, ", ".join(sorted(models)) or None, runs)
    summary.notes.append("the workspace's stored gradings, read as they are (nothing re-graded)")
    if missing:
        summary.notes.append(f"{missing} run(s) not graded yet: run `skillbench grade`")
    return summary


grade_workspace_sync = blocking(grade_workspace)
