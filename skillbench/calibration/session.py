"""One labeller's session over the blind sample: what to show next, what is done, the counts.

The queue is the sample in its shuffled order minus what this labeller has labelled (read back
from labels.jsonl, so a reload or a restart resumes); a deferred item moves to the back."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.behavior.grade import load_cases, run_material
from skillbench.behavior.workspace import StoredRun, Workspace
from skillbench.calibration.items import GraderItem
from skillbench.calibration.labels import append_label, latest_by_labeler, new_label, read_labels
from skillbench.redaction import redact

SHOWN_LIMIT = 20_000


def _clip(text: str) -> str:
    text = redact(text)
    return text if len(text) <= SHOWN_LIMIT else text[:SHOWN_LIMIT] + "\n[… clipped]"


@dataclass
class LabelSession:
    """The sample, the labels file and one labeller."""

    skill_dir: Path
    space: Workspace
    sample: list[GraderItem]
    labels_path: Path
    labeler: str
    deferred: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._runs: dict[str, StoredRun] = {
            run.dir.relative_to(self.space.root).as_posix(): run
            for config in self.space.configs()
            for run in self.space.iter_runs(config)
        }
        self._prompts = {key: case.prompt for key, case in load_cases(self.skill_dir).cases.items()}
        self._by_id = {item.item_id: item for item in self.sample}

    def _mine(self) -> dict[tuple[str, str], bool]:
        if not self.labels_path.is_file():
            return {}
        done = latest_by_labeler(read_labels(self.labels_path))
        return {k: v[self.labeler] for k, v in done.items() if self.labeler in v}

    def state(self) -> dict[str, Any]:
        """Counts and the next item (None when every sampled item is labelled)."""
        with self._lock:
            mine = self._mine()
            open_ = [i for i in self.sample if i.key not in mine]
            later = [i for i in open_ if i.item_id in self.deferred]
            first = [i for i in open_ if i.item_id not in self.deferred]
            later.sort(key=lambda i: self.deferred.index(i.item_id))
            queue = first + later
            sampled = {i.key for i in self.sample}
            done = [v for k, v in mine.items() if k in sampled]
            return {
                "labeler": self.labeler,
                "counts": {
                    "total": len(self.sample),
                    "labelled": len(done),
                    "pass": sum(done),
                    "fail": len(done) - sum(done),
                    "deferred": len(later),
                    "remaining": len(queue),
                },
                "item": self._shown(queue[0]) if queue else None,
            }

    def _shown(self, item: GraderItem) -> dict[str, Any]:
        """What the page shows: never the arm, the verdict or the run's folder."""
        run = self._runs[item.run]
        material = run_material(run)
        return {
            "id": item.item_id,
            "task": _clip(self._prompts.get(item.case_id, run.record.prompt)),
            "expectation": _clip(item.expectation),
            "transcript": _clip(material.transcript),
            "final_text": _clip(material.final_text or ""),
            "outputs": {redact(name): _clip(text) for name, text in material.outputs.items()},
        }

    def answer(self, item_id: str, answer: str) -> dict[str, Any]:
        """Record pass/fail (appended to labels.jsonl) or defer; KeyError for an unknown id,
        ValueError for an unknown answer."""
        item = self._by_id[item_id]
        if answer == "defer":
            with self._lock:
                if item_id in self.deferred:
                    self.deferred.remove(item_id)
                self.deferred.append(item_id)
        elif answer in ("pass", "fail"):
            with self._lock:
                label = new_label(item.run, item.expectation, answer, self.labeler,
                                  case_id=item.case_id, source="skillbench label")  # fmt: skip
                append_label(self.labels_path, label)
                if item_id in self.deferred:
                    self.deferred.remove(item_id)
        else:
            raise ValueError(f"unknown answer {answer!r}")
        return self.state()
