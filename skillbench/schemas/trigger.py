"""Seed 001 trigger eval input (Formats A and B) and output, with skillbench's added fields.

Added fields never change the meaning of a seed field. In particular ``runs`` counts the runs
that completed (triggered or not); runs that errored (timeout, crash, API error) are counted in
``errors`` only, so ``trigger_rate == triggers / runs`` holds and an error is never a
"not triggered". A query with no completed run is ``unresolved`` and never passes.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, RootModel, StrictBool, StrictInt, field_validator, model_validator

from skillbench.schemas.base import Document
from skillbench.schemas.common import rule_error
from skillbench.schemas.cost import CostBlock, TokenCounts
from skillbench.schemas.display import box_html, clip, one_line, table_html

RATE_TOLERANCE = 1e-4  # the reference tool rounds trigger_rate to 4 decimals


def expected_pass(should_trigger: bool, trigger_rate: float, threshold: float, runs: int) -> bool:
    """Seed 001 pass rule: positives need rate >= threshold, negatives rate < threshold.

    A query with no completed run (``runs == 0``) is unresolved and never passes.
    """
    if runs == 0:
        return False
    return trigger_rate >= threshold if should_trigger else trigger_rate < threshold


class TriggerQuery(Document):
    """One query of a trigger eval set; the text is under `query` (Format A) or `prompt` (B)."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"query", "prompt", "family", "note"})

    query: str | None = None
    prompt: str | None = None
    should_trigger: StrictBool
    family: str | None = Field(default=None, description="optional cluster label (skillbench)")
    note: str | None = Field(default=None, description="free-text note (skillbench)")

    @model_validator(mode="after")
    def _one_text(self) -> TriggerQuery:
        if self.query is None and self.prompt is None:
            raise rule_error("query-required", "each item needs `query` or `prompt`")
        if self.query is not None and self.prompt is not None:
            raise rule_error("query-or-prompt", "give `query` or `prompt`, not both")
        if not (self.query or self.prompt or "").strip():
            key = "query" if self.query is not None else "prompt"
            raise rule_error("query-non-empty", f"`{key}` must be a non-empty string", key)
        return self

    @property
    def text(self) -> str:
        """The query text, whichever key carried it."""
        return self.query if self.query is not None else (self.prompt or "")


class TriggerEvalSetA(RootModel[list[TriggerQuery]]):
    """Format A: a JSON array of query objects."""


class TriggerEvalSetB(Document):
    """Format B: an object with an `evals` array."""

    evals: list[TriggerQuery]


class Interval(Document):
    """A rate with its 95 % interval and the number of units it is computed over."""

    value: float | None
    low: float | None
    high: float | None
    n: int
    method: str = "wilson"


