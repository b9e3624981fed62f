"""Turning per-query run tallies into seed 001 results, a summary with intervals, and warnings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from skillbench import stats
from skillbench.backends.base import CallUsage, TriggerOutcome
from skillbench.schemas.trigger import Interval, TriggerResult, TriggerSummary, expected_pass
from skillbench.trigger.evalset import EvalQuery

HIGH_ERROR_RATE = 0.2
MAX_ERROR_MESSAGES = 3
BROKEN_HARNESS_WARNING = (
    "BROKEN-HARNESS SIGNATURE: every positive query scored 0 and every negative passed "
    "(recall 0). This is what a harness that never lets the skill fire produces "
    "(see anthropics/skills#556): check the backend before trusting or optimising these numbers."
)


@dataclass
class QueryTally:
    """Everything observed for one query across its runs."""

    query: EvalQuery
    triggers: int = 0
    completed: int = 0
    errors: int = 0
    calls: int = 0
    cache_hits: int = 0
    fired_instead: Counter[str] = field(default_factory=Counter)
    error_messages: list[str] = field(default_factory=list)
    usage: CallUsage = field(default_factory=CallUsage)
    cached_usage: CallUsage = field(default_factory=CallUsage)
    """What the answers served from the call cache recorded when their calls were made."""
    undecided: int = 0
    undecided_tools: Counter[str] = field(default_factory=Counter)
    error_kinds: Counter[str] = field(default_factory=Counter)

    @property
    def attempted(self) -> int:
        """Runs started: completed plus errored plus undecided."""
        return self.completed + self.errors + self.undecided

    def record(self, outcome: TriggerOutcome, skill_name: str) -> None:
        """Fold one run's outcome in; an errored run is never a "not triggered", and an
        undecided one (another tool first) is neither a trigger nor a miss."""
        if outcome.cached:
            self.cache_hits += 1
            self.cached_usage.add(outcome.usage)
        elif not outcome.detail.get("not_run"):  # refused by the cost cap: no call was made
            self.calls += 1
            self.usage.add(outcome.usage)
        if outcome.error is not None:
            self.errors += 1
            kind = outcome.detail.get("error_kind")
            if isinstance(kind, str) and kind:
                self.error_kinds[kind] += 1
            if len(self.error_messages) < MAX_ERROR_MESSAGES and (
                outcome.error not in self.error_messages
            ):
                self.error_messages.append(outcome.error)
            return
        if outcome.undecided is not None:
            self.undecided += 1
            self.undecided_tools[outcome.undecided] += 1
            return
        self.completed += 1
        if outcome.triggered:
            self.triggers += 1
        elif outcome.fired and outcome.fired != skill_name:
            self.fired_instead[outcome.fired] += 1


def build_result(
    tally: QueryTally,
    *,
    threshold: float,
    confidence: float,
    runs_planned: int | None = None,
) -> TriggerResult:
    """The seed 001 result for one query, plus its Wilson interval and diagnostics.

    ``settled`` is the issue's literal test: the Wilson interval lies entirely on one side of the
    threshold, so more runs are unlikely to flip the verdict. ``flaky`` is narrower: unsettled
    AND the runs disagree. A unanimous short series (3/3, 0/3) is unsettled but not flaky — 3 runs
    can never settle a verdict at 95 %, which the report notes.
    """
    n, k = tally.completed, tally.triggers
    rate = k / n if n else 0.0
    low, high = stats.wilson_interval(k, n, confidence)
    unresolved = n == 0
    mixed = 0 < k < n
    return TriggerResult(
        query=tally.query.text,
        should_trigger=tally.query.should_trigger,
        triggers=k,
        runs=n,
        errors=tally.errors,
        trigger_rate=round(rate, 4),
        passed=expected_pass(tally.query.should_trigger, round(rate, 4), threshold, n),
        family=tally.query.family,
        ci_low=None if unresolved else round(low, 4),
        ci_high=None if unresolved else round(high, 4),
        flaky=None if unresolved else bool(mixed and low < threshold <= high),
        settled=None if unresolved else not (low < threshold <= high),
        unresolved=True if unresolved else None,
        fired_instead=dict(tally.fired_instead.most_common()) or None,
        runs_planned=runs_planned,
        stopped_early=None if runs_planned is None else tally.attempted < runs_planned,
        error_messages=list(tally.error_messages) or None,
        undecided=tally.undecided or None,
        undecided_tools=dict(tally.undecided_tools.most_common()) or None,
        error_kinds=dict(tally.error_kinds.most_common()) or None,
    )


@dataclass(frozen=True)
class Confusion:
    """Query-level decisions: a positive that passes is a TP, a negative that fails a FP, ..."""

    tp: int
    fp: int
    fn: int
    tn: int
    unresolved: int


def confusion(results: Sequence[TriggerResult]) -> Confusion:
    """Count decisions over resolved queries (unresolved ones are counted apart)."""
    tp = fp = fn = tn = unresolved = 0
    for r in results:
        if r.runs == 0:
            unresolved += 1
        elif r.should_trigger:
            tp, fn = (tp + 1, fn) if r.passed else (tp, fn + 1)
        else:
            tn, fp = (tn + 1, fp) if r.passed else (tn, fp + 1)
    return Confusion(tp, fp, fn, tn, unresolved)


def to_interval(estimate: stats.Estimate, digits: int = 4) -> Interval:
    """The persisted form of a stats.Estimate."""

    def _r(x: float | None) -> float | None:
        return None if x is None else round(x, digits)

    return Interval(
        value=_r(estimate.value),
        low=_r(estimate.low),
        high=_r(estimate.high),
        n=estimate.n,
        method=estimate.method,
    )


def build_summary(
    results: Sequence[TriggerResult],
    tallies: Sequence[QueryTally],
    *,
    threshold: float,
    confidence: float,
    seed: int,
    calls_saved: int | None,
    wall_seconds: float,
) -> TriggerSummary:
    """Seed 001 counts plus pass rate, precision/recall/F1/accuracy with intervals, and costs."""
    passed = sum(1 for r in results if r.passed)
    c = confusion(results)
    metrics = stats.classification_metrics(c.tp, c.fp, c.fn, c.tn, confidence=confidence, seed=seed)
    usage = CallUsage()
    for tally in tallies:
        usage.add(tally.usage)
    return TriggerSummary(
        passed=passed,
        failed=len(results) - passed,
        total=len(results),
        threshold=threshold,
        unresolved=c.unresolved,
        pass_rate=to_interval(stats.proportion(passed, len(results), confidence)),
        pass_rate_clustered=clustered_pass_rate(results, confidence),
        precision=to_interval(metrics.precision),
        recall=to_interval(metrics.recall),
        f1=to_interval(metrics.f1),
        accuracy=to_interval(metrics.accuracy),
        calls=sum(t.calls for t in tallies),
        cache_hits=sum(t.cache_hits for t in tallies),
        calls_saved=calls_saved,
        usage=usage.tokens,
        cost_usd=round(usage.cost_usd, 6),
        wall_seconds=round(wall_seconds, 3),
        undecided_runs=sum(t.undecided for t in tallies) or None,
        errored_runs=sum(t.errors for t in tallies) or None,
        cache_read_share=cache_read_share(usage),
    )


def cache_read_share(usage: CallUsage) -> float | None:
    """Share of all input tokens (uncached + cache writes + cache reads) read from the prompt
    cache; None when no input was counted."""
    total = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    if total == 0:
        return None
    return round(usage.cache_read_input_tokens / total, 4)


def clustered_pass_rate(results: Sequence[TriggerResult], confidence: float) -> Interval | None:
    """The pass rate with a cluster-robust standard error over query families.

    Queries of one family (paraphrases of one intent) tend to pass or fail together, so they
    carry less information than independent queries; the clustered interval says how much less.
    None unless the set has families and at least one family holds several queries.
    """
    families = [r.family or f"<query {i}>" for i, r in enumerate(results)]
    if not any(r.family for r in results) or len(set(families)) == len(families):
        return None
    values = [1.0 if r.passed else 0.0 for r in results]
    mean = sum(values) / len(values)
    half = stats.z_value(confidence) * stats.clustered_se(values, families)
    return Interval(
        value=round(mean, 4),
        low=round(max(0.0, mean - half), 4),
        high=round(min(1.0, mean + half), 4),
        n=len(values),
        method=f"clustered-se ({len(set(families))} families)",
    )


def harness_warnings(results: Sequence[TriggerResult]) -> list[str]:
    """Loud warnings: the broken-harness signature, a high error rate, unresolved queries."""
    warnings: list[str] = []
    positives = [r for r in results if r.should_trigger]
    negatives = [r for r in results if not r.should_trigger]
    if (
        positives
        and all(r.runs > 0 and r.triggers == 0 for r in positives)
        and all(r.passed for r in negatives)
    ):
        warnings.append(BROKEN_HARNESS_WARNING)
    attempted = sum(r.runs + r.errors for r in results)
    errors = sum(r.errors for r in results)
    if attempted and errors / attempted > HIGH_ERROR_RATE:
        warnings.append(
            f"HIGH ERROR RATE: {errors} of {attempted} runs ({errors / attempted:.0%}) errored "
            "(timeouts, crashes, API errors). Errored runs are excluded from the rates, not "
            "counted as 'not triggered', but the remaining runs may be too few to trust."
        )
    unresolved = sum(1 for r in results if r.runs == 0)
    if unresolved:
        warnings.append(
            f"{unresolved} quer{'y' if unresolved == 1 else 'ies'} had no completed run "
            "(every run errored or was undecided): reported as unresolved and failed."
        )
    undecided = sum(r.undecided or 0 for r in results)
    if undecided:
        from skillbench.backends.registry import escalation_name

        warnings.append(
            f"UNDECIDED: {undecided} run(s) called another tool before any skill (first-turn "
            "replay cannot say whether the skill would have fired later). They are excluded from "
            f"the rates, not counted as misses; --escalate re-runs them through the "
            f"{escalation_name()} backend."
        )
    return warnings


def runs_needed_to_settle(threshold: float, confidence: float, limit: int = 1000) -> int | None:
    """Smallest n at which a unanimous series (n/n or 0/n) has a Wilson interval on one side of
    the threshold for both outcomes; None if none within ``limit``."""
    for n in range(1, limit + 1):
        low, _ = stats.wilson_interval(n, n, confidence)
        _, high = stats.wilson_interval(0, n, confidence)
        if low >= threshold and high < threshold:
            return n
    return None
