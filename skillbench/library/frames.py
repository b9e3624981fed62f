"""A LibraryReport as pandas tables for the notebook and the CLI."""

from __future__ import annotations

import pandas as pd

from skillbench.library.document import LibraryReport
from skillbench.schemas.trigger import Interval


def _ci(rate: Interval) -> tuple[float | None, float | None, float | None]:
    return rate.value, rate.low, rate.high


def routing_matrix_frame(report: LibraryReport, *, rates: bool = False) -> pd.DataFrame:
    """The confusion matrix: counts, or (`rates`) each row's share of its runs."""
    m = report.matrix
    frame = pd.DataFrame(m.counts, index=m.rows, columns=m.columns)
    if rates:
        totals = frame.sum(axis=1).replace(0, 1)
        frame = frame.div(totals, axis=0).round(3)
    frame.index.name = "written for"
    return frame


def routing_skills_frame(report: LibraryReport) -> pd.DataFrame:
    """Per skill: recall and precision with intervals, listing state, top thief and victim."""
    rows = []
    for s in report.per_skill:
        recall, r_low, r_high = _ci(s.recall)
        precision, p_low, p_high = _ci(s.precision)
        rows.append(
            {
                "skill": s.name,
                "listing": s.listing,
                "queries": s.queries,
                "runs": s.runs,
                "recall": recall,
                "recall_low": r_low,
                "recall_high": r_high,
                "fires": s.fires,
                "precision": precision,
                "precision_low": p_low,
                "precision_high": p_high,
                "stolen_by": ", ".join(f"{f.skill}×{f.runs}" for f in s.stolen_by),
                "steals_from": ", ".join(f"{f.skill}×{f.runs}" for f in s.steals_from),
            }
        )
    return pd.DataFrame(rows)


def confused_pairs_frame(report: LibraryReport) -> pd.DataFrame:
    """The most confused pairs with their rate, interval and example queries."""
    return pd.DataFrame(
        [
            {
                "a": p.a,
                "b": p.b,
                "a→b": p.a_to_b,
                "b→a": p.b_to_a,
                "runs": p.runs,
                "rate": p.rate.value,
                "low": p.rate.low,
                "high": p.rate.high,
                "examples": " | ".join(p.examples),
            }
            for p in report.pairs
        ],
        columns=["a", "b", "a→b", "b→a", "runs", "rate", "low", "high", "examples"],
    )


def skill_listing_frame(report: LibraryReport) -> pd.DataFrame:
    """Per skill: how the listing shows it and its line's width."""
    if report.listing is None:
        return pd.DataFrame(columns=["skill", "state", "chars"])
    return pd.DataFrame(
        [{"skill": s.name, "state": s.state, "chars": s.chars} for s in report.listing.skills]
    )


def budget_what_if_frame(report: LibraryReport) -> pd.DataFrame:
    """The listing at other budgets: skills in full, and those by name only."""
    if report.listing is None:
        return pd.DataFrame(columns=["budget_chars", "full", "truncated", "name_only"])
    return pd.DataFrame(
        [
            {
                "budget_chars": w.budget_chars,
                "full": w.full,
                "truncated": ", ".join(w.truncated),
                "name_only": ", ".join(w.name_only),
            }
            for w in report.listing.what_if
        ]
    )


def overlap_frame(report: LibraryReport) -> pd.DataFrame:
    """The pre-screen: the most alike descriptions."""
    return pd.DataFrame(
        [{"a": p.a, "b": p.b, "similarity": p.similarity} for p in report.overlap],
        columns=["a", "b", "similarity"],
    )


def routing_queries_frame(report: LibraryReport) -> pd.DataFrame:
    """One row per query: written for, what fired (counts), undecided, errors."""
    return pd.DataFrame(
        [
            {
                "query": q.query,
                "written_for": q.expected or "(none)",
                "fired": ", ".join(
                    f"{k}×{v}" for k, v in sorted(q.fired.items(), key=lambda kv: -kv[1])
                ),
                "runs": q.runs,
                "undecided": q.undecided,
                "errors": q.errors,
            }
            for q in report.queries
        ]
    )
