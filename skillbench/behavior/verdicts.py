"""One-line verdicts and report headers of the behavior questions: grading, benchmark, compare."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillbench.behavior.compare import CompareSummary
from skillbench.behavior.grade_records import GradeSummary
from skillbench.behavior.workspace import Workspace
from skillbench.reports.header import HeaderInputs, ReportHeader, Verdict, make_header
from skillbench.schemas import skill_creator as sc
from skillbench.schemas.cost import CostBlock

SAMPLE_RUNS = (
    "hand-written SAMPLE runs from data/runs/, replayed (not model output): their times and "
    "tokens are recorded values, not measurements"
)


BASELINES = frozenset({"baseline", "without_skill", "old_skill"})
"""Configurations run without the skill: their failures are expected, not the skill's."""


def skill_name(skill: str | Path) -> str:
    """The skill's name from its SKILL.md when `skill` is a skill folder, else `skill` itself."""
    from skillbench.errors import InputError
    from skillbench.skill import Skill

    try:
        return Skill.load(skill).name if Path(skill).is_dir() else str(skill)
    except (InputError, OSError):
        return Path(skill).name or str(skill)


def model_grader(backend: str) -> bool:
    """Whether the grader backend named in a summary grades with a model: its spec has a text
    model (the offline `local` has none: machine checks only). A backend not installed here is
    taken to have had one."""
    from skillbench.backends.registry import known_spec

    spec = known_spec(backend)
    return spec is None or spec.text_model is not None


def grading_verdict(summary: GradeSummary) -> Verdict:
    """ "with_skill: 40 of 42 graded expectations pass (95%); baseline: 8 of 30 (27%); 18
    UNGRADED"; fails (✗) when an expectation fails in a configuration that uses the skill."""
    counts: dict[str, list[int]] = {}
    failures: list[tuple[bool, str]] = []
    for r in summary.runs:
        rec = r.run.record
        cell = counts.setdefault(rec.config, [0, 0])
        cell[0] += r.passed
        cell[1] += len(r.graded)
        for i in r.items:
            if i.passed is False:
                text = f"{rec.config} / {rec.case_id} run {rec.run_number}: {i.text}"
                failures.append((rec.config in BASELINES, text))
    why = "" if model_grader(summary.backend) else " (no model grader)"
    ungraded = f"; {summary.ungraded} UNGRADED{why}" if summary.ungraded else ""
    if not any(total for _, total in counts.values()):
        return Verdict(ok=None, line=f"no expectation could be graded{ungraded}")
    parts = []
    for config in sorted(counts, key=lambda c: (c in BASELINES, c)):
        passed, total = counts[config]
        parts.append(
            f"{config}: {passed} of {total} graded expectations pass ({passed / total:.0%})"
            if total
            else f"{config}: none graded"
        )
    failures.sort(key=lambda item: item[0])  # the skill's own failures first
    ok = not any(not baseline for baseline, _ in failures)
    return Verdict(ok=ok, line="; ".join(parts) + ungraded, failures=[t for _, t in failures])


def grading_header(
    summary: GradeSummary,
    *,
    skill: str | Path,
    recorded: bool,
    eval_set: str | Path | None = None,
) -> ReportHeader:
    """The grading report's header (`skill`: a name or the skill's folder), with the grader's
    cost when the summary has it."""
    runs = len(summary.runs)
    return make_header(
        "Grading report",
        grading_verdict(summary),
        HeaderInputs(
            skill=skill_name(skill),
            eval_set=eval_set,
            backend=summary.backend,
            harness="machine checks, then one model judgement per remaining expectation",
            model=summary.model,
            runs=f"{runs} graded run(s)",
            skill_dir=skill,
            recorded=SAMPLE_RUNS if recorded or workspace_is_recorded(summary.workspace) else None,
            proxy=None
            if model_grader(summary.backend)
            else "no model grader: what checks cannot decide is UNGRADED",
            cost=summary.cost,
        ),
    )


def _fmt(value: Any) -> str:
    return "n/a" if value is None else f"{value:+.2f}"


