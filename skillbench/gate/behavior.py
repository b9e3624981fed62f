"""`skillbench gate --behavior`: with_skill of the base skill vs with_skill of the head, paired
by case and run number.

Each side is a copy of its skill folder (the base materialised from git, the head copied from
the working tree) inside the report folder, given the same eval cases (the head's
`evals/evals.json`, or `--evals`), and a workspace of its own beside it: the user's skill
folder and workspace are never written. Both sides run the same cases and runs through
`run_cases` and are graded by `grade_workspace`, behind the call cache, metered by one budget
(the `--max-cost` guard). A run passes when every graded expectation of it passed (a run with
no graded expectation, or a failed run, is not paired); run k of a case under the base is
paired with run k under the head, and the gate's exact paired test decides (`build_behavior`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillbench.behavior.executors import Executor
from skillbench.behavior.workspace import EvalsFile, Workspace
from skillbench.calibration.binding import GraderStatus, calibration_path, grader_status
from skillbench.cost.budget import Budget
from skillbench.cost.plan import CostPlan
from skillbench.errors import InputError
from skillbench.gate.baseref import BaseSkill, materialise
from skillbench.gate.evalsource import HEAD_MARK, EvalSetChange, resolve_behavior_evals
from skillbench.gate.pairing import RunKey, holm_adjusted, pair_runs
from skillbench.gate.power import minimum_detectable_effect
from skillbench.gate.report import (
    GateQuery,
    GateReport,
    GateSide,
    decide,
    mde_sentence,
    pooled_alpha,
    query_change,
)
from skillbench.gate.run import GateOptions, _head
from skillbench.gate.scanned import scan_change

CONFIG = "with_skill"
CASES = ("case", "cases")
SAMPLES_WARNING = (
    "backend local: both sides REPLAYED RECORDED SAMPLE RUNS (hand-written, not model output): "
    "the same samples for base and head, so no change can show; use a model backend"
)
GRADING_NOTE = (
    "grading calls are not in the estimate: a grader prompt holds the run's outputs, which do "
    "not exist before the runs (machine-checked expectations cost nothing; --max-cost still "
    "caps the grading)"
)


@dataclass
class BehaviorSide:
    """One side's skill copy and workspace inside the report folder."""

    label: str
    folder: Path
    workspace: Workspace


def behavior_evals(skill_dir: Path, evals: str | Path | None) -> Path:
    """The eval cases both sides run: `evals`, else the head's `evals/evals.json`;
    InputError when missing (nothing is created)."""
    from skillbench.behavior.workspace import evals_path

    path = Path(evals) if evals is not None else evals_path(skill_dir)
    if not path.is_file():
        raise InputError(
            "no behavior eval cases (write evals/evals.json, or pass --evals)",
            path=path,
            field="--evals",
        )
    return path


def _read(path: Path) -> EvalsFile:
    from skillbench.behavior.workspace import read_evals

    evals = read_evals(path)
    if not evals.evals.cases:
        raise InputError("has no cases", path=path, field="cases")
    return evals


