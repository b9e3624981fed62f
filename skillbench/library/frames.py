"""A LibraryReport as pandas tables for the notebook and the CLI."""

from __future__ import annotations

import pandas as pd

from skillbench.library.document import LibraryReport
from skillbench.schemas.trigger import Interval


def _ci(rate: Interval) -> tuple[float | None, float | None, float | None]:
    return rate.value, rate.low, rate.high


MAX_SHOWN_SKILLS = 30
"""A matrix with more skill rows is shown for its most confused skills only."""
OTHER_SKILLS = "(other skills)"


def most_confused(report: LibraryReport, limit: int = MAX_SHOWN_SKILLS) -> list[str]:
    """The skills of the most confused pairs, worst pair first, then those failing their own
    eval set, at most `limit`: the neighbourhood worth drawing in a large library."""
    chosen: dict[str, None] = {}
    for pair in report.pairs:
        chosen.update({pair.a: None, pair.b: None})
    chosen.update({s.name: None for s in report.per_skill if s.failed})
    return list(chosen)[:limit]


def routing_matrix_frame(
    report: LibraryReport, *, rates: bool = False, skills: list[str] | None = None
) -> pd.DataFrame:
    """The confusion matrix: counts, or (`rates`) each row's share of its runs. Restricted to
    `skills` (default: the `most_confused` when the matrix keeps only its non-zero cells): their
    rows and `(none)`'s, their columns, the others summed in `(other skills)`, and the columns
    that are not skills (`(none)`, `(undecided)`, `(error)`, built-ins)."""
    m = report.matrix
    if skills is None and m.cells is not None:
        skills = most_confused(report)
    if skills is None:
        frame = pd.DataFrame(m.counts, index=m.rows, columns=m.columns)
    else:
        frame = _restricted(report, skills)
    if rates:
        totals = frame.sum(axis=1).replace(0, 1)
        frame = frame.div(totals, axis=0).round(3)
    frame.index.name = "written for"
    return frame


def _restricted(report: LibraryReport, skills: list[str]) -> pd.DataFrame:
    m = report.matrix
    library = {s.name for s in report.per_skill}
    shown = set(skills)
    rows = [r for r in m.rows if r in shown or r not in library]
    columns = [c for c in m.columns if c in shown] + [OTHER_SKILLS]
    columns += [c for c in m.columns if c not in library]
    row_at = {r: i for i, r in enumerate(rows)}
    column_at = {c: i for i, c in enumerate(columns)}
    counts = [[0] * len(columns) for _ in rows]
    for i, j, n in m.nonzero():
        row = row_at.get(m.rows[i])
        if row is not None:
            counts[row][column_at.get(m.columns[j], column_at[OTHER_SKILLS])] += n
    return pd.DataFrame(counts, index=rows, columns=columns)


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
                "own_passed": s.passed,
                "own_failed": s.failed,
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
                "queries": p.queries,
                "rate": p.rate.value,
                "low": p.rate.low,
                "high": p.rate.high,
                "examples": " | ".join(p.examples),
            }
            for p in report.pairs
        ],
        columns=["a", "b", "a→b", "b→a", "runs", "queries", "rate", "low", "high", "examples"],
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