class TriggerResult(Document):
    """Seed 001 per-query result, plus intervals and diagnostics."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset(
        {
            "family",
            "ci_low",
            "ci_high",
            "flaky",
            "settled",
            "unresolved",
            "fired_instead",
            "runs_planned",
            "stopped_early",
            "error_messages",
            "undecided",
            "undecided_tools",
            "error_kinds",
        }
    )

    query: str
    should_trigger: StrictBool
    triggers: StrictInt = Field(ge=0)
    runs: StrictInt = Field(ge=0, description="completed runs (errored runs are not counted)")
    errors: StrictInt = Field(ge=0)
    trigger_rate: float = Field(ge=0.0, le=1.0)
    passed: StrictBool = Field(alias="pass")
    family: str | None = None
    ci_low: float | None = Field(default=None, description="Wilson 95% lower bound of the rate")
    ci_high: float | None = Field(default=None, description="Wilson 95% upper bound of the rate")
    flaky: bool | None = Field(
        default=None, description="runs disagree and the interval straddles the threshold"
    )
    settled: bool | None = Field(
        default=None, description="the interval lies entirely on one side of the threshold"
    )
    unresolved: bool | None = Field(default=None, description="no completed run: not decided")
    fired_instead: dict[str, int] | None = Field(
        default=None, description="other skills that fired on this query, with counts"
    )
    runs_planned: int | None = Field(default=None, description="runs a fixed design would make")
    stopped_early: bool | None = None
    error_messages: list[str] | None = None
    undecided: int | None = Field(
        default=None,
        description="runs whose first move was another tool (replay): neither trigger nor miss, "
        "not counted in runs",
    )
    undecided_tools: dict[str, int] | None = Field(
        default=None, description="the tools called first in undecided runs, with counts"
    )
    error_kinds: dict[str, int] | None = Field(
        default=None, description="errored runs by kind (empty, max_tokens, refusal, ...)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> TriggerResult:
        if self.triggers > self.runs:
            raise rule_error(
                "triggers-le-runs",
                f"triggers ({self.triggers}) cannot exceed runs ({self.runs})",
                "triggers",
            )
        expected = self.triggers / self.runs if self.runs else 0.0
        if abs(self.trigger_rate - expected) > RATE_TOLERANCE:
            raise rule_error(
                "trigger-rate",
                f"trigger_rate must equal triggers / runs = {expected:.4f}, got {self.trigger_rate}",
                "trigger_rate",
            )
        if self.ci_low is not None and self.ci_high is not None and self.runs:
            low, high, rate = self.ci_low, self.ci_high, self.trigger_rate
            if not (0.0 <= low <= rate + RATE_TOLERANCE and rate - RATE_TOLERANCE <= high <= 1.0):
                raise rule_error(
                    "interval-contains-rate",
                    f"the interval [{low}, {high}] must lie in [0, 1] and contain the "
                    f"trigger_rate {rate}",
                    "ci_low",
                )
        if self.flaky and self.settled:
            raise rule_error(
                "flaky-is-unsettled", "a flaky query cannot also be settled", "settled"
            )
        if self.flaky and not 0 < self.triggers < self.runs:
            raise rule_error(
                "flaky-needs-disagreement",
                f"flaky requires runs that disagree; {self.triggers} of {self.runs} triggered",
                "flaky",
            )
        return self


class TriggerSummary(Document):
    """Seed 001 summary, plus classification metrics with intervals and run accounting."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset(
        {
            "unresolved",
            "precision",
            "recall",
            "f1",
            "accuracy",
            "pass_rate",
            "pass_rate_clustered",
            "calls",
            "cache_hits",
            "calls_saved",
            "usage",
            "cost_usd",
            "wall_seconds",
            "undecided_runs",
            "errored_runs",
            "cache_read_share",
        }
    )

    passed: StrictInt = Field(ge=0)
    failed: StrictInt = Field(ge=0)
    total: StrictInt = Field(ge=0)
    threshold: float = Field(ge=0.0, le=1.0)
    unresolved: int | None = None
    pass_rate: Interval | None = None
    pass_rate_clustered: Interval | None = Field(
        default=None,
        description="pass rate with a cluster-robust interval over query families (when given)",
    )
    precision: Interval | None = None
    recall: Interval | None = None
    f1: Interval | None = None
    accuracy: Interval | None = None
    calls: int | None = Field(default=None, description="model calls actually made")
    cache_hits: int | None = None
    calls_saved: int | None = Field(default=None, description="runs adaptive sampling skipped")
    usage: TokenCounts | None = None
    cost_usd: float | None = None
    wall_seconds: float | None = None
    undecided_runs: int | None = Field(
        default=None, description="runs whose first move was another tool (undecided)"
    )
    errored_runs: int | None = None
    cache_read_share: float | None = Field(
        default=None, description="share of input tokens served as prompt-cache reads"
    )

    @model_validator(mode="after")
    def _counts(self) -> TriggerSummary:
        if self.passed + self.failed != self.total:
            raise rule_error(
                "summary-counts",
                f"passed ({self.passed}) + failed ({self.failed}) must equal total ({self.total})",
                "total",
            )
        return self


