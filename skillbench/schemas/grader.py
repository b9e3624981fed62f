"""Seed 001 Behavior Grading Output (the grader prompt template): assertions + four 1–5 dimensions."""

from __future__ import annotations

from pydantic import Field, StrictBool

from skillbench.schemas.common import Doc, Number, Score5


class Assertion(Doc):
    """One graded assertion."""

    text: str
    passed: StrictBool
    evidence: str


class Dimension(Doc):
    """A 1–5 score with notes."""

    score: Score5
    notes: str


class Dimensions(Doc):
    """The four fixed dimensions."""

    task_completion: Dimension
    output_structure: Dimension
    error_handling: Dimension
    efficiency: Dimension


class BehaviorGrading(Doc):
    """The grader's answer for one run."""

    assertions: list[Assertion]
    dimensions: Dimensions
    overall_score: Number = Field(ge=1, le=5)
    summary: str
    weak_assertions: list[str]
    missing_coverage: list[str]
