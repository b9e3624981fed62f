"""Interference-aware improvement (`improve --library DIR`): the other skills' should-trigger
queries join the target's eval set as should-not-trigger queries (family `neighbour:<skill>`, so
the split stratifies them and marks them), and each round's neighbour queries that fired the
target are what a new description stole."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillbench.library.discover import load_library
from skillbench.schemas.loop import NeighbourSteal, RoundSteals
from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.evalset import EvalQuery

NEIGHBOUR = "neighbour:"


def neighbour_queries(
    library_dir: str | Path,
    target: str,
    existing: Sequence[EvalQuery],
    *,
    evals_dir: str | Path | None = None,
) -> list[EvalQuery]:
    """The should-trigger queries of every other skill of the library, as should-not-trigger
    queries of `target` (a text already in its eval set is left as it is)."""
    library = load_library(library_dir, evals_dir=evals_dir)
    have = {q.text for q in existing}
    found = []
    for query in library.queries:
        owner = query.expected
        if owner is None or owner == target or target in query.positive_of or query.text in have:
            continue
        found.append(EvalQuery(query.text, False, f"{NEIGHBOUR}{owner}"))
    return found


def neighbour_of(query: EvalQuery | str, family: str | None = None) -> str | None:
    """The neighbour skill a query came from, or None for the target's own queries."""
    fam = query.family if isinstance(query, EvalQuery) else family
    return fam[len(NEIGHBOUR) :] if fam and fam.startswith(NEIGHBOUR) else None


def neighbour_steals(reports: Sequence[TriggerReport]) -> list[RoundSteals]:
    """Per round: the neighbour queries that fired the target, with the neighbour and the runs."""
    return [
        RoundSteals(
            round=number,
            stolen=[
                NeighbourSteal(neighbour=owner, query=r.query, triggers=r.triggers, runs=r.runs)
                for r in report.results
                if (owner := neighbour_of(r.query, r.family)) and r.triggers
            ],
        )
        for number, report in enumerate(reports, start=1)
    ]


def steal_lines(rounds: Sequence[RoundSteals]) -> list[str]:
    """`round 2: 3 neighbour queries fired the target: release-announcer 'announce …' 2/3`."""
    lines = []
    for entry in rounds:
        count = len(entry.stolen)
        noun = "query" if count == 1 else "queries"
        lines.append(f"round {entry.round}: {count} neighbour {noun} fired the target")
        lines.extend(
            f"  {s.neighbour}: {s.query!r} {s.triggers}/{s.runs}" for s in entry.stolen[:10]
        )
    return lines