class BackendInfo(Document):
    """Which harness produced the numbers."""

    name: str
    model: str | None = None
    versions: dict[str, str] = Field(default_factory=dict)
    is_proxy: bool = Field(default=False, description="true when this is not Claude (local proxy)")
    notes: str | None = None


class ListingInfo(Document):
    """How Claude Code listed the target skill to the model (what the model saw)."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"rules"})

    target: Literal["full", "truncated", "name-only", "absent", "not-applicable"] = Field(
        description="full description, a truncated one, the bare name only, or not listed"
    )
    budget_chars: int | None = Field(default=None, description="skill listing budget used")
    budget_source: str | None = Field(
        default=None, description="how the budget was found (captured, SLASH_COMMAND_..., ...)"
    )
    listing_chars: int | None = Field(default=None, description="characters of the listing")
    listed_full: int | None = None
    listed_name_only: int | None = None
    source: Literal["captured-request", "estimate", "harness"] = "estimate"
    shown: str | None = Field(default=None, description="the target's line as the model saw it")
    rules: str | None = Field(
        default=None,
        description="whose listing rule an estimate applied: the CLI in use's, read from it, or "
        "a tabled version's (no CLI in use)",
    )
    warning: str | None = None


class CatalogInfo(Document):
    """The competing skills of the eval (`--catalog`)."""

    source: str = Field(description="none, installed, or the folder given")
    skills: list[str] = Field(default_factory=list)
    sha256: str | None = Field(default=None, description="hash of the catalog's skills' content")
    folders: list[str] = Field(default_factory=list)


class HarnessInfo(Document):
    """Which request the model was asked: Claude Code's own, or an imitation."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"as_user", "as_user_taken"})

    name: str
    claude_code_request: bool
    note: str | None = None
    cache_before_query: bool | None = Field(
        default=None, description="replay: one prompt-cache breakpoint added before the query"
    )
    cli_mode: str | None = Field(
        default=None,
        description="whose request: the interactive CLI's (`interactive`, what users type into) "
        "or `claude -p`'s (`print`, headless and SDK users); None when no Claude Code CLI",
    )
    as_user: str | None = Field(
        default=None,
        description="replay with `--as-user`: what of the user's configuration the capture's "
        "HOME got, in one line (`as_user_taken` lists every file)",
    )
    as_user_taken: list[str] | None = Field(
        default=None,
        description="replay with `--as-user`: each file taken (`taken: <source> (<kind>)`) and "
        "each thing left out, with why (`left out: …`)",
    )


class RunConfig(Document):
    """How the eval was run, so it can be reproduced."""

    runs: int | Literal["auto"]
    max_runs: int | None = None
    confidence: float | None = None
    threshold: float
    seed: int
    workers: int
    timeout_seconds: float | None = None
    catalog: list[str] = Field(default_factory=list)
    evals_file: str | None = None
    evals_sha256: str | None = None


