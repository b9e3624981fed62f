"""`calibration.json`: the measured grader error, bound to the grader it measured.

The binding is the grader's backend and model (as the workspace's gradings record them), a hash
of its prompt (system prompt and reply schema) and a hash of the rubric (every case's
expectations). A calibration is stale when any of them differs from the workspace now; a verdict
from a stale or uncalibrated grader is provisional.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from skillbench.behavior.grade import load_cases, read_gradings
from skillbench.behavior.grade_prompt import SYSTEM, GraderReply
from skillbench.behavior.structured import json_instruction
from skillbench.behavior.workspace import Workspace
from skillbench.calibration.items import grader_items
from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.io import write_json

CALIBRATION_FILE = "calibration.json"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prompt_hash() -> str:
    """sha256 of what the grader is told besides the run: its system prompt and reply schema."""
    return _sha(SYSTEM + "\n\x00\n" + json_instruction(GraderReply))


def rubric_hash(skill_dir: str | Path) -> str:
    """sha256 of every case's expectations (id, text, criterion, required), in order."""
    cases = load_cases(skill_dir).cases
    rubric = [
        [key, [[e.text, e.criterion, e.required] for e in case.expectations]]
        for key, case in sorted(cases.items())
    ]
    return _sha(json.dumps(rubric, ensure_ascii=False, sort_keys=True))


def grader_model(skill_dir: str | Path, workspace: str | Path | None = None) -> str:
    """The grader(s) of the workspace's gradings: "backend (model)", several joined by ", "."""
    summary = read_gradings(skill_dir, workspace=workspace)
    seen = sorted(
        {f"{r.grader.get('backend')} ({r.grader.get('model')})" for r in summary.runs if r.grader}
    )
    return ", ".join(seen) or "none"


class Binding(BaseModel):
    """What a calibration measured: change any and it is stale."""

    model_config = ConfigDict(extra="forbid")

    grader: str
    prompt_sha256: str
    rubric_sha256: str


class CalibrationFile(BaseModel):
    """The persisted calibration (`calibrate` writes it into the workspace)."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["skillbench-calibration"] = "skillbench-calibration"
    binding: Binding
    created_at: str
    labels: dict[str, Any]
    tpr: float | None
    tnr: float | None
    attenuation: float | None
    summary: dict[str, Any]


def current_binding(skill_dir: str | Path, workspace: str | Path | None = None) -> Binding:
    """The binding of the workspace's grader as it is now."""
    return Binding(
        grader=grader_model(skill_dir, workspace),
        prompt_sha256=prompt_hash(),
        rubric_sha256=rubric_hash(skill_dir),
    )


def calibration_path(space: Workspace) -> Path:
    """`<workspace>/calibration.json`."""
    return space.root / CALIBRATION_FILE


def write_calibration(space: Workspace, doc: CalibrationFile) -> Path:
    """Write calibration.json atomically."""
    return write_json(calibration_path(space), doc.model_dump(mode="json"))


@dataclass(frozen=True)
class GraderStatus:
    """Whether the workspace's grader is calibrated: "calibrated", "stale", "uncalibrated", or
    "machine-checked" (no verdict rests on the model grader)."""

    state: Literal["calibrated", "stale", "uncalibrated", "machine-checked"]
    reasons: list[str] = field(default_factory=list)
    calibration: CalibrationFile | None = None

    @property
    def provisional(self) -> bool:
        """A verdict resting on this grader is provisional unless it is calibrated (and better
        than chance: J > 0) or no verdict rests on it."""
        if self.state == "machine-checked":
            return False
        return self.state != "calibrated" or not (self.attenuation or 0) > 0

    @property
    def attenuation(self) -> float | None:
        """J of a current calibration (None otherwise)."""
        if self.state != "calibrated" or self.calibration is None:
            return None
        return self.calibration.attenuation

    def short(self) -> str:
        """A few words for a verdict line."""
        if self.state == "calibrated" and self.provisional:
            return "provisional: grader no better than chance (J <= 0)"
        return {"stale": "provisional: grader calibration stale",
                "uncalibrated": "provisional: grader uncalibrated"}.get(self.state, "")  # fmt: skip

    def line(self) -> str:
        """One line for a report."""
        if self.state == "machine-checked":
            return "every verdict is a machine check: no model grader to calibrate"
        if self.state == "calibrated":
            j = self.attenuation
            return "grader calibrated" + (f" (attenuation J = {j:.3f})" if j is not None else "")
        if self.state == "stale":
            return (
                "grader calibration STALE (" + "; ".join(self.reasons) + "): verdicts provisional"
            )
        return "grader uncalibrated (run `skillbench label` and `skillbench calibrate`): verdicts provisional"


def grader_status(
    skill_dir: str | Path,
    workspace: str | Path | None = None,
    *,
    calibration: str | Path | None = None,
) -> GraderStatus:
    """Compare `calibration` (default the workspace's calibration.json) with the grader of the
    workspace's gradings now."""
    space = Workspace.for_skill(skill_dir, workspace)
    if not grader_items(skill_dir, workspace):
        return GraderStatus("machine-checked")
    path = Path(calibration) if calibration is not None else calibration_path(space)
    if not path.is_file():
        return GraderStatus("uncalibrated")
    try:
        doc = read_model(path, CalibrationFile)
    except InputError as exc:
        return GraderStatus("uncalibrated", [f"unreadable {path.name}: {exc}"])
    now = current_binding(skill_dir, workspace)
    reasons = [
        f"{what} changed"
        for what, old, new in (
            ("grader model", doc.binding.grader, now.grader),
            ("grader prompt", doc.binding.prompt_sha256, now.prompt_sha256),
            ("rubric", doc.binding.rubric_sha256, now.rubric_sha256),
        )
        if old != new
    ]
    return GraderStatus("stale" if reasons else "calibrated", reasons, doc)
