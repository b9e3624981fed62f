"""Seed 002, the "writing-skills" workspace: evals, history, grading, comparison, analysis."""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, StrictBool, StrictInt, field_validator, model_validator

from skillbench.schemas.common import Doc, Number, Score5, Score10, close, rule_error

KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
PASS_SCORE = 3


class WSExpectation(Doc):
    """A criterion of a case; `required` failures fail the case."""

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "check"})

    criterion: str
    description: str
    required: StrictBool


class WSCase(Doc):
    """One test case (`environment`: skillbench's hermetic world of the case, kept as is)."""

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "environment"})

    id: str
    prompt: str
    files: list[str] | None = None
    expectations: list[WSExpectation]

    @field_validator("id")
    @classmethod
    def _kebab(cls, value: str) -> str:
        if not KEBAB.match(value):
            raise rule_error("id-kebab-case", f"id {value!r} must be kebab-case")
        return value

    @model_validator(mode="after")
    def _one_required(self) -> WSCase:
        if not any(e.required for e in self.expectations):
            raise rule_error(
                "required-expectation",
                "at least one expectation must have required: true (else the case can never fail)",
                "expectations",
            )
        return self


class WSEvals(Doc):
    """`evals/evals.json`."""

    version: str | None = None
    skill: str | None = None
    cases: list[WSCase]

    @model_validator(mode="after")
    def _unique_ids(self) -> WSEvals:
        seen: set[str] = set()
        for index, case in enumerate(self.cases):
            if case.id in seen:
                raise rule_error(
                    "unique-id", f"duplicate case id {case.id!r}", f"cases[{index}].id"
                )
            seen.add(case.id)
        return self

    def required_criteria(self, case_id: str) -> dict[str, bool]:
        """criterion → required, for one case (InputError-free: empty when the case is unknown)."""
        for case in self.cases:
            if case.id == case_id:
                return {e.criterion: e.required for e in case.expectations}
        return {}


class WSVersion(Doc):
    """A snapshot of the skill."""

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "grading_result"})

    version: StrictInt = Field(ge=0)
    timestamp: str | None
    description: str
    git_hash: str | None
    path: str
    average_score: Number | None


class WSHistory(Doc):
    """`history.json` of the workspace."""

    extension_keys: ClassVar[frozenset[str]] = frozenset(
        {"skillbench", "started_at", "skill_name", "current_best"}
    )

    versions: list[WSVersion] = Field(min_length=1)
    current_version: StrictInt

    @model_validator(mode="after")
    def _current_exists(self) -> WSHistory:
        numbers = [v.version for v in self.versions]
        for index, number in enumerate(numbers):
            if number in numbers[:index]:
                raise rule_error(
                    "unique-version", f"duplicate version {number}", f"versions[{index}].version"
                )
        if self.current_version not in numbers:
            raise rule_error(
                "current-version-exists",
                f"current_version {self.current_version} is not a recorded version {numbers}",
                "current_version",
            )
        return self


class WSCriterionResult(Doc):
    """A graded criterion; `passed` is derived from `score`."""

    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench", "score_source"})

    criterion: str
    score: Score5
    passed: StrictBool
    reasoning: str

    @model_validator(mode="after")
    def _derived(self) -> WSCriterionResult:
        if self.passed != (self.score >= PASS_SCORE):
            raise rule_error(
                "passed-derived-from-score",
                f"passed must be {str(self.score >= PASS_SCORE).lower()} for score {self.score} "
                f"(passed = score >= {PASS_SCORE}; never set independently)",
                "passed",
            )
        return self


class WSCheck(Doc):
    """One convention check."""

    passed: StrictBool
    details: str


class WSConventions(Doc):
    """The five fixed convention checks."""

    frontmatter: WSCheck
    description_field: WSCheck
    token_efficiency: WSCheck
    progressive_disclosure: WSCheck
    type_alignment: WSCheck

    @model_validator(mode="after")
    def _no_other_keys(self) -> WSConventions:
        for key in self.model_extra or {}:
            raise rule_error(
                "convention-keys",
                f"unknown key {key!r}: the keys are fixed to {', '.join(CONVENTION_KEYS)}",
                key,
            )
        return self


