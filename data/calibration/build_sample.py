"""Build the SAMPLE graded workspace and labels of data/calibration/ (hand-written, not model
output) that the judge_calibration notebook reads by default.

Runs: 2 cases × 2 model-judged expectations × with_skill/baseline × 4 runs. Their verdicts come
from `SampleGrader`, a hand-written table standing in for a model grader (backend `sample`), and
are written by skillbench's own grading code; `labels.jsonl` holds hand-written SAMPLE human
labels of 24 of the 32 verdicts (the grader is wrong on a few). Re-run with
`.venv/bin/python data/calibration/build_sample.py`.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from skillbench.backends.base import TextRequest, TextResponse  # noqa: E402
from skillbench.behavior.grade import grade_workspace_sync  # noqa: E402
from skillbench.behavior.options import GradeOptions  # noqa: E402
from skillbench.behavior.records import RunRecord, write_run_record  # noqa: E402
from skillbench.behavior.workspace import Workspace  # noqa: E402

HERE = Path(__file__).resolve().parent
SKILL = HERE / "sample-skill"
SKILL_MD = """---
name: sample-skill
description: Writes release notes from a list of merged changes. Use when asked for release notes.
---

# Release notes

Group the changes under Added, Fixed and Changed; one line each, newest first.
"""
EVALS: dict[str, Any] = {
    "version": "1.0",
    "cases": [
        {"id": "notes", "prompt": "Write release notes for the merged changes in changes.txt",
         "expectations": [
             {"criterion": "grouped", "description": "Changes are grouped under headings",
              "required": True},
             {"criterion": "concise", "description": "Each change takes one line", "required": True},
         ]},
        {"id": "summary", "prompt": "Summarise this release for the team chat",
         "expectations": [
             {"criterion": "short", "description": "The summary fits in three sentences",
              "required": True},
             {"criterion": "breaking", "description": "Breaking changes are named first",
              "required": True},
         ]},
    ],
}  # fmt: skip
RUNS = (1, 2, 3, 4)
# (arm, case, run) -> the sample grader's verdict on expectation 1 and 2
GRADER = {
    ("with_skill", "notes"): [(1, 1), (1, 1), (1, 0), (1, 1)],
    ("with_skill", "summary"): [(1, 1), (1, 0), (1, 1), (0, 1)],
    ("baseline", "notes"): [(1, 0), (0, 0), (1, 1), (0, 0)],
    ("baseline", "summary"): [(1, 0), (1, 1), (0, 0), (1, 0)],
}
# the human labels where they differ from the grader (the rest of the labelled ones agree)
HUMAN_DIFFERS = {("with_skill", "summary", 2, 1), ("baseline", "notes", 1, 1),
                 ("baseline", "notes", 2, 1), ("baseline", "notes", 3, 2)}  # fmt: skip
UNLABELLED = {(arm, case, run) for arm in ("with_skill", "baseline") for case in ("notes",)
              for run in (4,)} | {("with_skill", "summary", 4), ("baseline", "summary", 4)}  # fmt: skip


class SampleGrader:
    """Hand-written verdicts in the shape of the model grader's reply (no model is called)."""

    name = "sample"
    model = "hand-written-verdicts"

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        arm, case, run = re.search(r"RUN (\w+)/(\w+)/(\d)", request.prompt).groups()  # type: ignore[union-attr]
        verdicts = GRADER[(arm, case)][int(run) - 1]
        section = request.prompt.split("## Expectations to grade", 1)[1].split("\n## ", 1)[0]
        ids = [int(m) for m in re.findall(r"^(\d+)\. ", section, re.MULTILINE)]
        dim = {"score": 3, "notes": "sample"}
        reply = {
            "judgements": [{"id": i, "score": 4 if verdicts[i - 1] else 2, "quote": "",
                            "reasoning": "SAMPLE verdict (hand-written, not model output)"}
                           for i in ids],
            "dimensions": {k: dim for k in ("task_completion", "output_structure",
                                            "error_handling", "efficiency")},
            "summary": "SAMPLE", "claims": [], "conventions": [],
            "user_notes": {"uncertainties": [], "needs_review": [], "workarounds": []},
            "eval_feedback": {"suggestions": [], "overall": ""},
            "weak_assertions": [], "missing_coverage": [],
        }  # fmt: skip
        return TextResponse(text=json.dumps(reply))

    async def aclose(self) -> None:
        return None


def build() -> None:
    shutil.rmtree(SKILL, ignore_errors=True)
    shutil.rmtree(HERE / "sample-skill-workspace", ignore_errors=True)
    (SKILL / "evals").mkdir(parents=True)
    (SKILL / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (SKILL / "evals" / "evals.json").write_text(json.dumps(EVALS, indent=2) + "\n", "utf-8")
    space = Workspace.for_skill(SKILL)
    for (arm, case), _ in GRADER.items():
        for run in RUNS:
            folder = space.run_dir(arm, case, run)
            (folder / "outputs").mkdir(parents=True)
            final = f"SAMPLE reply of RUN {arm}/{case}/{run} (hand-written, not model output)."
            (folder / "transcript.md").write_text(f"## User\nplease\n\n## Assistant\n{final}\n")
            write_run_record(RunRecord(
                case_id=case, config=arm, version=0 if arm == "with_skill" else None,
                run_number=run, prompt="p", backend="sample", model="hand-written",
                status="ok", final_text=final, started_at="2026-12-01T00:00:00Z", duration_s=1.0,
            ), folder / "run.json")  # fmt: skip
    grade_workspace_sync(SKILL, GradeOptions(dialect="skill-creator"), text_model=SampleGrader())
    texts = {c["id"]: [e["description"] for e in c["expectations"]] for c in EVALS["cases"]}
    lines = []
    for (arm, case), verdicts in GRADER.items():
        for run in RUNS:
            if (arm, case, run) in UNLABELLED:
                continue
            for number, verdict in enumerate(verdicts[run - 1], start=1):
                human = bool(verdict) != ((arm, case, run, number) in HUMAN_DIFFERS)
                lines.append(json.dumps({"run": f"runs/{arm}/{case}/run-{run}",
                                         "expectation": texts[case][number - 1],
                                         "label": "pass" if human else "fail",
                                         "labeler": "sample", "note": "SAMPLE label"}))  # fmt: skip
    (HERE / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    build()
