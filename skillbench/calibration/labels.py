"""`labels.jsonl`: one human judgement per line, appended atomically; read back with the last
judgement of a labeller on an item winning."""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skillbench.errors import InputError
from skillbench.io import atomic_write_bytes, read_input_text
from skillbench.timestamps import utc_timestamp

LABELS_FILE = "labels.jsonl"
_APPEND_LOCK = threading.Lock()


class Label(BaseModel):
    """One human judgement of one expectation of one run (extra fields are kept)."""

    model_config = ConfigDict(extra="allow")

    run: str = Field(description="run folder relative to the workspace")
    expectation: str = Field(description="the expectation's text")
    label: Literal["pass", "fail"]
    labeler: str = Field(min_length=1)
    at: str | None = Field(default=None, description="UTC time of the judgement")

    @property
    def key(self) -> tuple[str, str]:
        """(run, expectation)."""
        return self.run, self.expectation

    @property
    def passed(self) -> bool:
        """The label as a boolean."""
        return self.label == "pass"


def append_label(path: str | Path, label: Label) -> Path:
    """Append one line: the file is rewritten whole through a temporary file and a rename, so a
    reader (or a crash) never sees half a line."""
    target = Path(path)
    line = json.dumps(label.model_dump(exclude_none=True), ensure_ascii=False) + "\n"
    with _APPEND_LOCK:
        old = target.read_bytes() if target.is_file() else b""
        if old and not old.endswith(b"\n"):
            old += b"\n"
        return atomic_write_bytes(target, old + line.encode("utf-8"))


def new_label(run: str, expectation: str, label: str, labeler: str, **extra: object) -> Label:
    """A Label stamped with the current time."""
    return Label(
        run=run, expectation=expectation, label=label, labeler=labeler, at=utc_timestamp(), **extra
    )


def read_labels(path: str | Path) -> list[Label]:
    """Every judgement in the file (blank lines skipped); InputError naming the line otherwise."""
    target = Path(path)
    if not target.is_file():
        raise InputError("labels file not found", path=target, rule="labels")
    labels: list[Label] = []
    for number, line in enumerate(read_input_text(target).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            labels.append(Label.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            raise InputError(f"line {number}: not a label ({first})", path=target,
                             rule="labels") from None  # fmt: skip
    return labels


def latest_by_labeler(labels: list[Label]) -> dict[tuple[str, str], dict[str, bool]]:
    """{(run, expectation): {labeler: passed}} with each labeller's last judgement."""
    out: dict[tuple[str, str], dict[str, bool]] = {}
    for label in labels:
        out.setdefault(label.key, {})[label.labeler] = label.passed
    return out


@dataclass(frozen=True)
class Truth:
    """The human verdict per item (majority over labellers) and the items whose labellers tied."""

    verdicts: dict[tuple[str, str], bool]
    ties: list[tuple[str, str]]


def human_truth(labels: list[Label]) -> Truth:
    """Majority of the labellers' last judgements; a tie is no verdict (listed in `ties`)."""
    verdicts: dict[tuple[str, str], bool] = {}
    ties: list[tuple[str, str]] = []
    for key, by in latest_by_labeler(labels).items():
        votes = Counter(by.values())
        if votes[True] == votes[False]:
            ties.append(key)
        else:
            verdicts[key] = votes[True] > votes[False]
    return Truth(verdicts, ties)


@dataclass(frozen=True)
class Agreement:
    """Two labellers on the items both judged."""

    first: str
    second: str
    n: int
    agreed: int
    kappa: float | None


def inter_rater(labels: list[Label]) -> list[Agreement]:
    """Cohen's κ of every pair of labellers over their overlap (last judgement each)."""
    from skillbench.stats import cohen_kappa

    by_key = latest_by_labeler(labels)
    names = sorted({label.labeler for label in labels})
    out: list[Agreement] = []
    for k, first in enumerate(names):
        for second in names[k + 1 :]:
            both = [(v[first], v[second]) for v in by_key.values() if first in v and second in v]
            if not both:
                continue
            a, b = [x for x, _ in both], [y for _, y in both]
            agreed = sum(1 for x, y in both if x == y)
            out.append(Agreement(first, second, len(both), agreed, cohen_kappa(a, b)))
    return out
