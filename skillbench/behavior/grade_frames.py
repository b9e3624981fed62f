"""Tables (pandas DataFrames) of gradings and benchmarks, for notebooks and reports."""

from __future__ import annotations

from typing import Any

import pandas as pd

from skillbench.behavior.grade_records import GradeSummary
from skillbench.schemas import skill_creator as sc


def expectations_frame(summary: GradeSummary) -> pd.DataFrame:
    """One row per (run, expectation): verdict, method, score and evidence (raw text; display it
    through an escaping renderer such as `reports.notebook.show_table`)."""
    rows = []
    for r in summary.runs:
        rec = r.run.record
        for i in r.items:
            rows.append(
                {
                    "config": rec.config,
                    "case": rec.case_id,
                    "run": rec.run_number,
                    "expectation": i.text,
                    "required": i.required,
                    "method": i.method,
                    "verdict": "UNGRADED" if i.passed is None else ("pass" if i.passed else "FAIL"),
                    "score": i.score,
                    "quote verified": i.quote_verified,
                    "evidence": i.evidence,
                }
            )
    return pd.DataFrame(rows)


def pass_rate_frame(summary: GradeSummary) -> pd.DataFrame:
    """Pass rate by case and configuration over graded expectations, with the counts shown."""
    rows = []
    for r in summary.runs:
        rec = r.run.record
        rows.append(
            {
                "case": rec.case_id,
                "config": rec.config,
                "runs": 1,
                "passed": r.passed,
                "graded": len(r.graded),
                "ungraded": len(r.ungraded),
            }
        )
    if not rows:
        return pd.DataFrame(columns=["case", "config", "runs", "passed", "graded", "ungraded"])
    table = pd.DataFrame(rows).groupby(["case", "config"], as_index=False).sum()
    table["pass rate (graded)"] = [
        round(p / g, 3) if g else None
        for p, g in zip(table["passed"], table["graded"], strict=True)
    ]
    return table


def grading_rates_frame(source: GradeSummary | sc.SCBenchmark) -> pd.DataFrame:
    """Pass rate per (case, expectation) and configuration over graded runs, with its Wilson
    95 % interval: the data of `grading_chart_figure`. Failures (lowest rates) first."""
    from skillbench.stats import wilson_interval

    counts: dict[tuple[str, str, str], list[int]] = {}
    if isinstance(source, GradeSummary):
        for r in source.runs:
            rec = r.run.record
            for i in r.items:
                cell = counts.setdefault((rec.case_id, i.text, rec.config), [0, 0, 0])
                if i.passed is None:
                    cell[2] += 1
                else:
                    cell[0] += int(i.passed)
                    cell[1] += 1
    else:
        for row in (source.model_extra or {}).get("expectation_matrix", []):
            for config, cell in row["results"].items():
                counts[(row["case_id"], row["expectation"], config)] = [
                    int(cell["passed"]),
                    int(cell["graded"]),
                    int(cell["ungraded"]),
                ]
    rows = []
    for (case, text, config), (passed, graded, ungraded) in counts.items():
        low, high = wilson_interval(passed, graded) if graded else (None, None)
        rows.append(
            {
                "label": f"{case}: {text}",
                "config": config,
                "passed": passed,
                "graded": graded,
                "ungraded": ungraded,
                "pass rate": passed / graded if graded else None,
                "low": low,
                "high": high,
            }
        )
    columns = ["label", "config", "passed", "graded", "ungraded", "pass rate", "low", "high"]
    frame = pd.DataFrame(rows, columns=columns)
    if frame.empty:
        return frame
    worst = frame.groupby("label")["pass rate"].transform("min").fillna(2.0)
    return (
        frame.assign(_worst=worst)
        .sort_values(["_worst", "label"], kind="stable")
        .drop(columns="_worst")
        .reset_index(drop=True)
    )


def run_summary_frame(doc: sc.SCBenchmark) -> pd.DataFrame:
    """run_summary per configuration: pass rate (with the between/within-case split), time, tokens."""
    rows = []
    for config, value in doc.run_summary.items():
        if not isinstance(value, sc.SCConfigSummary):
            continue
        extra = value.pass_rate.model_extra or {}
        row: dict[str, Any] = {
            "config": config,
            "pass rate mean": value.pass_rate.mean,
            "stddev (pooled)": value.pass_rate.stddev,
            "stddev between cases": extra.get("stddev_between_cases"),
            "stddev within case": extra.get("stddev_within_case"),
            "runs": extra.get("n_runs"),
            "cases": extra.get("n_cases"),
        }
        for name, stat in (("time s", value.time_seconds), ("tokens", value.tokens)):
            row[f"{name} mean"] = None if stat is None else stat.mean
            row[f"{name} stddev"] = None if stat is None else stat.stddev
        rows.append(row)
    delta = doc.run_summary.get("delta")
    if isinstance(delta, dict):
        row = {"config": "delta (" + _comparison(doc) + ")"}
        for key, change in delta.items():  # the delta lines up under the means it compares
            row[_DELTA_COLUMNS.get(str(key), str(key))] = change
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in ("runs", "cases"):
        if column in frame.columns:
            counts = [None if pd.isna(v) else int(v) for v in frame[column]]
            frame[column] = pd.Series(counts, index=frame.index, dtype=object)
    return frame


_DELTA_COLUMNS = {
    "pass_rate": "pass rate mean",
    "time_seconds": "time s mean",
    "tokens": "tokens mean",
}


def _comparison(doc: sc.SCBenchmark) -> str:
    comparison = (doc.model_extra or {}).get("comparison") or {}
    return str(comparison.get("delta", "candidate - baseline"))


def paired_frame(doc: sc.SCBenchmark) -> pd.DataFrame:
    """Per-case paired differences (candidate − baseline) of the benchmark: the means compared,
    their difference with the case's interval, and the runs behind each (further keys stay in
    benchmark.json)."""
    paired = (doc.model_extra or {}).get("paired") or {}
    frame = pd.DataFrame(paired.get("cases", []))
    if "ci" in frame.columns:  # the case's own interval (Newcombe, over its runs)
        bounds = [ci if isinstance(ci, list) and len(ci) == 2 else [None, None] for ci in frame.ci]
        frame["ci_low"] = [b[0] for b in bounds]
        frame["ci_high"] = [b[1] for b in bounds]
    shown = [c for c in _PAIRED_COLUMNS if c in frame.columns]
    return frame[shown] if shown else frame


_PAIRED_COLUMNS = (
    "case_id",
    "candidate_mean",
    "baseline_mean",
    "difference",
    "ci_low",
    "ci_high",
    "candidate_runs",
    "baseline_runs",
)


def matrix_frame(doc: sc.SCBenchmark) -> pd.DataFrame:
    """Expectation × configuration pass rates (graded runs only; NaN when never graded)."""
    rows = []
    for row in (doc.model_extra or {}).get("expectation_matrix", []):
        for config, cell in row["results"].items():
            rate = cell["passed"] / cell["graded"] if cell["graded"] else None
            rows.append(
                {
                    "case": row["case_id"],
                    "expectation": row["expectation"],
                    "config": config,
                    "pass rate": rate,
                    "graded": cell["graded"],
                    "ungraded": cell["ungraded"],
                }
            )
    return pd.DataFrame(rows)


def flags_frame(doc: sc.SCBenchmark, key: str) -> pd.DataFrame:
    """`non_discriminating` or `flaky` expectations as a table."""
    return pd.DataFrame((doc.model_extra or {}).get(key, []))
