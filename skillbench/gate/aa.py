"""A/A calibration: the gate run K times with base = head on fresh runs.

Each repetition gives both sides seeds of their own (`run.aa_seed`), so every run is a new
sample and the two sides differ only by chance; every verdict other than "no change detected"
is a false alarm. The false-alarm rate is reported with its Wilson interval: a gate that is not
noise keeps it at or below alpha.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from skillbench.gate.run import PILOT_RUNS, GateOptions, GateRun, aa_seed, run_gate
from skillbench.schemas.common import Doc
from skillbench.schemas.cost import CostBlock
from skillbench.stats import wilson_interval


class AaRepetition(Doc):
    """One A/A gate."""

    repetition: int
    verdict: str
    p_value: float
    regressed: int
    improved: int
    runs: int


class AaReport(Doc):
    """`gate_aa.json`: K A/A gates and their false-alarm rate."""

    kind: str = "gate-aa"
    skill_name: str
    repetitions: int
    alpha: float
    false_alarms: int
    false_alarm_rate: float
    interval: tuple[float, float] = Field(description="Wilson 95% interval of the rate")
    false_regressions: int = Field(description="A/A gates that said 'regressed' (would exit 1)")
    runs: list[AaRepetition]
    verdict_line: str
    ok: bool
    cost: CostBlock | None = None
    header: dict[str, Any] | None = None


async def run_aa(
    skill_dir: str | Path, evals: str | Path, options: GateOptions, repetitions: int
) -> AaReport:
    """`repetitions` A/A gates of the working-tree skill; ok when the false-alarm rate's
    interval reaches down to alpha or below."""
    if repetitions < 1:
        raise ValueError("repetitions must be >= 1")
    gate = GateRun(skill_dir, evals, options)
    gate.choose_evals(None)  # base = head: the eval set is not under test; refused when vacuous
    if options.trigger.max_cost is not None:  # the cap holds for the whole calibration
        from skillbench.cost.limit import workflow_budget

        first = PILOT_RUNS if options.runs == "planned" else int(options.runs)
        sides = [(aa_seed(options.trigger.seed, k, "base"), aa_seed(options.trigger.seed, k, "head"))
                 for k in range(repetitions)]  # fmt: skip
        options.budget = workflow_budget(
            budget=None,
            max_cost=options.trigger.max_cost,
            plan=lambda: gate.plan_many([(gate.head, first, seeds) for seeds in sides]),
        )
    rows: list[AaRepetition] = []
    cost: CostBlock | None = None
    header = None
    capped = False
    for k in range(repetitions):
        if options.budget is not None and not options.budget.allows():
            capped = True  # the spend reached the cap: the repetitions made so far are reported
            break
        report = await run_gate(skill_dir, evals, options, aa=k, gate=gate)
        header = header or report.header
        if report.cost is not None:
            cost = report.cost if cost is None else cost.plus(report.cost)
        rows.append(
            AaRepetition(
                repetition=k, verdict=report.verdict, p_value=report.p_value,
                regressed=report.regressed, improved=report.improved, runs=report.runs,
            )
        )  # fmt: skip
    done = len(rows)
    if capped and cost is not None:
        cost.stopped_at_cap = True
    if not done:
        raise ValueError("no A/A repetition was made")
    alarms = sum(1 for r in rows if r.verdict != "no change detected")
    low, high = wilson_interval(alarms, done)
    rate = alarms / done
    ok = low <= options.alpha
    line = (
        f"A/A: {alarms}/{done} false alarms, rate {rate:.3f} "
        f"[{low:.3f}, {high:.3f}] (Wilson 95%) vs alpha {options.alpha:g}: "
        + ("calibrated" if ok else "MORE FALSE ALARMS THAN ALPHA")
        + (f" (stopped at the cost cap after {done} of {repetitions})" if capped else "")
    )
    return AaReport(
        skill_name=gate.head.name, repetitions=done, alpha=options.alpha,
        false_alarms=alarms, false_alarm_rate=round(rate, 4), interval=(low, high),
        false_regressions=sum(1 for r in rows if r.verdict == "regressed"), runs=rows,
        verdict_line=line, ok=ok, cost=cost, header=header,
    )  # fmt: skip