class TriggerReport(Document):
    """Seed 001 "Trigger Eval Output", plus provenance, warnings and accounting."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset(
        {
            "backend",
            "config",
            "warnings",
            "notes",
            "created_at",
            "skillbench_version",
            "harness",
            "listing",
            "catalog",
            "cost",
            "header",
        }
    )

    header: dict[str, Any] | None = Field(
        default=None,
        description="skillbench's report header (skill, eval set, backend, harness, model, "
        "runs, date, commit, one-line verdict), first so the file opens with it",
    )
    skill_name: str
    description: str
    summary: TriggerSummary
    results: list[TriggerResult]
    backend: BackendInfo | None = None
    config: RunConfig | None = None
    harness: HarnessInfo | None = None
    listing: ListingInfo | None = None
    catalog: CatalogInfo | None = None
    warnings: list[str] | None = None
    notes: list[str] | None = None
    created_at: str | None = None
    skillbench_version: str | None = None
    cost: CostBlock | None = Field(
        default=None, description="calls, tokens by kind, cache hit share and dollars (skillbench)"
    )

    def __repr__(self) -> str:
        s = self.summary
        parts = [f"{self.skill_name}: {s.passed}/{s.total} queries pass"]
        for name in ("precision", "recall"):
            interval = getattr(s, name)
            if interval is not None and interval.value is not None:
                parts.append(f"{name} {interval.value:.2f}")
        if self.backend is not None:
            model = f" ({self.backend.model})" if self.backend.model else ""
            parts.append(f"backend {self.backend.name}{model}")
        if self.config is not None:
            parts.append(f"runs {self.config.runs} per query")
        if self.catalog is not None:
            parts.append(f"catalog {self.catalog.source} ({len(self.catalog.skills)} skills)")
        return one_line("TriggerReport", ", ".join(parts))

    def _repr_html_(self) -> str:
        from skillbench.schemas.report import ReportHeader

        failing = sorted(self.results, key=lambda r: (r.passed, r.query))
        table = table_html(
            ["query", "should trigger", "fired", "rate", "pass"],
            [
                [r.query, r.should_trigger, f"{r.triggers}/{r.runs}", r.trigger_rate, r.passed]
                for r in failing
            ],
        )
        if self.header:
            return ReportHeader.model_validate(self.header)._repr_html_() + table
        s = self.summary
        verdict = f"{s.passed} of {s.total} queries pass"
        rows = [("skill", self.skill_name), ("description", clip(self.description))]
        return box_html("Trigger eval", verdict, s.failed == 0, rows, table=table)

    @model_validator(mode="after")
    def _summary_matches_results(self) -> TriggerReport:
        summary = self.summary
        for index, result in enumerate(self.results):
            want = expected_pass(
                result.should_trigger, result.trigger_rate, summary.threshold, result.runs
            )
            if result.passed != want:
                raise rule_error(
                    "pass-from-threshold",
                    f"pass must be {str(want).lower()} for "
                    f"should_trigger={str(result.should_trigger).lower()}, "
                    f"trigger_rate={result.trigger_rate} and threshold={summary.threshold}",
                    f"results[{index}].pass",
                )
        passed = sum(1 for r in self.results if r.passed)
        failed = len(self.results) - passed
        if len(self.results) > summary.total:
            raise rule_error(
                "summary-total",
                f"summary.total ({summary.total}) is less than the number of results "
                f"({len(self.results)})",
                "summary.total",
            )
        # A complete report lists every query; the seed's own example lists an excerpt, which
        # is accepted (with a warning) as long as the listed results fit inside the counts.
        complete = len(self.results) == summary.total
        if (complete and passed != summary.passed) or passed > summary.passed:
            raise rule_error(
                "summary-passed",
                f"summary.passed ({summary.passed}) does not match the results that pass ({passed})",
                "summary.passed",
            )
        if (complete and failed != summary.failed) or failed > summary.failed:
            raise rule_error(
                "summary-failed",
                f"summary.failed ({summary.failed}) does not match the results that fail ({failed})",
                "summary.failed",
            )
        return self

    def soft_warnings(self) -> list[str]:
        """Problems that do not make the document invalid (reported by `schema check`)."""
        if len(self.results) < self.summary.total:
            return [
                f"results lists {len(self.results)} of the {self.summary.total} queries the "
                "summary counts (an excerpt): per-query checks cover only those listed"
            ]
        return []

    @field_validator("results")
    @classmethod
    def _unique_queries(cls, results: list[TriggerResult]) -> list[TriggerResult]:
        seen: set[tuple[str, bool]] = set()
        for result in results:
            key = (result.query, result.should_trigger)
            if key in seen:
                raise rule_error("unique-queries", f"duplicate result for query {result.query!r}")
            seen.add(key)
        return results
