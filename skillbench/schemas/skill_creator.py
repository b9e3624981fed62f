"""Seed 004 / upstream `anthropics/skills` skill-creator `references/schemas.md` documents."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from pydantic import Field, RootModel, StrictBool, StrictInt, model_validator

from skillbench.schemas.common import Count, Doc, Number, Rate, close, rule_error
from skillbench.schemas.display import box_html, one_line, table_html

PASS_RATE_TOLERANCE = 0.01


def check_pass_counts(passed: int, failed: int | None, total: int, pass_rate: float) -> None:
    """passed + failed == total (when failed is given) and pass_rate == passed / total (±0.01);
    a pydantic rule error naming `total` or `pass_rate` otherwise."""
    if failed is not None and passed + failed != total:
        raise rule_error(
            "summary-counts",
            f"passed ({passed}) + failed ({failed}) must equal total ({total})",
            "total",
        )
    want = passed / total if total else 0.0
    if not close(pass_rate, want, PASS_RATE_TOLERANCE):
        raise rule_error(
            "pass-rate",
            f"pass_rate must be passed / total = {want:.2f} (±0.01), got {pass_rate}",
            "pass_rate",
        )


ASSERTION_TEXT_KEYS = ("text", "description", "assertion", "statement", "name")
"""Keys an object-shaped assertion may hold its statement under (the first string one wins)."""


def assertion_text(item: str | dict[str, Any]) -> str:
    """The statement of one assertion: the string itself, or the first text-like key of an
    object (else the object as compact JSON, so nothing is silently dropped)."""
    if isinstance(item, str):
        return item
    for key in ASSERTION_TEXT_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return json.dumps(item, ensure_ascii=False, sort_keys=True)


class SCEval(Doc):
    """One eval case, as authors write it.

    The seed gives an integer `id` and `expectations`; real files also use string ids (or
    none: the position numbers the case), write
    `assertions` instead of `expectations`, or are first drafts with `prompt` + `expected_output`
    and no expectations yet (Anthropic's skill-creator asks for those first). All are read;
    `statements()` is what grading uses, and a draft draws a warning, not an error.
    `environment` (skillbench's hermetic world of the case) is kept as is.
    """

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "environment"})

    id: StrictInt | str | None = None
    prompt: str
    expected_output: str | None = None
    files: list[str] | None = None
    expectations: list[str] | None = None
    assertions: list[str | dict[str, Any]] | None = None

    def statements(self) -> list[str]:
        """The verifiable statements: `expectations`, else `assertions`, else none (a draft)."""
        if self.expectations is not None:
            return list(self.expectations)
        return [assertion_text(item) for item in self.assertions or []]


def case_ids(cases: list[SCEval]) -> list[int | str]:
    """Each case's id; a case written without one is numbered by its position (1, 2, …)."""
    return [case.id if case.id is not None else index + 1 for index, case in enumerate(cases)]


def _unique_ids(cases: list[SCEval], where: str) -> None:
    seen: set[str] = set()
    for index, case_id in enumerate(case_ids(cases)):
        key = str(case_id)
        if key in seen:
            raise rule_error("unique-id", f"duplicate eval id {case_id!r}", f"{where}[{index}].id")
        seen.add(key)


def _draft_warnings(cases: list[SCEval], where: str) -> list[str]:
    """A warning per case a later step cannot use fully: grading needs expectations."""
    found: list[str] = []
    for index, (case, case_id) in enumerate(zip(cases, case_ids(cases), strict=True)):
        if not case.statements():
            found.append(
                f"{where}[{index}] (id {case_id!r}): no expectations yet (a first draft); "
                "`run` works, grading needs expectations or assertions"
            )
    return found


class SCEvals(Doc):
    """`evals/evals.json`; `skill_name` may be missing (it is only a label)."""

    skill_name: str | None = None
    evals: list[SCEval]

    @model_validator(mode="after")
    def _unique(self) -> SCEvals:
        _unique_ids(self.evals, "evals")
        return self

    def soft_warnings(self) -> list[str]:
        """Cases without expectations (reported by `schema check`, `init`, `run`)."""
        return _draft_warnings(self.evals, "evals")


class SCEvalList(RootModel[list[SCEval]]):
    """`evals.json` written as a bare list of cases, without the `skill_name` wrapper."""

    @model_validator(mode="after")
    def _unique(self) -> SCEvalList:
        _unique_ids(self.root, "")
        return self

    def soft_warnings(self) -> list[str]:
        """Cases without expectations (reported by `schema check`, `init`, `run`)."""
        return _draft_warnings(self.root, "")

    def wrapped(self) -> SCEvals:
        """The same cases in the seed's `{skill_name, evals}` shape (skill_name unknown)."""
        return SCEvals(evals=list(self.root))


class SCIteration(Doc):
    """One version in Improve mode."""

    version: str
    parent: str | None
    expectation_pass_rate: Rate | None
    grading_result: Literal["baseline", "won", "lost", "tie"] | None
    is_current_best: StrictBool


class SCHistory(Doc):
    """`history.json` at the workspace root."""

    started_at: str
    skill_name: str
    current_best: str
    iterations: list[SCIteration] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_best(self) -> SCHistory:
        labels = [it.version for it in self.iterations]
        for index, label in enumerate(labels):
            if label in labels[:index]:
                raise rule_error(
                    "unique-version", f"duplicate version {label!r}", f"iterations[{index}].version"
                )
        for index, it in enumerate(self.iterations):
            if it.parent is not None and it.parent not in labels:
                raise rule_error(
                    "parent-exists",
                    f"parent {it.parent!r} is not a version",
                    f"iterations[{index}].parent",
                )
        best = [i for i, it in enumerate(self.iterations) if it.is_current_best]
        if len(best) != 1:
            raise rule_error(
                "one-current-best",
                f"exactly one iteration must have is_current_best: true (found {len(best)})",
                "iterations",
            )
        if labels[best[0]] != self.current_best:
            raise rule_error(
                "current-best-matches",
                f"current_best {self.current_best!r} but the iteration marked best is "
                f"{labels[best[0]]!r}",
                "current_best",
            )
        return self


class SCExpectation(Doc):
    """A graded expectation with evidence."""

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "method"})

    text: str
    passed: StrictBool
    evidence: str


