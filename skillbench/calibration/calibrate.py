"""`calibrate`: read the labels, measure the grader against them, write calibration.json."""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from pathlib import Path
from typing import Any

from skillbench.behavior.benchmark import choose_pair
from skillbench.calibration.binding import (
    CalibrationFile,
    current_binding,
    write_calibration,
)
from skillbench.calibration.items import grader_items, workspace_of
from skillbench.calibration.labels import human_truth, inter_rater, read_labels
from skillbench.calibration.metrics import Calibration, ErrorRates, calibrate_items
from skillbench.errors import InputError
from skillbench.timestamps import utc_timestamp


def calibrate(
    skill_dir: str | Path,
    labels_path: str | Path,
    *,
    workspace: str | Path | None = None,
    seed: int = 0,
    write: bool = True,
    pair: tuple[str, str] | None = None,
) -> tuple[Calibration, CalibrationFile, Path | None]:
    """Measure the grader against the human labels; InputError (nothing written) when no label
    names a model verdict of the workspace. `pair` (candidate, baseline) defaults to
    with_skill vs baseline, else the newest version vs the one before."""
    labels = read_labels(labels_path)
    space = workspace_of(skill_dir, workspace)
    population = grader_items(skill_dir, workspace)
    if not population:
        raise InputError("the workspace holds no model-graded verdict to calibrate (run "
                         "`skillbench grade` with a model backend)", path=space.root,
                         rule="no-verdicts")  # fmt: skip
    truth = human_truth(labels)
    arms = sorted({i.arm for i in population})
    if pair is None:
        try:
            pair = choose_pair(arms, None, None)
        except InputError:
            pair = None
    result = calibrate_items(population, truth.verdicts, pair=pair, ties=len(truth.ties), seed=seed)
    if result.labelled == 0:
        raise InputError("no label names a model verdict of this workspace (labels name "
                         "`run` relative to the workspace and the expectation's text)",
                         path=labels_path, rule="labels")  # fmt: skip
    result.inter_rater = [asdict(a) for a in inter_rater(labels)]
    doc = CalibrationFile(
        binding=current_binding(skill_dir, workspace),
        created_at=utc_timestamp(),
        labels={"path": str(Path(labels_path).resolve()), "lines": len(labels),
                "sha256": labels_sha256(labels_path),
                "labellers": sorted({lab.labeler for lab in labels})},
        tpr=result.overall.tpr.value,
        tnr=result.overall.tnr.value,
        attenuation=result.overall.attenuation,
        summary=calibration_json(result),
    )  # fmt: skip
    path = write_calibration(space, doc) if write else None
    return result, doc, path


def labels_sha256(path: str | Path) -> str:
    """sha256 of the labels file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def rates_json(rates: ErrorRates) -> dict[str, Any]:
    """One ErrorRates as plain data."""
    return {
        "confusion": {"tp": rates.tp, "fn": rates.fn, "fp": rates.fp, "tn": rates.tn},
        "tpr": asdict(rates.tpr),
        "tnr": asdict(rates.tnr),
        "kappa": rates.kappa,
        "kappa_constant_predictor": 0.0,
        "accuracy": rates.accuracy,
        "accuracy_constant_predictor": rates.baseline_accuracy,
        "attenuation": rates.attenuation,
        "weighted": rates.weighted,
        "n": rates.n,
    }


def calibration_json(result: Calibration) -> dict[str, Any]:
    """The whole calibration as plain data (`calibrate --json`, calibration.json's summary)."""
    return {
        "overall": rates_json(result.overall),
        "per_arm": {arm: rates_json(r) for arm, r in result.per_arm.items()},
        "per_expectation": {t: rates_json(r) for t, r in result.per_expectation.items()},
        "pass_rates": {arm: asdict(c) for arm, c in result.corrected.items()},
        "delta": asdict(result.delta) if result.delta else None,
        "pair": {"candidate": result.pair[0], "baseline": result.pair[1]} if result.pair else None,
        "labelled": result.labelled,
        "population": result.population,
        "unmatched_labels": result.unmatched,
        "labeller_ties": result.ties,
        "strata": result.strata,
        "disagreements": result.disagreements,
        "inter_rater": result.inter_rater,
        "self_agreement": asdict(result.self_agreement) if result.self_agreement else None,
    }
