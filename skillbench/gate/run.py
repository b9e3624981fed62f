"""`skillbench gate`: the skill at a git ref (base) against the working tree (head), paired.

Both sides run the same queries with the same run indices and seed through one judge behind
the call cache; each run's outcome is recorded (`pairing.RecordingJudge`) and run k of a query
under the base is paired with run k under the head. The cache key holds what is sent (never a
path), so an unchanged base, and an unchanged head, are answered from the cache: re-running the
gate on an unchanged pull request makes no call. `runs="planned"` first runs a pilot of
`PILOT_RUNS` on both sides, plans the runs from the pooled pilot pass rates (`power.plan_runs`),
then extends both sides (the pilot's runs come back from the cache).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from skillbench.cost.plan import CostPlan
from skillbench.errors import InputError
from skillbench.gate.baseref import BaseSkill, head_state, materialise, repo_root
from skillbench.gate.evalsource import (
    HEAD_MARK,
    EvalSetChange,
    EvalsFrom,
    check_not_vacuous,
    resolve_evals,
)
from skillbench.gate.pairing import QueryPairs, RecordingJudge, holm_adjusted, pair_runs
from skillbench.gate.power import minimum_detectable_effect, plan_runs
from skillbench.gate.report import (
    GateQuery,
    GateReport,
    GateSide,
    QueryLevel,
    decide,
    mde_sentence,
    pooled_alpha,
    query_change,
)
from skillbench.gate.scanned import scan_change
from skillbench.limits import MAX_RUNS
from skillbench.schemas.cost import CostBlock, cost_summary
from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions

PILOT_RUNS = 4
PILOT_NOTE = (
    "--runs planned: the pilot's calls are included; the extended runs read the pilot's runs "
    "back from the cache (counted again as cache hits)"
)
DEFAULT_EFFECT = 0.15
DEFAULT_RUNS = 10


@dataclass
class GateOptions:
    """What the gate runs with (the CLI's flags): the trigger eval's own options (backend,
    model, harness, catalog, cache, seed, workers, timeout, threshold, `max_cost`, …) as one
    `TriggerOptions`, and what only the gate has."""

    trigger: TriggerOptions = field(default_factory=TriggerOptions)
    runs: int | Literal["planned"] = DEFAULT_RUNS
    effect: float = DEFAULT_EFFECT
    affected: float = 1.0
    power: float = 0.8
    alpha: float = 0.05
    evals_from: EvalsFrom = "base"
    budget: Any = None  # a Budget shared by several gates (an A/A calibration's repetitions)
    progress: Any = None


@dataclass
class _Side:
    """A side's skill as the eval needs it."""

    name: str
    description: str
    body: str
    folder: Path
    content_hash: str | None


def _side(folder: Path) -> tuple[_Side, list[str]]:
    from skillbench.skill import load_as_claude_code

    skill, warnings = load_as_claude_code(folder)
    if not skill.description.strip():
        raise InputError(
            "must be a non-empty string", path=folder / "SKILL.md", field="description"
        )
    return _Side(
        skill.name, skill.description, skill.body, skill.path, skill.content_hash
    ), warnings


def aa_seed(seed: int, repetition: int, side: str) -> int:
    """The seed of one side of one A/A repetition: a namespace of its own in every cache key
    (a seed is part of each trigger key), so each repetition makes fresh runs."""
    digest = hashlib.sha256(f"skillbench-aa:{seed}:{repetition}:{side}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 0 … 2⁶³ − 1


class GateRun:
    """One gate: load both sides, run them through one judge, pair, decide."""

    def __init__(self, skill_dir: str | Path, evals: str | Path, options: GateOptions) -> None:
        from skillbench.trigger.catalog import resolve_catalog
        from skillbench.trigger.evalset import load_eval_set

        self.skill_dir = Path(skill_dir)
        self.evals = Path(evals)
        self.options = options
        self.head, self.warnings = _side(self.skill_dir)
        self.head_queries: list[EvalQuery] = load_eval_set(evals)
        self.queries = self.head_queries
        self.evals_read = self.evals  # the file the queries were read from
        self.eval_set: EvalSetChange | None = None
        self.catalog, self.catalog_info = resolve_catalog(
            options.trigger.catalog_dir, exclude=self.head.name
        )

    def choose_evals(self, base: BaseSkill | None) -> None:
        """Grade both sides on the base's eval set (or the head's with --evals-from head, or
        the file as it is outside the repository; `base` None: an A/A calibration, the head's);
        InputError when it is vacuous (exit 2), before any call."""
        o = self.options
        where: str | Path = self.evals
        if base is not None:
            chosen = resolve_evals(
                self.evals, self.head_queries, root=repo_root(self.skill_dir),
                commit=base.commit, ref=base.ref, evals_from=o.evals_from,
            )  # fmt: skip
            self.queries, self.evals_read, self.eval_set = (
                chosen.queries, chosen.file, chosen.change
            )  # fmt: skip
            if chosen.change.used == "base":
                where = f"{self.evals} as at the base {base.ref} ({base.commit[:12]})"
        runs = MAX_RUNS if o.runs == "planned" else int(o.runs)
        check_not_vacuous(self.queries, runs, pooled_alpha(o.alpha), where=where)

    def _plan(self, side: _Side, runs: int, seed: int) -> CostPlan:
        from skillbench.trigger.cost import plan_trigger
        from skillbench.trigger.options import EvalContext

        o = self.options
        options = o.trigger.but(runs=runs, seed=seed)
        context = EvalContext(
            body=side.body, catalog=tuple(self.catalog), folder=side.folder,
            content_hash=side.content_hash,
        )  # fmt: skip
        return plan_trigger(side.name, side.description, self.queries, options, context)

    def plan(self, base: _Side | None, runs: int, seeds: tuple[int, int]) -> CostPlan:
        """Both sides' plan and estimate (cache hits free)."""
        from skillbench.cost.plan import plan_block

        plans = [self._plan(self.head, runs, seeds[1])]
        if base is not None:
            plans.insert(0, self._plan(base, runs, seeds[0]))
        lines = [f"plan: gate of {self.head.name!r}: base and head, {runs} runs per query each"]
        planned = [line for p in plans for line in p.planned]
        for p in plans:
            lines.extend(p.lines[1:])
        notes = [n for p in plans for n in (p.estimate.notes or [])]
        return CostPlan(lines, plan_block(planned, notes=notes), planned)

    def plan_many(self, gates: Sequence[tuple[_Side | None, int, tuple[int, int]]]) -> CostPlan:
        """Several gates' plans as one (an A/A calibration's repetitions)."""
        from skillbench.cost.plan import plan_block

        plans = [self.plan(base, runs, seeds) for base, runs, seeds in gates]
        lines = [*plans[0].lines, f"  × {len(plans)} gates, each on runs of its own"]
        planned = [line for p in plans for line in p.planned]
        notes = list(dict.fromkeys(n for p in plans for n in (p.estimate.notes or [])))
        return CostPlan(lines, plan_block(planned, notes=notes), planned)

    async def run_sides(
        self, judge: Any, base: _Side, head: _Side, runs: int, seeds: tuple[int, int]
    ) -> tuple[list[TriggerReport], list[RecordingJudge]]:
        """Both sides' trigger reports and recorders."""
        from skillbench.trigger.options import EvalContext
        from skillbench.trigger.run import run_trigger_eval

        o = self.options
        reports, recorders = [], []
        for side, seed in ((base, seeds[0]), (head, seeds[1])):
            recorder = RecordingJudge(judge)
            options = o.trigger.but(runs=runs, seed=seed)
            context = EvalContext(
                body=side.body, catalog=tuple(self.catalog), folder=side.folder,
                content_hash=side.content_hash, evals_file=self.evals_read,
                catalog_info=self.catalog_info,
            )  # fmt: skip
            report = await run_trigger_eval(
                side.name,
                side.description,
                self.queries,
                recorder,
                options,
                context=context,
                progress=o.progress,
            )
            reports.append(report)
            recorders.append(recorder)
        return reports, recorders

    def planned_runs(self, pairs: Sequence[QueryPairs]) -> tuple[int, list[str]]:
        """Runs per query planned from the pilot: each query's pass rate pooled over both sides
        (so the plan does not depend on which side did better) and shrunk toward ½ by half a
        run each way, so a unanimous pilot never claims a rate of exactly 0 or 1."""
        o = self.options
        rates = [
            (row.base_passed + row.head_passed + 0.5) / (2 * row.pairs + 1)
            for row in pairs
            if row.pairs
        ]
        if not rates:
            return PILOT_RUNS, ["no pilot run completed: the runs stay at the pilot's"]
        plan = plan_runs(
            rates, o.effect, alpha=pooled_alpha(o.alpha), power=o.power, affected=o.affected
        )
        runs = max(PILOT_RUNS, plan.runs or PILOT_RUNS)
        lines = plan.lines()
        if plan.runs is not None and plan.runs < PILOT_RUNS:
            lines.append(f"  the pilot's {PILOT_RUNS} runs per query already exceed it: kept")
        return runs, lines


def _head(skill_dir: Path, *, required: bool) -> tuple[str | None, bool | None]:
    """The head's commit and dirty flag; outside git an InputError unless not `required` (an
    A/A calibration needs no history)."""
    try:
        root = repo_root(skill_dir)
    except InputError:
        if required:
            raise
        return None, None
    return head_state(root, skill_dir.resolve())


def _seeds(seed: int, aa: int | None) -> tuple[int, int]:
    if aa is None:
        return seed, seed
    return aa_seed(seed, aa, "base"), aa_seed(seed, aa, "head")


async def run_gate(
    skill_dir: str | Path,
    evals: str | Path,
    options: GateOptions,
    *,
    base_ref: str | None = None,
    aa: int | None = None,
    gate: GateRun | None = None,
    base: BaseSkill | None = None,
) -> GateReport:
    """One gate: base (the skill at `base_ref`) vs head (the working tree). With `aa` (the
    repetition number of an A/A calibration), the base is the head itself and both sides get
    seeds of their own (`aa_seed`): fresh runs that differ only by chance."""
    from skillbench.cost.limit import refuse_plan, workflow_budget
    from skillbench.trigger.stack import judge_stack, with_default_workers

    gate = gate or GateRun(skill_dir, evals, options)
    o = options
    head_commit, dirty = _head(gate.skill_dir, required=aa is None)
    if aa is not None:
        base_side: _Side | None = gate.head
        base = BaseSkill("HEAD (A/A)", head_commit or "", gate.skill_dir)
        warnings: list[str] = []
    else:
        base = base or materialise(gate.skill_dir, base_ref)
        base_side, warnings = (None, []) if base.folder is None else _side(base.folder)
        if base.folder is not None:
            gate.choose_evals(base)
    seeds = _seeds(o.trigger.seed, aa)
    first_runs = PILOT_RUNS if o.runs == "planned" else int(o.runs)
    head = GateSide(label="head", ref="working tree", commit=head_commit, dirty=dirty,
                    skill_name=gate.head.name, description=gate.head.description)  # fmt: skip
    base_doc = GateSide(
        label="base", ref=base.ref, commit=base.commit,
        skill_name=None if base_side is None else base_side.name,
        description=None if base_side is None else base_side.description,
    )  # fmt: skip
    if base_side is None:
        line = f"no base: {gate.skill_dir} does not exist at {base.ref} (a new skill), nothing to compare"
        return GateReport(
            skill_name=gate.head.name, verdict="no base", verdict_line=line, alpha=o.alpha,
            power=o.power, runs=0, base=base_doc, head=head, seed=o.trigger.seed,
            mde_line="no base: no test was made", warnings=gate.warnings or None,
            scan=scan_change(None, gate.skill_dir),
        )  # fmt: skip
    # the one --max-cost guard: a shared budget (an A/A calibration's) was checked by its owner
    budget = workflow_budget(
        budget=o.budget,
        max_cost=o.trigger.max_cost,
        plan=lambda: gate.plan(base_side, first_runs, seeds),
    )
    gate.options = o = replace(o, trigger=with_default_workers(o.trigger))
    plan_lines: list[str] | None = None
    pilot_cost: CostBlock | None = None
    async with judge_stack(o.trigger, budget) as stack:
        judge = stack.judge
        runs = first_runs
        reports, recorders = await gate.run_sides(judge, base_side, gate.head, runs, seeds)
        if o.runs == "planned":
            pilot = pair_runs(_pairs_of(gate.queries), recorders[0].outcomes, recorders[1].outcomes)
            runs, plan_lines = gate.planned_runs(pilot)
            if runs > first_runs:
                pilot_cost = _combined_cost(reports)
                if o.budget is None and o.trigger.max_cost is not None:
                    refuse_plan(gate.plan(base_side, runs, seeds), o.trigger.max_cost)
                reports, recorders = await gate.run_sides(judge, base_side, gate.head, runs, seeds)
        warnings.extend(stack.flush())
    report = build_report(
        gate, reports, recorders, base_doc, head, runs=runs, plan=plan_lines, seed=o.trigger.seed,
        warnings=[*gate.warnings, *warnings],
    )  # fmt: skip
    if pilot_cost is not None and report.cost is not None:  # the pilot's calls were paid too
        report.cost = pilot_cost.plus(report.cost)
        report.cost.notes = [*(report.cost.notes or []), PILOT_NOTE]
    if budget.cap_usd is not None and report.cost is not None:
        report.cost.cap_usd = budget.cap_usd
    if aa is None:  # an A/A calibration's base is the head itself
        report.scan = scan_change(base.folder, gate.skill_dir)
    if report.header is not None and report.cost is not None:  # both sides' (and the pilot's)
        report.header["cost"] = cost_summary(report.cost)
        report.header["cost_detail"] = report.cost.model_dump(mode="json", exclude_none=True)
    return report


def _combined_cost(reports: Sequence[TriggerReport]) -> CostBlock | None:
    """Both sides' cost blocks added (None when a side has none)."""
    total: CostBlock | None = None
    for report in reports:
        if report.cost is None:
            return None
        total = report.cost if total is None else total.plus(report.cost)
    return total


def _pairs_of(queries: Sequence[EvalQuery]) -> list[tuple[str, bool]]:
    return [(q.text, q.should_trigger) for q in queries]


def build_report(
    gate: GateRun,
    reports: list[TriggerReport],
    recorders: list[RecordingJudge],
    base: GateSide,
    head: GateSide,
    *,
    runs: int,
    plan: list[str] | None,
    seed: int,
    warnings: list[str],
) -> GateReport:
    """The gate's document from both sides' reports and run outcomes."""
    from skillbench.reports.diff import diff_documents
    from skillbench.stats import mcnemar_exact

    o = gate.options
    rows = pair_runs(_pairs_of(gate.queries), recorders[0].outcomes, recorders[1].outcomes)
    adjusted = holm_adjusted(rows)
    by_query = [{r.query: r for r in rep.results} for rep in reports]
    queries = []
    compared = sum(1 for row in rows if row.pairs)
    for row, p_holm in zip(rows, adjusted, strict=True):
        change, needed = query_change(row, p_holm, o.alpha, queries=compared, power=o.power)
        b, h = by_query[0].get(row.query), by_query[1].get(row.query)
        queries.append(
            GateQuery(
                query=row.query, should_trigger=row.should_trigger, pairs=row.pairs,
                base_rate=None if not row.pairs else round(row.base_passed / row.pairs, 4),
                head_rate=None if not row.pairs else round(row.head_passed / row.pairs, 4),
                delta=None if row.delta is None else round(row.delta, 4),
                regressed_runs=row.regressed, improved_runs=row.improved,
                p_value=row.p_value, p_holm=p_holm,
                base_pass=None if b is None or not b.runs else b.passed,
                head_pass=None if h is None or not h.runs else h.passed,
                change=change, runs_needed=needed,
            )
        )  # fmt: skip
    regressed = sum(r.regressed for r in rows)
    improved = sum(r.improved for r in rows)
    pairs = sum(r.pairs for r in rows)
    p = mcnemar_exact(regressed, improved)
    rates = [(r.base_passed + 0.5) / (r.pairs + 1) for r in rows if r.pairs]
    half = pooled_alpha(o.alpha)
    mde = minimum_detectable_effect(rates, runs, alpha=half, power=o.power) if rates else None
    mde_line = mde_sentence(mde, runs, len(rates), o.power, alpha=half)
    dropped = sum(1 for q in queries if q.change == "regressed")
    rose = sum(1 for q in queries if q.change == "improved")
    verdict, line, ok = decide(
        regressed, improved, p, o.alpha, mde_line, dropped=dropped, rose=rose
    )
    if gate.eval_set is not None and gate.eval_set.used == "head":
        line = f"{line} [{HEAD_MARK}]"
    diff = diff_documents(reports[0], reports[1], labels=("base", "head"), alpha=o.alpha)
    level = QueryLevel(paired=diff.paired, base_passed=diff.a_passed, head_passed=diff.b_passed,
                       regressed=diff.regressed, improved=diff.improved, p_value=diff.p_value)  # fmt: skip
    for side, passed in ((base, diff.a_passed), (head, diff.b_passed)):
        side.passed_queries = passed
    base.pass_rate = round(sum(r.base_passed for r in rows) / pairs, 4) if pairs else None
    head.pass_rate = round(sum(r.head_passed for r in rows) / pairs, 4) if pairs else None
    cost = _combined_cost(reports)
    notes = [f"setting differs between sides: {w}" for w in diff.warnings]
    for rep in reports:
        warnings.extend(w for w in rep.warnings or [] if w not in warnings)
    report = GateReport(
        skill_name=head.skill_name or "", verdict=verdict, verdict_line=line, ok=ok,
        alpha=o.alpha, power=o.power, runs=runs,
        runs_mode="planned" if o.runs == "planned" else "fixed", plan=plan, seed=seed,
        pairs=pairs, regressed=regressed, improved=improved, p_value=p, mde=mde,
        mde_line=mde_line, query_level=level, base=base, head=head, queries=queries, cost=cost,
        warnings=warnings or None, notes=notes or None, eval_set=gate.eval_set,
    )  # fmt: skip
    report.header = gate_header(report, reports[1], gate.skill_dir).model_dump(
        mode="json", exclude_none=True
    )
    return report


def gate_header(report: GateReport, head: TriggerReport, skill_dir: Path) -> Any:
    """The usual trigger header of the head side, with the gate's verdict and failures."""
    from skillbench.trigger.verdict import trigger_header

    header = trigger_header(head, title=f"Gate: {report.skill_name}", skill_dir=skill_dir)
    failures = [f"regressed: {q.query}" for q in report.regressed_queries]
    update: dict[str, Any] = {
        "verdict": report.verdict_line,
        "ok": report.ok,
        "failures": failures,
        "runs": f"{report.runs} per query per side ({report.runs_mode})",
    }
    if report.eval_set is not None and report.eval_set.used != "outside the repository":
        update["eval_set"] = report.eval_set.header_text()
    return header.model_copy(update=update)
