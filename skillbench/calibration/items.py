"""The grader verdicts a human can label: every model-graded expectation of every graded run.

Machine checks are left out (they are not the LLM grader). Each item carries its arm (the run's
configuration) and the grader's verdict, which the labelling page never shows, and whether the
verdict was borderline (score 3, the pass threshold, or an unverified quote): `grade` asks the
grader once per run, so a borderline score stands in for repeated calls that would disagree.
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
                )
            )
    return items


def workspace_of(skill_dir: str | Path, workspace: str | Path | None = None) -> Workspace:
    """The skill's behavior workspace."""
    return Workspace.for_skill(skill_dir, workspace)
