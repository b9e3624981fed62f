"""A graded workspace with known model verdicts, for the calibration tests.

Two cases × two model-only expectations, three runs per case in each arm (with_skill, baseline):
24 model verdicts. The fake grader passes an expectation when `VERDICTS` says so; each run's
transcript carries a marker the fake reads to know which run it grades."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from grade_fixtures import FakeTextModel, RunSpec, asked_ids, grader_reply, make_run, make_skill

from skillbench.backends.base import TextRequest
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.workspace import Workspace

EVALS: dict[str, Any] = {
    "version": "1.0",
    "cases": [
        {
            "id": "alpha",
            "prompt": "Write a haiku about <b>rain</b> into poem.md",
            "expectations": [
                {"criterion": "form", "description": "The poem has three lines", "required": True},
                {"criterion": "topic", "description": "The poem is about rain", "required": True},
            ],
        },
        {
            "id": "beta",
            "prompt": "Explain recursion briefly",
            "expectations": [
                {"criterion": "short", "description": "The answer is brief", "required": True},
                {"criterion": "example", "description": "It gives an example", "required": True},
            ],
        },
    ],
}
ARMS = ("with_skill", "baseline")
CASES = ("alpha", "beta")
RUNS = (1, 2, 3)
EXPECTATIONS = {
    "alpha": ("The poem has three lines", "The poem is about rain"),
    "beta": ("The answer is brief", "It gives an example"),
}


def grader_says(arm: str, case: str, run: int, number: int) -> bool:
    """The fake grader's verdict: with_skill passes all but run 3's second expectation;
    baseline passes only run 1 (both expectations) and run 2's first."""
    if arm == "with_skill":
        return not (run == 3 and number == 2)
    return run == 1 or (run == 2 and number == 1)


def _reply(request: TextRequest) -> str:
    arm, case, run = re.search(r"MARK (\w+)/(\w+)/(\d)", request.prompt).groups()  # type: ignore[union-attr]
    reply = grader_reply(asked_ids(request.prompt), quote="MARK")
    for judgement in reply["judgements"]:
        passed = grader_says(arm, case, int(run), judgement["id"])
        judgement["score"] = 4 if passed else 2
    return json.dumps(reply)


def graded_workspace(root: Path) -> tuple[Path, Workspace]:
    """The skill folder and its graded workspace."""
    skill = make_skill(root, EVALS)
    space = Workspace.for_skill(skill)
    for arm in ARMS:
        for case in CASES:
            for run in RUNS:
                transcript = (
                    f"## User\nplease\n\n## Assistant\nMARK {arm}/{case}/{run} "
                    "done <script>alert(1)</script>\n"
                )
                make_run(space, RunSpec(arm, case, run, {"poem.md": "rain\n"},
                                        final_text="done", transcript=transcript))  # fmt: skip
    grade_workspace_sync(skill, text_model=FakeTextModel(_reply))
    return skill, space


def run_path(arm: str, case: str, run: int) -> str:
    """The run folder relative to the workspace, as labels name it."""
    return f"runs/{arm}/{case}/run-{run}"