class SCSummary(Doc):
    """Aggregate pass/fail counts."""

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "ungraded"})

    passed: Count
    failed: Count
    total: Count
    pass_rate: Rate

    @model_validator(mode="after")
    def _counts(self) -> SCSummary:
        check_pass_counts(self.passed, self.failed, self.total, self.pass_rate)
        return self


class SCMetrics(Doc):
    """`outputs/metrics.json` (also embedded as grading `execution_metrics`)."""

    tool_calls: dict[str, Count]
    total_tool_calls: Count
    total_steps: Count | None = None
    files_created: list[str] | None = None
    errors_encountered: Count | None = None
    output_chars: Count | None = None
    transcript_chars: Count | None = None

    @model_validator(mode="after")
    def _total(self) -> SCMetrics:
        counted = sum(self.tool_calls.values())
        if counted != self.total_tool_calls:
            raise rule_error(
                "total-tool-calls",
                f"total_tool_calls must equal the sum of tool_calls = {counted}, "
                f"got {self.total_tool_calls}",
                "total_tool_calls",
            )
        return self


class SCTiming(Doc):
    """`timing.json` (also embedded as grading `timing`); every field optional."""

    total_tokens: Count | None = None
    duration_ms: Count | None = None
    total_duration_seconds: Number | None = None
    executor_start: str | None = None
    executor_end: str | None = None
    executor_duration_seconds: Number | None = None
    grader_start: str | None = None
    grader_end: str | None = None
    grader_duration_seconds: Number | None = None


class SCClaim(Doc):
    """An extracted, verified claim."""

    claim: str
    type: str | None = None
    verified: StrictBool
    evidence: str


class SCUserNotes(Doc):
    """Issues flagged by the executor."""

    uncertainties: list[str] | None = None
    needs_review: list[str] | None = None
    workarounds: list[str] | None = None


class SCFeedbackItem(Doc):
    """A suggestion about one assertion."""

    assertion: str | None = None
    reason: str


class SCEvalFeedback(Doc):
    """Grader's suggestions for the evals."""

    suggestions: list[SCFeedbackItem] | None = None
    overall: str | None = None


class SCGrading(Doc):
    """`<run-dir>/grading.json`."""

    extension_keys: ClassVar[frozenset[str]] = frozenset(
        {"skillbench", "ungraded", "grader", "config", "score_note", "skill_version"}
    )

    expectations: list[SCExpectation]
    summary: SCSummary
    execution_metrics: SCMetrics | None = None
    timing: SCTiming | None = None
    claims: list[SCClaim] | None = None
    user_notes_summary: SCUserNotes | None = None
    eval_feedback: SCEvalFeedback | None = None

    def soft_warnings(self) -> list[str]:
        """Inconsistencies the upstream example itself shows, so reported as warnings only."""
        listed = len(self.expectations)
        if listed != self.summary.total:
            return [f"summary.total: {self.summary.total} but {listed} expectations are listed"]
        return []


class SCRunResult(Doc):
    """Numbers of one benchmark run."""

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "ungraded"})

    pass_rate: Rate
    passed: Count
    failed: Count | None = None
    total: Count
    time_seconds: Number | None = None
    tokens: Count | None = None
    tool_calls: Count | None = None
    errors: Count | None = None

    @model_validator(mode="after")
    def _counts(self) -> SCRunResult:
        check_pass_counts(self.passed, self.failed, self.total, self.pass_rate)
        return self


class SCBenchmarkRun(Doc):
    """One (eval, configuration, run) of a benchmark."""

    eval_id: StrictInt
    eval_name: str | None = None
    configuration: str
    run_number: StrictInt = Field(ge=1)
    result: SCRunResult
    expectations: list[SCExpectation] | None = None
    notes: list[str] | None = None