CONVENTION_KEYS: tuple[str, ...] = tuple(WSConventions.model_fields)
"""The five convention check names, in the seed's order."""


class WSClaim(Doc):
    """A claim the executor made."""

    claim: str
    verified: StrictBool
    evidence: str


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


class WSGrading(Doc):
    """`grading/<case>_v<version>_run<run>.json`."""

    extension_keys: ClassVar[frozenset[str]] = frozenset(
        {"skillbench", "config", "ungraded", "grader", "score_note", "skill_version"}
    )

    case_id: str
    version: StrictInt = Field(ge=0)
    run: StrictInt = Field(ge=1)
    overall_score: Number
    required_score: Number | None
    results: list[WSCriterionResult] = Field(min_length=1)
    overall: Literal["pass", "fail"]
    convention_compliance: WSConventions | None = None
    claims: list[WSClaim] | None = None
    user_notes_summary: str | None = None
    eval_feedback: str | None = None
    execution_metrics: dict[str, object] | None = None

    @model_validator(mode="after")
    def _overall_score(self) -> WSGrading:
        want = round(_mean([r.score for r in self.results]), 1)
        if not close(self.overall_score, want, 0.05):
            raise rule_error(
                "overall-score-mean",
                f"overall_score must be the mean of all scores = {want}, got {self.overall_score}",
                "overall_score",
            )
        if self.overall == "pass" and not any(r.passed for r in self.results):
            raise rule_error(
                "overall-pass-rule",
                'overall is "pass" but no criterion passed',
                "overall",
            )
        if self.overall == "fail" and all(r.passed for r in self.results):
            raise rule_error(
                "overall-pass-rule",
                'overall is "fail" but every criterion passed (so every required one did)',
                "overall",
            )
        return self

    def check_against(self, evals: WSEvals) -> list[str]:
        """Errors of this grading against the case's required flags (empty when consistent)."""
        required = evals.required_criteria(self.case_id)
        if not required:
            return [f"case_id: {self.case_id!r} is not a case of the evals [case-exists]"]
        errors: list[str] = []
        for index, result in enumerate(self.results):
            if result.criterion not in required:
                errors.append(
                    f"results[{index}].criterion: {result.criterion!r} is not a criterion of "
                    f"case {self.case_id!r} [criterion-exists]"
                )
        flagged = [r for r in self.results if required.get(r.criterion, False)]
        want_overall = "pass" if all(r.passed for r in flagged) else "fail"
        if self.overall != want_overall:
            errors.append(
                f'overall: must be "{want_overall}": "pass" only when every required criterion '
                f"passed [overall-pass-rule]"
            )
        want_required = round(_mean([r.score for r in flagged]), 1) if flagged else None
        if want_required is not None and (
            self.required_score is None or not close(self.required_score, want_required, 0.05)
        ):
            errors.append(
                f"required_score: must be the mean of required scores = {want_required}, "
                f"got {self.required_score} [required-score-mean]"
            )
        return errors


class WSPair(Doc):
    """One dimension scored for both outputs (1–10)."""

    A: Score10
    B: Score10


class WSScores(Doc):
    """The five fixed comparison dimensions."""

    description_quality: WSPair
    convention_compliance: WSPair
    type_specific_quality: WSPair
    token_efficiency: WSPair
    content_value: WSPair


class WSComparison(Doc):
    """Blind A/B comparison."""

    eval_prompt: str | None = None
    winner: Literal["A", "B"]
    reasoning: str
    scores: WSScores | None = None


class WSSuggestion(Doc):
    """A directly actionable change."""

    area: str
    before: str
    after: str
    reasoning: str | None = None


class WSAnalysis(Doc):
    """Improvement analysis after a comparison."""

    winner_version: str
    loser_version: str
    strengths: list[str]
    weaknesses: list[str]
    suggestions: list[WSSuggestion]
