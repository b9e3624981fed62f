"""The grader verdicts a human can label: every model-graded expectation of every graded run.

Machine checks are left out (they are not the LLM grader). Each item carries its arm (the run's
configuration), the grader's verdict and, when `grade --repeats` asked more than once, each
call's verdict — none of which the labelling page shows — and its doubt: "disagreed" (the
repeated calls did not agree), else "borderline" (score 3, the pass threshold, or an unverified
quote), else "clear". The sampler takes the most doubtful first; the weights undo it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from skillbench.behavior.grade import read_gradings
from skillbench.behavior.workspace import Workspace

BORDERLINE_SCORE = 3
UNVERIFIED_MARK = "[UNVERIFIED"  # how `grade` marks a quote not found in the run


@dataclass(frozen=True)
class GraderItem:
    """One model verdict on one expectation of one run."""

    run: str
    """The run folder relative to the workspace (`runs/<config>/<case>/run-<k>`)."""
    expectation: str
    arm: str
    case_id: str
    grader_pass: bool
    score: int | None
    unsure: bool
    """Borderline: score 3 (the pass threshold) or a quote not found in the run."""
    repeat_verdicts: tuple[bool, ...] = ()
    """Each repeated grader call's verdict (`grade --repeats`); empty when asked once."""

    @property
    def repeated(self) -> bool:
        """Whether the grader was asked more than once about this verdict."""
        return len(self.repeat_verdicts) > 1

    @property
    def disagreed(self) -> bool:
        """Whether the repeated grader calls gave different verdicts."""
        return len(set(self.repeat_verdicts)) > 1

    @property
    def doubt(self) -> str:
        """ "disagreed", "borderline" or "clear": the sampler's priority and a weighting cell."""
        if self.disagreed:
            return "disagreed"
        return "borderline" if self.unsure else "clear"

    @property
    def key(self) -> tuple[str, str]:
        """(run, expectation): what a label names."""
        return self.run, self.expectation

    @property
    def item_id(self) -> str:
        """An opaque id for the page (says nothing about the arm or the verdict)."""
        return hashlib.sha256(f"{self.run}\x00{self.expectation}".encode()).hexdigest()[:16]


def grader_items(skill_dir: str | Path, workspace: str | Path | None = None) -> list[GraderItem]:
    """Every model-graded expectation with a verdict, in workspace order."""
    summary = read_gradings(skill_dir, workspace=workspace)
    root = summary.workspace.root
    items: list[GraderItem] = []
    for grade in summary.runs:
        run = grade.run.dir.relative_to(root).as_posix()
        for exp in grade.items:
            if exp.method != "model" or exp.passed is None:
                continue
            unverified = exp.evidence.startswith(UNVERIFIED_MARK)
            items.append(
                GraderItem(
                    run=run,
                    expectation=exp.text,
                    arm=grade.run.record.config,
                    case_id=grade.run.record.case_id,
                    grader_pass=exp.passed,
                    score=exp.score,
                    unsure=exp.score == BORDERLINE_SCORE or unverified,
                    repeat_verdicts=tuple(exp.repeat_verdicts or ()),
                )
            )
    return items


def workspace_of(skill_dir: str | Path, workspace: str | Path | None = None) -> Workspace:
    """The skill's behavior workspace."""
    return Workspace.for_skill(skill_dir, workspace)