class SCStat(Doc):
    """mean/stddev/min/max of one measure."""

    extension_keys: ClassVar[frozenset[str]] = frozenset(
        {
            "skillbench",
            "stddev_between_cases",
            "stddev_within_case",
            "n_runs",
            "n_cases",
            "ungraded_runs",
        }
    )

    mean: Number
    stddev: Number
    min: Number | None = None
    max: Number | None = None


class SCConfigSummary(Doc):
    """Aggregates of one configuration."""

    pass_rate: SCStat
    time_seconds: SCStat | None = None
    tokens: SCStat | None = None


class SCBenchmarkMetadata(Doc):
    """Information about the benchmark run."""

    skill_name: str
    skill_path: str | None = None
    executor_model: str | None = None
    analyzer_model: str | None = None
    timestamp: str
    evals_run: list[StrictInt | str]
    runs_per_configuration: StrictInt = Field(ge=1)


class SCBenchmark(Doc):
    """`benchmarks/<timestamp>/benchmark.json`; `run_summary` maps configuration → aggregates,
    plus `delta` (difference strings such as "+0.50"). skillbench adds the paired analysis beside
    it (`extension_keys`), and the cost of the recorded runs (`cost`, a `schemas.cost.CostBlock`)."""

    extension_keys: ClassVar[frozenset[str]] = frozenset(
        {
            "skillbench",
            "comparison",
            "paired",
            "expectation_matrix",
            "non_discriminating",
            "flaky",
            "cost",
        }
    )

    metadata: SCBenchmarkMetadata
    runs: list[SCBenchmarkRun]
    run_summary: dict[str, SCConfigSummary | dict[str, str]]
    notes: list[str] | None = None

    def _paired_text(self) -> tuple[str, bool | None]:
        paired = (self.model_extra or {}).get("paired") or {}
        mean = paired.get("mean_difference")
        cand, base = paired.get("candidate"), paired.get("baseline")
        if mean is None:
            return f"no case was run under both {cand} and {base}", None
        low, high = paired.get("t_ci") or [None, None]
        text = f"{cand} − {base} = {mean:+.2f} pass rate over {paired.get('n_cases', 0)} case(s)"
        if low is None or high is None:
            return text, None
        ok = True if low > 0 else (False if high < 0 else None)
        return f"{text} (CI {low:+.2f} to {high:+.2f})", ok

    def __repr__(self) -> str:
        return one_line("SCBenchmark", f"{self.metadata.skill_name}: {self._paired_text()[0]}")

    def _repr_html_(self) -> str:
        rows = []
        for config, value in self.run_summary.items():
            if isinstance(value, SCConfigSummary):
                rows.append([
                    config, value.pass_rate.mean, value.pass_rate.stddev,
                    value.time_seconds.mean if value.time_seconds else None,
                    value.tokens.mean if value.tokens else None,
                ])  # fmt: skip
        table = table_html(["config", "pass rate", "stddev", "time (s)", "tokens"], rows)
        verdict, ok = self._paired_text()
        meta = [("skill", self.metadata.skill_name), ("runs", str(len(self.runs)))]
        return box_html("Benchmark", verdict, ok, meta, table=table)

    @model_validator(mode="after")
    def _summary_shape(self) -> SCBenchmark:
        for key, value in self.run_summary.items():
            if key == "delta" and not isinstance(value, dict):
                raise rule_error(
                    "delta-strings", "delta maps measures to strings", "run_summary.delta"
                )
            if key != "delta" and not isinstance(value, SCConfigSummary):
                raise rule_error(
                    "config-summary",
                    "each configuration needs pass_rate/time_seconds/tokens statistics",
                    f"run_summary.{key}",
                )
        return self


class SCRubricSide(Doc):
    """Rubric scores (1–5 criteria) for one output."""

    content: dict[str, Number]
    structure: dict[str, Number]
    content_score: Number
    structure_score: Number
    overall_score: Number


class SCQuality(Doc):
    """Overall quality judgement for one output."""

    score: Number
    strengths: list[str]
    weaknesses: list[str]


class SCComparison(Doc):
    """Blind comparator output."""

    winner: Literal["A", "B", "TIE"]
    reasoning: str
    rubric: dict[Literal["A", "B"], SCRubricSide] | None = None
    output_quality: dict[Literal["A", "B"], SCQuality] | None = None
    expectation_results: dict[str, object] | None = None


class SCComparisonSummary(Doc):
    """Which output won, unblinded."""

    winner: Literal["A", "B", "TIE"] | None = None
    winner_skill: str | None = None
    loser_skill: str | None = None
    comparator_reasoning: str | None = None


class SCInstructionFollowing(Doc):
    """Score and issues of one side."""

    score: Number
    issues: list[str]


class SCSuggestion(Doc):
    """A prioritised improvement suggestion."""

    priority: Literal["high", "medium", "low"] | None = None
    category: str | None = None
    suggestion: str
    expected_impact: str | None = None


class SCAnalysis(Doc):
    """Post-hoc analyzer output."""

    comparison_summary: SCComparisonSummary
    winner_strengths: list[str]
    loser_weaknesses: list[str]
    instruction_following: dict[str, SCInstructionFollowing] | None = None
    improvement_suggestions: list[SCSuggestion]
    transcript_insights: dict[str, str] | None = None
