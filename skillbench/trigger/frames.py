"""A TriggerReport as pandas tables for notebooks: per query, confusion, misses, costs."""

from __future__ import annotations

import pandas as pd

from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.explain import Explanation, RunMove
from skillbench.trigger.report import confusion


def results_frame(report: TriggerReport) -> pd.DataFrame:
    """One row per query: expectation, rate with its interval, runs, errors, verdict."""
    rows = [
        {
            "query": r.query,
            "should_trigger": r.should_trigger,
            "trigger_rate": r.trigger_rate,
            "ci_low": r.ci_low,
            "ci_high": r.ci_high,
            "triggers": r.triggers,
            "runs": r.runs,
            "errors": r.errors,
            "pass": r.passed,
            "flaky": bool(r.flaky),
            "settled": bool(r.settled),
            "unresolved": bool(r.unresolved),
            "family": r.family,
        }
        for r in report.results
    ]
    return pd.DataFrame(rows, columns=list(rows[0]) if rows else None)


def confusion_frame(report: TriggerReport) -> pd.DataFrame:
    """2×2 query-level decisions (rows: expected, columns: decided), unresolved left out."""
    c = confusion(report.results)
    return pd.DataFrame(
        [[c.tp, c.fn], [c.fp, c.tn]],
        index=pd.Index(["should trigger", "should not"], name="expected"),
        columns=pd.Index(["triggered", "not triggered"], name="decided"),
    )


def fired_instead_frame(report: TriggerReport) -> pd.DataFrame:
    """For every query that missed (positives failing), which other skills fired, with counts."""
    rows = [
        {"query": r.query, "fired_instead": skill, "runs": count}
        for r in report.results
        if r.should_trigger and not r.passed
        for skill, count in (r.fired_instead or {}).items()
    ]
    return pd.DataFrame(rows, columns=["query", "fired_instead", "runs"])


def fired_instead_note(report: TriggerReport) -> str:
    """One sentence on the missed positives: how many, and whether another skill took them."""
    missed = [r for r in report.results if r.should_trigger and not r.passed and not r.unresolved]
    if not missed:
        return "No positive query was missed, so nothing fired instead."
    taken = [r for r in missed if r.fired_instead]
    counts: dict[str, int] = {}
    for r in taken:
        for skill, count in (r.fired_instead or {}).items():
            counts[skill] = counts.get(skill, 0) + count
    noun = "positive" if len(missed) == 1 else "positives"
    if not counts:
        return (
            f"On the {len(missed)} missed {noun} no other skill fired: nothing was chosen instead."
        )
    listed = ", ".join(f"{skill} ({n} runs)" for skill, n in sorted(counts.items()))
    return (
        f"On {len(taken)} of the {len(missed)} missed {noun} another skill fired instead: {listed}."
    )


def false_triggers_frame(report: TriggerReport) -> pd.DataFrame:
    """Negatives that failed (the skill fired when it should not), with family and rate."""
    rows = [
        {
            "query": r.query,
            "family": r.family,
            "trigger_rate": r.trigger_rate,
            "triggers": r.triggers,
            "runs": r.runs,
            "also_fired": ", ".join(
                f"{k} ({v})" for k, v in sorted((r.fired_instead or {}).items())
            ),
        }
        for r in report.results
        if not r.should_trigger and not r.passed and not r.unresolved
    ]
    return pd.DataFrame(
        rows, columns=["query", "family", "trigger_rate", "triggers", "runs", "also_fired"]
    )


def cost_frame(report: TriggerReport) -> pd.DataFrame:
    """Calls made, cache hits, runs saved, tokens by kind (and the prompt-cache read share),
    undecided runs, cost (or "unknown") with the price table's date, what the cache hits cost
    when first paid (`cache_hits_first_paid_usd`), wall time, backend, model
    and the workers (calls in flight) used, as one column."""
    s = report.summary
    usage = s.usage
    cost = report.cost
    values: dict[str, object] = {
        "calls": s.calls,
        "cache_hits": s.cache_hits,
        "cache_hit_share": cost.cache_hit_share if cost else None,
        "calls_saved": s.calls_saved,
        "input_tokens": usage.input_tokens if usage else None,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens if usage else None,
        "cache_read_input_tokens": usage.cache_read_input_tokens if usage else None,
        "cache_read_share": s.cache_read_share,
        "undecided_runs": s.undecided_runs,
        "output_tokens": usage.output_tokens if usage else None,
        "cost_usd": cost.dollars if cost else s.cost_usd,
        "cache_hits_first_paid_usd": cost.first_paid_dollars if cost else None,
        "price_table_as_of": cost.price_table_as_of if cost else None,
        "stopped_at_cost_cap": bool(cost and cost.stopped_at_cap),
        "wall_seconds": s.wall_seconds,
        "backend": report.backend.name if report.backend else None,
        "model": report.backend.model if report.backend else None,
        "workers": report.config.workers if report.config else None,
    }
    frame = pd.DataFrame({"value": pd.Series(values, dtype=object)})
    frame.index.name = "metric"
    return frame


def metrics_frame(report: TriggerReport) -> pd.DataFrame:
    """Pass rate (and its family-clustered interval when present), precision, recall, F1 and
    accuracy, each with its interval and method."""
    s = report.summary
    rows = []
    for name in ("pass_rate", "pass_rate_clustered", "precision", "recall", "f1", "accuracy"):
        est = getattr(s, name)
        if est is not None:
            rows.append(
                {
                    "metric": name,
                    "value": est.value,
                    "low": est.low,
                    "high": est.high,
                    "n": est.n,
                    "method": est.method,
                }
            )
    return pd.DataFrame(rows, columns=["metric", "value", "low", "high", "n", "method"])


def why_failed_frame(explanations: list[Explanation]) -> pd.DataFrame:
    """One row per cached run of each explained (failing) query: its first move, what it
    called or said, and how the target was listed (`trigger.explain`)."""
    rows = [
        {
            "query": e.query,
            "should_trigger": e.should_trigger,
            "target_listed": e.listing.target if e.listing is not None else None,
            "run": run.run_index,
            "first_move": run.move,
            "called": run.skill or run.tool,
            "detail": _move_detail(run),
        }
        for e in explanations
        for run in e.runs
    ]
    columns = ["query", "should_trigger", "target_listed", "run", "first_move", "called", "detail"]
    return pd.DataFrame(rows, columns=columns)


def _move_detail(run: RunMove) -> str | None:
    """The other skill's description (and how it was listed), the tool's input or the text."""
    import json

    if run.skill is not None:
        listed = f"[listed: {run.skill_listed}] " if run.skill_listed else ""
        return f"{listed}{run.skill_description or ''}".strip() or None
    if run.tool is not None:
        return None if run.tool_input is None else json.dumps(run.tool_input)[:300]
    return run.text
