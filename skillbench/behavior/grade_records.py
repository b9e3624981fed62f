"""What grading produces, in memory: one expectation's verdict, one run's grading, a whole call's.

Kept apart from `grade` (which computes them) so the dialect writers can use them without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from skillbench.behavior.grade_prompt import GraderReply
from skillbench.behavior.workspace import StoredRun, Workspace
from skillbench.schemas import skill_creator as sc
from skillbench.schemas import writing_skills as ws
from skillbench.schemas.cost import CostBlock
from skillbench.schemas.display import box_html, one_line, table_html

Method = Literal["check", "model", "ungraded"]


@dataclass
class GradedExpectation:
    """One expectation of one run, with how it was decided (or why it was not)."""

    number: int
    text: str
    criterion: str
    required: bool
    method: Method
    passed: bool | None = None
    score: int | None = None
    evidence: str = ""
    quote_verified: bool | None = None
    repeat_verdicts: list[bool] | None = None
    """Each repeated grader call's verdict (`grade --repeats` > 1), in call order; `passed` is
    their majority (a tie fails). None when the grader was asked once."""


@dataclass
class RunGrade:
    """The grading of one run folder, and what was written for it."""

    run: StoredRun
    items: list[GradedExpectation]
    reply: GraderReply | None = None
    grader_note: str | None = None
    grader_problem: str | None = None
    """Why the model grader, asked, gave no usable verdict (its reply invalid twice)."""
    grader: dict[str, str | None] = field(default_factory=dict)
    metrics: sc.SCMetrics | None = None
    timing: sc.SCTiming | None = None
    conventions: dict[str, ws.WSCheck] = field(default_factory=dict)
    conventions_ungraded: dict[str, str] = field(default_factory=dict)
    written: dict[str, Path] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def graded(self) -> list[GradedExpectation]:
        """Expectations with a verdict."""
        return [i for i in self.items if i.passed is not None]

    @property
    def ungraded(self) -> list[GradedExpectation]:
        """Expectations left without a verdict."""
        return [i for i in self.items if i.passed is None]

    @property
    def passed(self) -> int:
        """Graded expectations that passed."""
        return sum(1 for i in self.graded if i.passed)

    @property
    def pass_rate(self) -> float | None:
        """passed / graded, or None when nothing was graded."""
        return self.passed / len(self.graded) if self.graded else None


@dataclass
class GradeSummary:
    """Every run graded in one call."""

    workspace: Workspace
    backend: str
    model: str | None
    runs: list[RunGrade]
    notes: list[str] = field(default_factory=list)
    stopped_at_cap: int = 0  # runs left ungraded because the spend reached the cost cap
    cost: CostBlock | None = None  # the grader's calls and call-cache hits in this call

    @property
    def ungraded(self) -> int:
        """Ungraded expectations over all runs."""
        return sum(len(r.ungraded) for r in self.runs)

    @property
    def graded(self) -> int:
        """Graded expectations over all runs."""
        return sum(len(r.graded) for r in self.runs)

    def _line(self) -> str:
        passed = sum(r.passed for r in self.runs)
        rate = f", pass rate {passed / self.graded:.2f} (graded only)" if self.graded else ""
        model = f" ({self.model})" if self.model else ""
        return (
            f"grader {self.backend}{model}: {len(self.runs)} run(s), {self.graded} expectations "
            f"graded, {self.ungraded} UNGRADED{rate}"
        )

    def __repr__(self) -> str:
        return one_line("GradeSummary", self._line())

    def _repr_html_(self) -> str:
        rows = [
            [r.run.record.config, r.run.record.case_id, r.run.record.run_number, r.passed,
             len(r.graded), len(r.ungraded), r.pass_rate]
            for r in self.runs
        ]  # fmt: skip
        table = table_html(
            ["config", "case", "run", "passed", "graded", "ungraded", "pass rate"], rows
        )
        failed = sum(len(r.graded) - r.passed for r in self.runs)
        ok = None if not self.graded else failed == 0
        meta = [("workspace", str(self.workspace.root))] + [("note", n) for n in self.notes[:3]]
        return box_html("Grading", self._line(), ok, meta, table=table)