def benchmark_verdict(doc: sc.SCBenchmark) -> Verdict:
    """ "with_skill − baseline = +0.42 pass rate (95% t CI +0.10 to +0.70, 3 cases): better"."""
    paired = (doc.model_extra or {}).get("paired") or {}
    mean = paired.get("mean_difference")
    low, high = paired.get("t_ci") or [None, None]
    n = paired.get("n_cases") or 0
    cand, base = paired.get("candidate"), paired.get("baseline")
    if mean is None:
        return Verdict(ok=None, line=f"no case was run under both {cand} and {base}")
    level = round(100 * float(paired.get("confidence", 0.95)))
    rough = "; rough: fewer than 10 cases" if paired.get("rough") else ""
    where = f"{cand} − {base} = {_fmt(mean)} pass rate"
    if low is None or high is None:
        line = f"{where} over {n} case(s): too few cases for an interval{rough}"
        return Verdict(ok=None, line=line)
    interval = f"({level}% CI {_fmt(low)} to {_fmt(high)}, {n} cases{rough})"
    failures = [
        f"{c['case_id']}: {cand} {c['candidate_mean']:.2f} vs {base} {c['baseline_mean']:.2f}"
        for c in paired.get("cases", [])
        if c.get("difference", 0) < 0
    ]
    if low > 0:
        return Verdict(ok=True, line=f"{cand} is better: {where} {interval}", failures=failures)
    if high < 0:
        return Verdict(ok=False, line=f"{cand} is worse: {where} {interval}", failures=failures)
    return Verdict(
        ok=None,
        line=f"no clear difference: {where} {interval}, the interval includes 0",
        failures=failures,
    )


def delta_text(doc: sc.SCBenchmark) -> str:
    """The run_summary delta as words: "pass rate +0.55, time +16.8 s, tokens +17418"."""
    delta = doc.run_summary.get("delta")
    if not isinstance(delta, dict):
        return "n/a"
    names = {"pass_rate": "pass rate", "time_seconds": "time", "tokens": "tokens"}
    units = {"time_seconds": " s"}
    return ", ".join(f"{names.get(k, k)} {v}{units.get(k, '')}" for k, v in delta.items())


def workspace_is_recorded(space: Workspace) -> bool:
    """True when any run of the workspace is a replayed SAMPLE (recorded fixture)."""
    return any(
        run.record.is_sample for config in space.configs() for run in space.iter_runs(config)
    )


def benchmark_header(
    doc: sc.SCBenchmark, *, backend: str | None, recorded: bool, model: str | None = None
) -> ReportHeader:
    """The benchmark report's header (with the recorded runs' cost when benchmark.json has it)."""
    meta = doc.metadata
    cost_data = (doc.model_extra or {}).get("cost")
    cost = CostBlock.model_validate(cost_data) if isinstance(cost_data, dict) else None
    return make_header(
        "Benchmark",
        benchmark_verdict(doc),
        HeaderInputs(
            skill=meta.skill_name,
            backend=backend,
            harness="graded behavior runs, paired by case",
            model=meta.executor_model or model,
            runs=f"{meta.runs_per_configuration} per case and configuration",
            skill_dir=meta.skill_path,
            recorded=SAMPLE_RUNS if recorded else None,
            cost=cost,
        ),
    )


def compare_verdict(summary: CompareSummary) -> Verdict:
    """ "with_skill wins 3 of 4 decided cases (sign test p = 0.62)"."""
    a, b = summary.config_a, summary.config_b
    decided = summary.case_wins + summary.case_losses
    p = f"exact sign test p = {summary.sign_test_p:.3g}"
    failures = [f"{c.case_id}: {b} preferred" for c in summary.cases if c.verdict == "b"]
    if decided == 0:
        return Verdict(
            ok=None, line=f"no case decided between {a} and {b} ({summary.case_ties} ties)"
        )
    line = (
        f"{a} wins {summary.case_wins} of {decided} decided cases against {b} "
        f"({summary.case_ties} ties; {p})"
    )
    if summary.sign_test_p < 0.05:
        ok = summary.case_wins > summary.case_losses
        return Verdict(ok=ok, line=line + ": significant at α 0.05", failures=failures)
    return Verdict(ok=None, line=line + ": not significant at α 0.05", failures=failures)


def compare_header(
    summary: CompareSummary, *, skill: str | Path, recorded: bool, runs: int | None = None
) -> ReportHeader:
    """The blind comparison's header (`skill`: a name or the skill's folder), with the judge's
    cost when the summary has it."""
    return make_header(
        "Blind A/B comparison",
        compare_verdict(summary),
        HeaderInputs(
            skill=skill_name(skill),
            backend=summary.backend,
            harness=f"{summary.judge} judge, both orders, seed {summary.seed}",
            model=summary.model,
            runs=None if runs is None else f"{runs} per case and configuration",
            skill_dir=skill,
            recorded=SAMPLE_RUNS if recorded else None,
            proxy=summary.note,
            cost=summary.cost,
        ),
    )
