"""What a benchmark shows beside its raw numbers: each arm's model-graded pass rate corrected
for the grader's measured error, and the corrected delta — or why it cannot (provisional)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from skillbench.calibration.binding import GraderStatus, grader_status
from skillbench.calibration.calibrate import calibrate, labels_sha256
from skillbench.calibration.items import grader_items
from skillbench.calibration.metrics import Corrected, pass_rate, rogan_gladen


@dataclass
class BenchmarkCorrection:
    """The pair's observed and corrected model-graded pass rates and delta."""

    status: GraderStatus
    pair: tuple[str, str]
    rates: dict[str, Corrected]
    delta: Corrected | None
    source: str

    def lines(self) -> list[str]:
        """Sentences for the terminal."""
        out = [self.status.line()]
        if self.status.state == "machine-checked":
            return out
        out.append(
            f"model-graded pass rate, observed -> corrected for grader error ({self.source}):"
        )
        for arm, c in self.rates.items():
            out.append(f"  {arm}: {_num(c.observed)} -> {_num(c.corrected)}{_ci(c)} (n={c.n})")
        if self.delta is not None:
            d = self.delta
            out.append(f"  delta {self.pair[0]} - {self.pair[1]}: {_num(d.observed, True)} -> "
                       f"{_num(d.corrected, True)}{_ci(d, True)}")  # fmt: skip
        return out

    def as_json(self) -> dict[str, Any]:
        """benchmark.json's `grader_calibration` block."""
        return {
            "state": self.status.state,
            "provisional": self.status.provisional,
            "reasons": self.status.reasons,
            "attenuation": self.status.attenuation,
            "source": self.source,
            "candidate": self.pair[0],
            "baseline": self.pair[1],
            "pass_rates": {arm: asdict(c) for arm, c in self.rates.items()},
            "delta": asdict(self.delta) if self.delta else None,
        }


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _ci(c: Corrected, signed: bool = False) -> str:
    if c.low is None or c.high is None:
        return ""
    return f" [{_num(c.low, signed)}, {_num(c.high, signed)}]"


def benchmark_correction(
    skill_dir: str | Path, pair: tuple[str, str], *, workspace: str | Path | None = None
) -> BenchmarkCorrection:
    """Corrected rates when the grader's calibration is current: with the bootstrap interval
    when the labels it was made from are unchanged, else the point estimate from its TPR/TNR;
    observed rates only (provisional) otherwise."""
    status = grader_status(skill_dir, workspace)
    population = grader_items(skill_dir, workspace) if status.state != "machine-checked" else []
    doc = status.calibration
    labels = Path(str(doc.labels.get("path", ""))) if doc is not None else None
    if not status.provisional and doc is not None and labels is not None and labels.is_file() \
            and labels_sha256(labels) == doc.labels.get("sha256"):  # fmt: skip
        result, _, _ = calibrate(skill_dir, labels, workspace=workspace, write=False, pair=pair)
        rates = {arm: result.corrected[arm] for arm in pair if arm in result.corrected}
        return BenchmarkCorrection(status, pair, rates, result.delta,
                                   "calibration with its labels, 95% bootstrap interval")  # fmt: skip
    usable = not status.provisional and doc is not None and doc.tpr is not None \
        and doc.tnr is not None  # fmt: skip
    rates = {}
    for arm in pair:
        p, n = pass_rate(population, arm)
        value = None
        if usable and p is not None and doc is not None:
            value = rogan_gladen(p, doc.tpr or 0.0, doc.tnr or 0.0)
        rates[arm] = Corrected(p, value, None, None, n)
    a, b = rates[pair[0]], rates[pair[1]]
    delta = Corrected(
        None if a.observed is None or b.observed is None else a.observed - b.observed,
        None if a.corrected is None or b.corrected is None else a.corrected - b.corrected,
        None, None, min(a.n, b.n),
    )  # fmt: skip
    source = ("calibration.json's TPR/TNR (its labels changed or are gone: no interval)"
              if usable else "not corrected: " + (status.short() or status.state))  # fmt: skip
    return BenchmarkCorrection(status, pair, rates, delta, source)
