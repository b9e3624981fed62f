"""The items of `trigger`, `grade` and `benchmark` as CI cases (`skillbench.reports.ci`): one per
query, per graded expectation of a run, per benchmark case. Not a subcommand module."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.reports.ci import CiCase, Outcome, line_of

if TYPE_CHECKING:
    from skillbench.behavior.grade_records import GradeSummary
    from skillbench.gate.report import GateReport
    from skillbench.schemas.trigger import TriggerReport


def _line_in(path: str | Path | None, text: str) -> int | None:
    """The line of `path` holding `text` as a JSON string (raw UTF-8 or \\u-escaped)."""
    if path is None:
        return None
    for needle in (json.dumps(text, ensure_ascii=False), json.dumps(text)):
        line = line_of(path, needle)
        if line is not None:
            return line
    return None


def trigger_cases(report: TriggerReport, evals: str | Path | None) -> list[CiCase]:
    """One case per query: passed; failed (rate on the wrong side of the threshold); error
    (unresolved: no run completed). Annotations point at the query's line in `evals`."""
    threshold = report.summary.threshold
    cases = []
    for r in report.results:
        expect = "trigger" if r.should_trigger else "not trigger"
        outcome: Outcome
        if r.unresolved:
            outcome, message = "error", f"unresolved: no run completed ({r.errors} errored)"
        elif r.passed:
            outcome, message = "passed", ""
        else:
            interval = "" if r.ci_low is None else f" [{r.ci_low:.2f}, {r.ci_high:.2f}]"
            instead = ", ".join(f"{k}×{v}" for k, v in (r.fired_instead or {}).items())
            message = (
                f"should {expect}: trigger rate {r.trigger_rate:.2f}{interval} over {r.runs} "
                f"runs (threshold {threshold:g})"
                + (f"; fired instead: {instead}" if instead else "")
                + (f"; {r.errors} runs errored" if r.errors else "")
            )
            outcome = "failed"
        cases.append(
            CiCase(
                group=report.skill_name,
                name=r.query,
                outcome=outcome,
                message=message,
                file=evals,
                line=_line_in(evals, r.query),
            )
        )
    return cases


def grade_cases(summary: GradeSummary, evals: str | Path | None) -> list[CiCase]:
    """One case per expectation of each run: passed, failed (with the evidence) or skipped
    (UNGRADED, with the reason). Annotations point at the expectation's line in `evals`."""
    cases = []
    for run in summary.runs:
        record = run.run.record
        group = f"{record.config}/{record.case_id}/run-{record.run_number}"
        for item in run.items:
            outcome: Outcome
            if item.passed is None:
                outcome, message = "skipped", f"UNGRADED: {item.evidence or 'not decided'}"
            elif item.passed:
                outcome, message = "passed", ""
            else:
                outcome = "failed"
                message = f"failed ({item.method}): {item.evidence or 'no evidence given'}"
            cases.append(
                CiCase(
                    group=group,
                    name=item.text,
                    outcome=outcome,
                    message=message,
                    file=evals if evals is not None else run.run.dir / "grading.json",
                    line=_line_in(evals, item.text),
                )
            )
    return cases


def benchmark_cases(paired: dict[str, Any], path: str | Path) -> list[CiCase]:
    """One case per eval case: passed (candidate not worse than baseline), failed (worse: a
    negative paired difference), error (not run under both configurations, nothing to pair)."""
    cand, base = paired.get("candidate"), paired.get("baseline")
    group = f"{cand} - {base}"
    cases = []
    for case in paired.get("cases", []):
        difference = case.get("difference")
        low, high = case.get("ci") or [None, None]
        interval = "" if low is None else f" [{low:+.2f}, {high:+.2f}]"
        worse = difference is not None and difference < 0
        cases.append(
            CiCase(
                group=group,
                name=str(case.get("case_id")),
                outcome="failed" if worse else "passed",
                message=f"{cand} is worse than {base}: difference {difference:+.2f}{interval}"
                if worse
                else "",
                file=path,
            )
        )
    for case_id in paired.get("unpaired_cases", []) or []:
        cases.append(
            CiCase(
                group=group,
                name=str(case_id),
                outcome="error",
                message=f"not run (and graded) under both {cand} and {base}: nothing to pair",
                file=path,
            )
        )
    return cases


def gate_cases(report: GateReport, evals: str | Path | None) -> list[CiCase]:
    """One case for the gate itself (failed when it regressed), then one per query, pointing at
    the query in `evals`: failed when its own paired test (Holm) shows a drop, passed with a
    warning when it dropped without being significant alone."""
    regressed = report.verdict == "regressed"
    cases = [
        CiCase(
            group=report.skill_name,
            name="gate",
            outcome="failed" if regressed else "passed",
            message=report.verdict_line if regressed else "",
        )
    ]
    for q in report.queries:
        bad, dropped = q.change == "regressed", q.change == "dropped"
        cases.append(
            CiCase(
                group=report.skill_name,
                name=q.query,
                outcome="failed" if bad else "passed",
                message=f"{q.pairs} paired runs: {q.detail}" if bad or dropped else "",
                file=evals,
                line=_line_in(evals, q.query),
                warn=dropped,
            )
        )
    return cases