def prepare_side(label: str, source: Path, evals: Path, out: Path, name: str) -> BehaviorSide:
    """Copy the skill folder `source` to `<out>/behavior/<label>/<name>` with the shared eval
    cases (the head's `evals/` folder, for input files, and the evals file) in it."""
    from skillbench.behavior.workspace import copy_skill, evals_path

    root = out / "behavior" / label
    if root.exists():
        shutil.rmtree(root)
    folder = root / name
    copy_skill(source, folder, exclude=out)
    target = evals_path(folder)
    head_evals = evals.parent
    if target.parent.exists():
        shutil.rmtree(target.parent)
    if head_evals.name == target.parent.name:  # the skill's evals/ folder (input files)
        shutil.copytree(head_evals, target.parent, symlinks=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(evals, target)
    return BehaviorSide(label, folder, Workspace(root / "workspace"))


def plan_sides(
    sides: Sequence[BehaviorSide], evals: EvalsFile, options: GateOptions, runs: int
) -> CostPlan:
    """Both sides' run plans (cache hits free) as one; grading is named in a note."""
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.behavior.cost import plan_run
    from skillbench.cost.plan import plan_block, planning_cache

    backend = resolve_backend_name(options.trigger.backend)
    with planning_cache(options.trigger.cache_path, enabled=options.trigger.use_cache) as cache:
        plans = [
            plan_run(
                side.workspace,
                evals,
                skill_dir=side.folder,
                configs=[CONFIG],
                runs=runs,
                backend=backend,
                model=options.trigger.model,
                cache=cache,
            )
            for side in sides
        ]
    lines = [f"plan: behavior gate: base and head with_skill, {runs} runs per case each"]
    for side, plan in zip(sides, plans, strict=True):
        lines.extend(f"  {side.label}: {line}" for line in plan.lines)
    planned = [line for p in plans for line in p.planned]
    notes = [n for p in plans for n in (p.estimate.notes or [])]
    notes = [*dict.fromkeys(notes), GRADING_NOTE]
    return CostPlan(lines, plan_block(planned, notes=notes), planned)


def run_outcomes(runs: Sequence[Any]) -> dict[RunKey, bool | None]:
    """(case id, run number) → the run passed (every graded expectation passed), or None (the
    run failed, or nothing of it was graded)."""
    outcomes: dict[RunKey, bool | None] = {}
    for grade in runs:
        record = grade.run.record
        key = (str(record.case_id), int(record.run_number))
        if record.error or not grade.graded:
            outcomes[key] = None
        else:
            outcomes[key] = all(item.passed for item in grade.graded)
    return outcomes


def side_grader_status(skill_dir: Path, sides: list[BehaviorSide]) -> GraderStatus:
    """The calibration in the user's workspace (`<skill>-workspace/calibration.json`) checked
    against the sides' grader, prompt and rubric: the head's, or the base's when only the base
    has a model verdict ("machine-checked" when neither has)."""
    mine = calibration_path(Workspace.for_skill(skill_dir))
    statuses = [grader_status(s.folder, s.workspace.root, calibration=mine) for s in sides]
    for status in reversed(statuses):
        if status.state != "machine-checked":
            return status
    return statuses[-1]


class BehaviorGate:
    """One behavior gate: both sides prepared in the report folder, run, graded, paired."""

    def __init__(
        self,
        skill_dir: str | Path,
        options: GateOptions,
        out: str | Path,
        *,
        evals: str | Path | None = None,
        base_ref: str | None = None,
    ) -> None:
        from skillbench.gate.run import _side

        if options.runs == "planned":
            raise InputError(
                "--runs planned is for the trigger gate; give --behavior a number of runs",
                path="--runs",
            )
        self.skill_dir = Path(skill_dir)
        self.options = options
        self.runs = int(options.runs)
        self.out = Path(out)
        self.head_skill, self.warnings = _side(self.skill_dir)
        self.evals_file = behavior_evals(self.skill_dir, evals)
        self.base: BaseSkill = materialise(self.skill_dir, base_ref)
        self.base_skill = None if self.base.folder is None else _side(self.base.folder)[0]
        self.eval_set: EvalSetChange | None = None
        if self.base.folder is not None:  # the base's eval cases grade both sides (a change
            # cannot grade itself) unless --evals-from head
            self.evals_file, self.eval_set = resolve_behavior_evals(
                self.evals_file, self.skill_dir, self.base, evals_from=options.evals_from
            )
        self.evals = _read(self.evals_file)
        self.sides: list[BehaviorSide] = []
        self.grader_status: GraderStatus | None = None
        """The model grader's calibration (the user's workspace's calibration.json) as it
        applies to the head side's gradings; set by `run`."""

    def prepare(self) -> list[BehaviorSide]:
        """The two sides' copies (none without a base)."""
        if self.base.folder is None:
            return []
        name = self.skill_dir.resolve().name
        self.sides = [
            prepare_side("base", self.base.folder, self.evals_file, self.out, name),
            prepare_side("head", self.skill_dir, self.evals_file, self.out, name),
        ]
        return self.sides

    def plan(self) -> CostPlan:
        """Both sides' plan and estimate; no model call."""
        return plan_sides(self.sides or self.prepare(), self.evals, self.options, self.runs)

    def run(
        self, *, executor: Any = None, text_model: Any = None, budget: Budget | None = None
    ) -> GateReport:
        """Run, grade and pair both sides (blocking). `executor` (a factory: side label → Executor) and
        `text_model` (the grader) replace the backend's (tests, plugins)."""
        from skillbench.backends.registry import backend_spec, open_cache, resolve_backend_name
        from skillbench.behavior.grade import grade_workspace_sync
        from skillbench.behavior.options import GradeOptions, RunOptions
        from skillbench.behavior.run import run_cases
        from skillbench.behavior.workspace import init_workspace
        from skillbench.cost.limit import workflow_budget
        from skillbench.cost.prices import price_table_date

        o = self.options
        head_commit, dirty = _head(self.skill_dir, required=True)
        head = GateSide(label="head", ref="working tree", commit=head_commit, dirty=dirty,
                        skill_name=self.head_skill.name,
                        description=self.head_skill.description)  # fmt: skip
        base = GateSide(
            label="base", ref=self.base.ref, commit=self.base.commit,
            skill_name=None if self.base_skill is None else self.base_skill.name,
            description=None if self.base_skill is None else self.base_skill.description,
        )  # fmt: skip
        sides = self.sides or self.prepare()
        if not sides:
            line = (f"no base: {self.skill_dir} does not exist at {self.base.ref} (a new "
                    "skill), nothing to compare")  # fmt: skip
            return GateReport(
                kind="behavior", skill_name=self.head_skill.name, verdict="no base",
                verdict_line=line, alpha=o.alpha, power=o.power, runs=0, base=base, head=head,
                seed=o.trigger.seed, mde_line="no base: no test was made",
                warnings=self.warnings or None, scan=scan_change(None, self.skill_dir),
            )  # fmt: skip
        budget = workflow_budget(
            budget=budget or o.budget, max_cost=o.trigger.max_cost, plan=self.plan
        )
        mark = budget.meter.snapshot()
        backend = resolve_backend_name(o.trigger.backend)
        offline = backend_spec(backend).offline and executor is None
        cache = None if offline else open_cache(o.trigger.cache_path, enabled=o.trigger.use_cache)
        notes: list[str] = []
        outcomes = []
        try:
            for side in sides:
                init_workspace(side.folder, side.workspace.root)
                chosen: Executor | None = None if executor is None else executor(side.label)
                run_options = RunOptions(
                    configs=[CONFIG], runs=self.runs, backend=backend, model=o.trigger.model,
                    workers=o.trigger.workers or 2, timeout=o.trigger.timeout,
                )  # fmt: skip
                batch = run_cases(
                    side.workspace, self.evals, run_options, skill_dir=side.folder, cache=cache,
                    executor=chosen, budget=budget,
                )  # fmt: skip
                notes.extend(f"{side.label}: {n}" for n in batch.notes if "runs in" not in n)
                if batch.replayed_samples and SAMPLES_WARNING not in self.warnings:
                    self.warnings.append(SAMPLES_WARNING)
                if batch.missing:
                    notes.append(f"{side.label}: {len(batch.missing)} run(s) without a sample")
                grade_options = GradeOptions(
                    backend=backend, model=o.trigger.model, configs=[CONFIG], use_cache=o.trigger.use_cache,
                    cache_path=o.trigger.cache_path,
                )  # fmt: skip
                graded = grade_workspace_sync(
                    side.folder, grade_options, workspace=side.workspace.root,
                    text_model=text_model, budget=budget,
                )  # fmt: skip
                notes.extend(f"{side.label}: {n}" for n in graded.notes if "no expectations" in n)
                outcomes.append(run_outcomes(graded.runs))
            self.grader_status = side_grader_status(self.skill_dir, sides)
            if cache is not None:
                self.warnings.extend(cache.flush())
        finally:
            if cache is not None:
                cache.close()
        cost = budget.block(as_of=price_table_date(), since=mark)
        report = build_behavior(self, outcomes, base, head, cost=cost, notes=notes)
        report.scan = scan_change(self.base.folder, self.skill_dir)
        return report


def build_behavior(
    gate: BehaviorGate,
    outcomes: list[dict[RunKey, bool | None]],
    base: GateSide,
    head: GateSide,
    *,
    cost: Any,
    notes: list[str],
) -> GateReport:
    """The behavior gate's document: per case, run k of the base paired with run k of the
    head; the pooled exact McNemar test and each case's own (Holm), as the trigger gate."""
    from skillbench.reports.header import HeaderInputs, Verdict, make_header
    from skillbench.stats import mcnemar_exact

    o = gate.options
    cases = gate.evals.evals.cases
    rows = pair_runs([(str(c.id), True) for c in cases], outcomes[0], outcomes[1])
    adjusted = holm_adjusted(rows)
    half = pooled_alpha(o.alpha)
    queries = []
    compared = sum(1 for row in rows if row.pairs)
    for case, row, p_holm in zip(cases, rows, adjusted, strict=True):
        change, needed = query_change(row, p_holm, o.alpha, queries=compared, power=o.power)
        queries.append(
            GateQuery(
                query=f"{case.id}: {case.prompt}", should_trigger=True, pairs=row.pairs,
                base_rate=None if not row.pairs else round(row.base_passed / row.pairs, 4),
                head_rate=None if not row.pairs else round(row.head_passed / row.pairs, 4),
                delta=None if row.delta is None else round(row.delta, 4),
                regressed_runs=row.regressed, improved_runs=row.improved,
                p_value=row.p_value, p_holm=p_holm, change=change, runs_needed=needed,
            )
        )  # fmt: skip
    regressed = sum(r.regressed for r in rows)
    improved = sum(r.improved for r in rows)
    pairs = sum(r.pairs for r in rows)
    p = mcnemar_exact(regressed, improved)
    rates = [(r.base_passed + 0.5) / (r.pairs + 1) for r in rows if r.pairs]
    status = gate.grader_status
    j = status.attenuation if status is not None and not status.provisional else None
    mde = (
        minimum_detectable_effect(rates, gate.runs, alpha=half, power=o.power,
                                  attenuation=min(1.0, j or 1.0))
        if rates else None
    )  # fmt: skip
    mde_line = mde_sentence(mde, gate.runs, len(rates), o.power, unit=CASES, alpha=half)
    if j is not None and j < 1:
        mde_line += f" (a true change; the grader's attenuation J = {j:.3f} folded into the power)"
    dropped = sum(1 for q in queries if q.change == "regressed")
    rose = sum(1 for q in queries if q.change == "improved")
    verdict, line, ok = decide(
        regressed, improved, p, o.alpha, mde_line, dropped=dropped, rose=rose, unit=CASES
    )
    if gate.eval_set is not None and gate.eval_set.used == "head":
        line = f"{line} [{HEAD_MARK}]"
    if status is not None and status.provisional:
        line = f"{line} [{status.short()}]"
    if status is not None and status.state != "machine-checked":
        notes.append(status.line())
    if not pairs:
        notes.append("no run was graded on both sides: nothing was compared")
    base.pass_rate = round(sum(r.base_passed for r in rows) / pairs, 4) if pairs else None
    head.pass_rate = round(sum(r.head_passed for r in rows) / pairs, 4) if pairs else None
    report = GateReport(
        kind="behavior", skill_name=head.skill_name or "", verdict=verdict, verdict_line=line,
        ok=ok, alpha=o.alpha, power=o.power, runs=gate.runs, seed=o.trigger.seed, pairs=pairs,
        regressed=regressed, improved=improved, p_value=p, mde=mde, mde_line=mde_line,
        base=base, head=head, queries=queries, cost=cost, warnings=gate.warnings or None,
        notes=notes or None, eval_set=gate.eval_set,
    )  # fmt: skip
    failures = [f"regressed: {q.query}" for q in report.regressed_queries]
    header = make_header(
        f"Gate (behavior): {report.skill_name}", Verdict(ok, line, failures),
        HeaderInputs(
            skill=report.skill_name, eval_set=gate.evals_file, backend=o.trigger.backend, model=o.trigger.model,
            runs=f"{gate.runs} per case per side (with_skill)", cost=cost, skill_dir=gate.skill_dir,
        ),
    )  # fmt: skip
    if gate.eval_set is not None and gate.eval_set.used != "outside the repository":
        header = header.model_copy(update={"eval_set": gate.eval_set.header_text()})
    report.header = header.model_dump(mode="json", exclude_none=True)
    return report
