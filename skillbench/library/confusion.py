"""The confusion matrix of a library run, per-skill recall and precision, and the most confused
pairs, each rate with its Wilson interval.

The unit of every interval is the query (docs/statistics.md): a query's runs are resamples of
one item, so they are reduced to one verdict per query first. A skill's own eval set is judged
by `trigger`'s rule (`schemas.trigger.expected_pass`: a should-trigger query passes when the
skill fired in at least `threshold` of its completed runs, a should-not-trigger query when it
fired in fewer; no completed run fails); recall is the share of its should-trigger queries that
pass, precision the share of the queries reaching the threshold for it that are its own. A flow
or a pair counts the queries that the other skill took at least once, out of the row's queries.
The run counts stay beside each rate. Everything is one pass over the queries: a library of
10,000 skills costs its queries, never skills × queries.
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
from skillbench.schemas.trigger import Interval, expected_pass

MAX_EXAMPLES = 3
MAX_DENSE_CELLS = 250_000
"""A larger matrix (about 500 skills) keeps only its non-zero cells."""


def interval(k: int, n: int, confidence: float = 0.95) -> Interval:
    """k of n with its Wilson interval (value and bounds None when n is 0)."""
    if n == 0:
        return Interval(value=None, low=None, high=None, n=0)
    low, high = stats.wilson_interval(k, n, confidence)
    return Interval(value=round(k / n, 4), low=round(low, 4), high=round(high, 4), n=n)


def build_matrix(skills: Sequence[str], queries: Sequence[QueryRouting]) -> ConfusionMatrix:
    """Rows: every skill with queries, then `(none)`; columns: every skill, then `(none)`,
    `(undecided)`, `(error)`. A fired name outside the library (a built-in) gets its column.
    Past `MAX_DENSE_CELLS` cells only the non-zero ones are kept (`cells`)."""
    with_queries = {q.expected for q in queries}
    rows = [s for s in skills if s in with_queries]
    if None in with_queries:
        rows.append(NONE)
    known = set(skills)
    extra = sorted({f for q in queries for f in q.fired if f not in known and f != NONE})
    columns = [*skills, *extra, NONE, UNDECIDED, ERROR]
    index = {c: i for i, c in enumerate(columns)}
    position = {r: i for i, r in enumerate(rows)}
    cells: Counter[tuple[int, int]] = Counter()
    for q in queries:
        row = position[q.expected or NONE]
        for fired, n in q.fired.items():
            cells[(row, index[fired])] += n
        cells[(row, index[UNDECIDED])] += q.undecided
        cells[(row, index[ERROR])] += q.errors
    if len(rows) * len(columns) > MAX_DENSE_CELLS:
        kept = sorted((i, j, n) for (i, j), n in cells.items() if n)
        return ConfusionMatrix(rows=rows, columns=columns, cells=kept)
    counts = [[0] * len(columns) for _ in rows]
    for (i, j), n in cells.items():
        counts[i][j] += n
    return ConfusionMatrix(rows=rows, columns=columns, counts=counts)


def own_sets(query: QueryRouting) -> tuple[list[str], list[str]]:
    """(skills whose eval set holds the query as should-trigger, as should-not-trigger); a
    skill holding it both ways counts it as should-trigger (the library's warning says so)."""
    positive = [s[:-2] for s in query.sources if s.endswith(":+")]
    negative = [s[:-2] for s in query.sources if s.endswith(":-") and s[:-2] not in positive]
    return positive, negative


def passes(query: QueryRouting, skill: str, should_trigger: bool, threshold: float) -> bool:
    """`trigger`'s rule for one query of `skill`'s eval set: its rate is the runs that fired
    `skill` over the completed runs."""
    rate = query.fired.get(skill, 0) / query.runs if query.runs else 0.0
    return expected_pass(should_trigger, round(rate, 4), threshold, query.runs)


def per_skill(
    skills: Sequence[str],
    queries: Sequence[QueryRouting],
    confidence: float = 0.95,
    threshold: float = 0.5,
) -> list[SkillRouting]:
    """Recall, precision, each skill's own eval set judged by `trigger`'s rule, and the flows
    in and out of every skill (rates over queries, run counts beside them)."""
    runs: Counter[str] = Counter()  # completed runs of each row
    count: Counter[str] = Counter()
    resolved: Counter[str] = Counter()  # queries of each row with a completed run
    flows: dict[str, Counter[str]] = defaultdict(Counter)  # row -> fired -> runs
    took: dict[str, Counter[str]] = defaultdict(Counter)  # row -> fired -> queries
    into: dict[str, list[str]] = defaultdict(list)  # fired -> rows it took runs from
    fires: Counter[str] = Counter()
    recall_of: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # [passed, resolved]
    reached: Counter[str] = Counter()  # queries at the threshold for the skill (precision's n)
    true: Counter[str] = Counter()  # of those, its own should-trigger queries
    own: dict[str, list[int]] = {}  # [passed, failed] of each skill's eval set
    failing: dict[str, list[str]] = defaultdict(list)
    for q in queries:
        row = q.expected or NONE
        runs[row] += q.runs
        count[row] += 1
        resolved[row] += q.runs > 0
        positive, negative = own_sets(q)
        for fired, n in q.fired.items():
            if n:
                if fired not in flows[row]:
                    into[fired].append(row)
                flows[row][fired] += n
                took[row][fired] += 1
                fires[fired] += n
                if fired != NONE and passes(q, fired, True, threshold):
                    reached[fired] += 1
                    true[fired] += fired in positive
        for skill, should in [*((s, True) for s in positive), *((s, False) for s in negative)]:
            ok = passes(q, skill, should, threshold)
            tally = own.setdefault(skill, [0, 0])
            tally[0 if ok else 1] += 1
            if not ok:
                failing[skill].append(q.query)
            if should and q.runs:
                recall_of[skill][0] += ok
                recall_of[skill][1] += 1
    result = []
    for skill in skills:
        stolen = [
            Flow(skill=f, runs=n, rate=interval(took[skill][f], resolved[skill], confidence))
            for f, n in flows.get(skill, {}).items()
            if f not in (skill, NONE)
        ]
        steals = [
            Flow(
                skill=row,
                runs=flows[row][skill],
                rate=interval(took[row][skill], resolved[row], confidence),
            )
            for row in into.get(skill, [])
            if row != skill
        ]
        hits, positives = recall_of.get(skill, [0, 0])
        verdicts = own.get(skill)
        result.append(
            SkillRouting(
                name=skill,
                queries=count[skill],
                runs=runs[skill],
                fires=fires[skill],
                recall=interval(hits, positives, confidence),
                precision=interval(true[skill], reached[skill], confidence),
                passed=None if verdicts is None else verdicts[0],
                failed=None if verdicts is None else verdicts[1],
                failing=failing.get(skill, []),
                stolen_by=sorted(stolen, key=lambda f: (-f.runs, f.skill)),
                steals_from=sorted(steals, key=lambda f: (-f.runs, f.skill)),
            )
        )
    return result


def confused_pairs(
    queries: Sequence[QueryRouting], confidence: float = 0.95, limit: int = 20
) -> list[ConfusedPair]:
    """Pairs of skills whose queries fire each other, most confused first: the rate is the
    share of both skills' queries (with a completed run) that the other skill took at least
    once, with the run counts and the queries that crossed most (gathered for the `limit`
    pairs kept only)."""
    resolved: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    cross: Counter[tuple[str, str]] = Counter()
    crossed: Counter[frozenset[str]] = Counter()
    for q in queries:
        if q.expected is None:
            continue
        runs[q.expected] += q.runs
        resolved[q.expected] += q.runs > 0
        for fired, n in q.fired.items():
            if fired not in (q.expected, NONE) and n:
                cross[(q.expected, fired)] += n
                crossed[frozenset((q.expected, fired))] += 1

    def order(item: tuple[frozenset[str], int]) -> tuple[float, int, str, str]:
        (a, b), count = sorted(item[0]), item[1]
        n = resolved[a] + resolved[b]
        value = round(count / n, 4) if n else 0.0  # `interval`'s value, without building it
        return (-value, -(cross.get((a, b), 0) + cross.get((b, a), 0)), a, b)

    pairs = []
    for key, count in sorted(crossed.items(), key=order)[:limit]:  # only the kept are built
        a, b = sorted(key)
        pairs.append(
            ConfusedPair(
                a=a,
                b=b,
                a_to_b=cross.get((a, b), 0),
                b_to_a=cross.get((b, a), 0),
                runs=runs[a] + runs[b],
                queries=count,
                rate=interval(count, resolved[a] + resolved[b], confidence),
            )
        )
    kept = {frozenset((p.a, p.b)): p for p in pairs[:limit]}
    examples: dict[frozenset[str], Counter[str]] = defaultdict(Counter)
    for q in queries:
        for fired, n in q.fired.items():
            key = frozenset((q.expected or NONE, fired))
            if key in kept and fired != q.expected and n:
                examples[key][q.query] += n
    for key, pair in kept.items():
        pair.examples = [t for t, _ in examples[key].most_common(MAX_EXAMPLES)]
    return pairs[:limit]
