"""Run-level pairing of base and head: which run of which query passed on each side.

A trigger report keeps per-query counts only; the gate's paired test needs each run's outcome,
so each side's judge is wrapped in a `RecordingJudge` that notes (query, run index) → triggered
(None for a run that did not complete: an error or an undecided run). `pair_runs` then matches
run k of a query under the base with run k of the same query under the head.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillbench.backends.base import TriggerOutcome, TriggerRequest, judge_all
from skillbench.stats import holm, mcnemar_exact

RunKey = tuple[str, int]


class RecordingJudge:
    """A TriggerJudge wrapper noting every run's outcome; everything else is the inner
    judge's (`inner` lets the eval see through it, as through the cache wrappers)."""

    def __init__(self, judge: Any) -> None:
        self.inner = judge
        self.name = judge.name
        self.model = judge.model
        self.is_proxy = judge.is_proxy
        self.outcomes: dict[RunKey, bool | None] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def identity(self) -> dict[str, Any]:
        return dict(self.inner.identity())

    def versions(self) -> dict[str, str]:
        return dict(self.inner.versions())

    def _note(self, request: TriggerRequest, outcome: TriggerOutcome) -> TriggerOutcome:
        done = isinstance(outcome, TriggerOutcome) and outcome.error is None
        done = done and outcome.undecided is None
        self.outcomes[(request.query, request.run_index)] = outcome.triggered if done else None
        return outcome

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        return self._note(request, await self.inner.judge(request))

    async def judge_many(self, requests: Sequence[TriggerRequest]) -> list[TriggerOutcome]:
        outcomes = await judge_all(self.inner, requests)
        if len(outcomes) == len(requests):
            for request, outcome in zip(requests, outcomes, strict=True):
                self._note(request, outcome)
        return outcomes

    async def aclose(self) -> None:  # the inner judge's owner closes it
        return None


@dataclass(frozen=True)
class QueryPairs:
    """One query's paired runs: counts on each side and the discordant pairs."""

    query: str
    should_trigger: bool
    pairs: int
    base_passed: int
    head_passed: int
    regressed: int
    improved: int

    @property
    def p_value(self) -> float:
        """Exact two-sided McNemar p-value of this query's paired runs."""
        return mcnemar_exact(self.regressed, self.improved)

    @property
    def delta(self) -> float | None:
        """Head pass rate − base pass rate over the paired runs."""
        if not self.pairs:
            return None
        return (self.head_passed - self.base_passed) / self.pairs


def pair_runs(
    queries: Sequence[tuple[str, bool]],
    base: dict[RunKey, bool | None],
    head: dict[RunKey, bool | None],
) -> list[QueryPairs]:
    """Per query, the runs completed on both sides, paired by run index; a run passes when
    its outcome matches the query's expectation."""
    by_base, by_head = _by_query(base), _by_query(head)
    rows = []
    for text, should in queries:
        on_base, on_head = by_base.get(text, {}), by_head.get(text, {})
        indices = sorted(set(on_base) & set(on_head))
        b = [on_base[k] is should for k in indices]
        h = [on_head[k] is should for k in indices]
        rows.append(
            QueryPairs(
                query=text,
                should_trigger=should,
                pairs=len(indices),
                base_passed=sum(b),
                head_passed=sum(h),
                regressed=sum(1 for x, y in zip(b, h, strict=True) if x and not y),
                improved=sum(1 for x, y in zip(b, h, strict=True) if y and not x),
            )
        )
    return rows


def _by_query(outcomes: dict[RunKey, bool | None]) -> dict[str, dict[int, bool]]:
    """The completed runs of each query: run index → triggered."""
    grouped: dict[str, dict[int, bool]] = {}
    for (query, index), triggered in outcomes.items():
        if triggered is not None:
            grouped.setdefault(query, {})[index] = triggered
    return grouped


def holm_adjusted(rows: Sequence[QueryPairs]) -> list[float]:
    """Holm-adjusted per-query p-values (the family: every query with a paired run)."""
    return holm([row.p_value for row in rows]) if rows else []
