"""One dialect-neutral model per concept (evals, history, grading, comparison, analysis).

Conversions go dialect → canonical → dialect, so each dialect needs one adapter per concept.
Canonical fields are a superset; a field is None when the source dialect does not carry it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class CanonicalModel(BaseModel):
    """Base of the canonical models (not persisted; extras of the source are kept in `extra`)."""

    extra: dict[str, Any] = Field(default_factory=dict, description="unmapped source keys")


class Expectation(CanonicalModel):
    """A statement a run must satisfy."""

    text: str
    criterion: str | None = None
    required: bool | None = None


class Case(CanonicalModel):
    """One eval case."""

    id: str | int
    prompt: str
    expected_output: str | None = None
    files: list[str] | None = None
    expectations: list[Expectation]


class Evals(CanonicalModel):
    """A set of eval cases for one skill."""

    skill_name: str | None = None
    skill_path: str | None = None
    schema_version: str | None = None
    cases: list[Case]


class Version(CanonicalModel):
    """A snapshot of the skill."""

    label: str
    number: int | None = None
    parent: str | None = None
    timestamp: str | None = None
    description: str | None = None
    git_hash: str | None = None
    path: str | None = None
    mean_score: float | None = Field(default=None, description="mean 1–5 criterion score")
    pass_rate: float | None = Field(default=None, description="expectation pass rate 0–1")
    result: Literal["baseline", "won", "lost", "tie"] | None = None


class History(CanonicalModel):
    """The version progression of one workspace."""

    skill_name: str | None = None
    started_at: str | None = None
    versions: list[Version]
    current: str | None = Field(default=None, description="version being worked on")
    best: str | None = Field(default=None, description="best performer so far")


class Criterion(CanonicalModel):
    """One graded statement."""

    text: str
    passed: bool
    score: int | None = Field(default=None, description="1–5 when the grader scored it")
    required: bool | None = None
    evidence: str | None = None


class Claim(CanonicalModel):
    """A claim the executor made, verified or not."""

    claim: str
    verified: bool
    evidence: str
    type: str | None = None


class Grading(CanonicalModel):
    """The grading of one run."""

    case_id: str | None = None
    version: int | None = None
    run: int | None = None
    criteria: list[Criterion]
    overall_score: float | None = None
    required_score: float | None = None
    conventions: dict[str, Any] | None = None
    claims: list[Claim] | None = None
    user_notes: str | dict[str, Any] | None = None
    eval_feedback: str | dict[str, Any] | None = None
    execution_metrics: dict[str, Any] | None = None
    timing: dict[str, Any] | None = None


class Comparison(CanonicalModel):
    """A blind A/B comparison."""

    winner: Literal["A", "B", "TIE"]
    reasoning: str
    eval_prompt: str | None = None
    dimension_scores: dict[str, dict[str, int]] | None = Field(
        default=None, description="writing-skills 1–10 dimensions"
    )
    rubric: dict[str, Any] | None = None
    output_quality: dict[str, Any] | None = None
    expectation_results: dict[str, Any] | None = None


class Suggestion(CanonicalModel):
    """A proposed change to the skill."""

    text: str | None = None
    area: str | None = None
    before: str | None = None
    after: str | None = None
    reasoning: str | None = None
    priority: str | None = None


class Analysis(CanonicalModel):
    """Why the winner won and what to change."""

    winner_label: str | None = Field(default=None, description="version label, e.g. v1")
    loser_label: str | None = None
    winner_skill: str | None = Field(default=None, description="path of the winning skill")
    loser_skill: str | None = None
    blind_winner: str | None = None
    comparator_reasoning: str | None = None
    strengths: list[str]
    weaknesses: list[str]
    suggestions: list[Suggestion]
    instruction_following: dict[str, Any] | None = None
    transcript_insights: dict[str, Any] | None = None
