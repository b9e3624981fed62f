"""The confusion matrix of a library run, per-skill recall and precision, and the most confused
pairs, each rate with its Wilson interval.

Rates are over runs (a query's runs are not independent: the intervals are narrower than a
query-level analysis would give; the counts per query are in the report).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from skillbench import stats
from skillbench.library.document import (
    ERROR,
    NONE,
    UNDECIDED,
    ConfusedPair,
    ConfusionMatrix,
    Flow,
    QueryRouting,
    SkillRouting,
)
from skillbench.schemas.trigger import Interval

MAX_EXAMPLES = 3


def interval(k: int, n: int, confidence: float = 0.95) -> Interval:
    """k of n with its Wilson interval (value and bounds None when n is 0)."""
    if n == 0:
        return Interval(value=None, low=None, high=None, n=0)
    low, high = stats.wilson_interval(k, n, confidence)
    return Interval(value=round(k / n, 4), low=round(low, 4), high=round(high, 4), n=n)


def build_matrix(skills: Sequence[str], queries: Sequence[QueryRouting]) -> ConfusionMatrix:
    """Rows: every skill with queries, then `(none)`; columns: every skill, then `(none)`,
    `(undecided)`, `(error)`. A fired name outside the library (a built-in) gets its column."""
    rows = [s for s in skills if any(q.expected == s for q in queries)]
    if any(q.expected is None for q in queries):
        rows.append(NONE)
    extra = sorted({f for q in queries for f in q.fired if f not in skills and f != NONE})
    columns = [*skills, *extra, NONE, UNDECIDED, ERROR]
    index = {c: i for i, c in enumerate(columns)}
    position = {r: i for i, r in enumerate(rows)}
    counts = [[0] * len(columns) for _ in rows]
    for q in queries:
        row = counts[position[q.expected or NONE]]
        for fired, n in q.fired.items():
            row[index[fired]] += n
        row[index[UNDECIDED]] += q.undecided
        row[index[ERROR]] += q.errors
    return ConfusionMatrix(rows=rows, columns=columns, counts=counts)


def per_skill(
    skills: Sequence[str], queries: Sequence[QueryRouting], confidence: float = 0.95
) -> list[SkillRouting]:
    """Recall, precision, and the flows in and out of every skill."""
    runs: Counter[str] = Counter()  # completed runs of each row
    flows: dict[tuple[str, str], int] = Counter()  # (row, fired) -> runs
    count: Counter[str] = Counter()
    for q in queries:
        row = q.expected or NONE
        runs[row] += q.runs
        count[row] += 1
        for fired, n in q.fired.items():
            flows[(row, fired)] += n
    fires: Counter[str] = Counter()
    for (_, fired), n in flows.items():
        fires[fired] += n
    result = []
    for skill in skills:
        own = flows.get((skill, skill), 0)
        stolen = [
            Flow(skill=f, runs=n, rate=interval(n, runs[skill], confidence))
            for (row, f), n in flows.items()
            if row == skill and f not in (skill, NONE) and n
        ]
        steals = [
            Flow(skill=row, runs=n, rate=interval(n, runs[row], confidence))
            for (row, f), n in flows.items()
            if f == skill and row != skill and n
        ]
        result.append(
            SkillRouting(
                name=skill,
                queries=count[skill],
                runs=runs[skill],
                fires=fires[skill],
                recall=interval(own, runs[skill], confidence),
                precision=interval(own, fires[skill], confidence),
                stolen_by=sorted(stolen, key=lambda f: (-f.runs, f.skill)),
                steals_from=sorted(steals, key=lambda f: (-f.runs, f.skill)),
            )
        )
    return result


def confused_pairs(
    queries: Sequence[QueryRouting], confidence: float = 0.95, limit: int = 20
) -> list[ConfusedPair]:
    """Pairs of skills whose queries fire each other, most confused first (rate over both
    skills' completed runs), with the queries that crossed most."""
    runs: Counter[str] = Counter()
    cross: Counter[tuple[str, str]] = Counter()
    examples: dict[frozenset[str], Counter[str]] = defaultdict(Counter)
    for q in queries:
        if q.expected is None:
            continue
        runs[q.expected] += q.runs
        for fired, n in q.fired.items():
            if fired not in (q.expected, NONE) and n:
                cross[(q.expected, fired)] += n
                examples[frozenset((q.expected, fired))][q.query] += n
    pairs = []
    for key in {frozenset(k) for k in cross}:
        a, b = sorted(key)
        ab, ba = cross.get((a, b), 0), cross.get((b, a), 0)
        total = runs[a] + runs[b]
        pairs.append(
            ConfusedPair(
                a=a,
                b=b,
                a_to_b=ab,
                b_to_a=ba,
                runs=total,
                rate=interval(ab + ba, total, confidence),
                examples=[t for t, _ in examples[key].most_common(MAX_EXAMPLES)],
            )
        )
    pairs.sort(key=lambda p: (-(p.rate.value or 0.0), -(p.a_to_b + p.b_to_a), p.a, p.b))
    return pairs[:limit]
