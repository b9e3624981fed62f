"""The calibration as tables (pandas DataFrames) for the judge_calibration notebook."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from skillbench.calibration.metrics import Calibration, ErrorRates
from skillbench.reports.header import HeaderInputs, Verdict, make_header
from skillbench.schemas.report import ReportHeader


def grader_confusion_frame(rates: ErrorRates) -> pd.DataFrame:
    """Human label (rows) × grader verdict (columns), plain counts."""
    return pd.DataFrame(
        {"grader pass": [rates.tp, rates.fp], "grader fail": [rates.fn, rates.tn]},
        index=pd.Index(["human pass", "human fail"], name="truth"),
    )


def _row(scope: str, r: ErrorRates) -> dict[str, object]:
    return {
        "scope": scope, "labelled": r.n,
        "TPR": r.tpr.value, "TPR low": r.tpr.low, "TPR high": r.tpr.high,
        "TNR": r.tnr.value, "TNR low": r.tnr.low, "TNR high": r.tnr.high,
        "kappa": r.kappa, "kappa (constant predictor)": 0.0,
        "accuracy": r.accuracy, "accuracy (constant predictor)": r.baseline_accuracy,
        "attenuation J": r.attenuation, "weighted": r.weighted,
    }  # fmt: skip


def grader_error_frame(result: Calibration) -> pd.DataFrame:
    """TPR and TNR with Wilson 95 % intervals, κ and accuracy beside the constant predictor's,
    overall and per arm."""
    rows = [_row("all arms", result.overall)]
    rows += [_row(f"arm {arm}", r) for arm, r in result.per_arm.items()]
    return pd.DataFrame(rows)


def corrected_rates_frame(result: Calibration) -> pd.DataFrame:
    """Each arm's observed model-graded pass rate and its Rogan–Gladen correction (bootstrap
    95 % interval), and the pair's delta."""
    rows = [
        {"arm": arm, "observed": c.observed, "corrected": c.corrected, "low": c.low,
         "high": c.high, "verdicts": c.n}
        for arm, c in result.corrected.items()
    ]  # fmt: skip
    if result.delta is not None and result.pair is not None:
        d = result.delta
        rows.append({"arm": f"delta {result.pair[0]} - {result.pair[1]}", "observed": d.observed,
                     "corrected": d.corrected, "low": d.low, "high": d.high, "verdicts": d.n})  # fmt: skip
    return pd.DataFrame(rows)


def grader_expectations_frame(result: Calibration) -> pd.DataFrame:
    """Per expectation: labelled verdicts, disagreements (grader ≠ human) and the error rates;
    the most disagreements first."""
    rows = [
        {"expectation": text, "labelled": r.n, "disagreements": r.fn + r.fp,
         "grader pass, human fail": r.fp, "grader fail, human pass": r.fn,
         "TPR": r.tpr.value, "TNR": r.tnr.value, "kappa": r.kappa}
        for text, r in result.per_expectation.items()
    ]  # fmt: skip
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.sort_values(["disagreements", "expectation"], ascending=[False, True])


def grader_disagreements_frame(result: Calibration) -> pd.DataFrame:
    """Every labelled verdict the human overruled."""
    return pd.DataFrame(
        [{"run": d["run"], "expectation": d["expectation"], "arm": d["arm"],
          "grader": "pass" if d["grader"] else "fail", "human": "pass" if d["human"] else "fail"}
         for d in result.disagreements],
        columns=["run", "expectation", "arm", "grader", "human"],
    )  # fmt: skip


def calibration_header(
    result: Calibration,
    grader: str,
    *,
    skill_dir: str | Path,
    labels: str | Path,
    recorded: str | None = None,
) -> ReportHeader:
    """The report header: the grader's TPR, TNR and J over the labels in one line."""
    o = result.overall

    def num(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    line = (
        f"grader {grader}: TPR {num(o.tpr.value)}, TNR {num(o.tnr.value)}, attenuation J "
        f"{num(o.attenuation)} over {result.labelled} human labels"
    )
    if result.self_agreement is not None:
        s = result.self_agreement
        line += f"; self-agreement {num(s.value)} over {s.n} repeated verdicts"
    if result.delta is not None and result.pair is not None:
        line += (f"; delta {result.pair[0]} - {result.pair[1]} {num(result.delta.observed)} "
                 f"observed, {num(result.delta.corrected)} corrected")  # fmt: skip
    return make_header(
        "Judge calibration",
        Verdict(None, line),
        HeaderInputs(
            skill=Path(skill_dir).name,
            eval_set=labels,
            skill_dir=skill_dir,
            backend=grader,
            recorded=recorded,
        ),
    )
