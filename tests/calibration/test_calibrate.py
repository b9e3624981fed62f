"""`calibrate` from a hand-written labels.jsonl: post-stratified TPR/TNR, Rogan–Gladen corrected
rates, inter-rater κ, staleness and bad input — each figure computed by hand here."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from calibration_fakes import EVALS, graded_workspace, run_path

from skillbench.calibration.binding import grader_status
from skillbench.calibration.calibrate import calibrate
from skillbench.calibration.metrics import rogan_gladen
from skillbench.cli import main
from skillbench.stats import wilson_interval

RAIN, LINES = "The poem is about rain", "The poem has three lines"
BRIEF, EXAMPLE = "The answer is brief", "It gives an example"


def _line(arm: str, case: str, run: int, text: str, label: str, who: str = "ann") -> str:
    return json.dumps({"run": run_path(arm, case, run), "expectation": text, "label": label,
                       "labeler": who})  # fmt: skip


# (arm, case, run, expectation, grader verdict, human label)
ANN = [
    # with_skill, grader pass (10 in the workspace, 5 labelled: weight 2): 4 pass, 1 fail
    ("with_skill", "alpha", 1, LINES, "pass"),
    ("with_skill", "alpha", 1, RAIN, "fail"),
    ("with_skill", "alpha", 2, LINES, "pass"),
    ("with_skill", "beta", 1, BRIEF, "pass"),
    ("with_skill", "beta", 2, EXAMPLE, "pass"),
    # with_skill, grader fail (2, both labelled: weight 1): both fail
    ("with_skill", "alpha", 3, RAIN, "fail"),
    ("with_skill", "beta", 3, EXAMPLE, "fail"),
    # baseline, grader pass (6, 3 labelled: weight 2): 2 pass, 1 fail
    ("baseline", "alpha", 1, LINES, "pass"),
    ("baseline", "beta", 1, BRIEF, "pass"),
    ("baseline", "beta", 1, EXAMPLE, "fail"),
    # baseline, grader fail (6, 3 labelled: weight 2): 1 pass, 2 fail
    ("baseline", "alpha", 3, LINES, "pass"),
    ("baseline", "alpha", 3, RAIN, "fail"),
    ("baseline", "beta", 3, BRIEF, "fail"),
]


@pytest.fixture
def hand_labels(tmp_path: Path) -> tuple[Path, Path]:
    skill, space = graded_workspace(tmp_path)
    lines = [_line(a, c, r, t, lab) for a, c, r, t, lab in ANN]
    lines += [_line(a, c, r, t, lab, "bob") for a, c, r, t, lab in ANN[:3]]  # bob agrees
    lines.append(_line("with_skill", "beta", 1, EXAMPLE, "pass"))  # ann vs bob: a tie,
    lines.append(_line("with_skill", "beta", 1, EXAMPLE, "fail", "bob"))  # so no verdict
    lines.append(_line("with_skill", "gamma", 1, "no such", "pass"))  # names nothing here
    lines.insert(0, _line("with_skill", "alpha", 1, LINES, "fail"))  # ann's first try: she
    path = space.root / "hand.jsonl"  # changed her mind (her last judgement counts)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return skill, path


def test_hand_written_labels_give_the_post_stratified_figures(
    hand_labels: tuple[Path, Path],
) -> None:
    skill, labels = hand_labels
    result, doc, written = calibrate(skill, labels)
    o = result.overall
    assert (o.tp, o.fn, o.fp, o.tn) == (6, 1, 2, 4)  # plain counts over 13 labelled items
    # weighted: TP 4·2 + 2·2 = 12 of human-pass 12 + 1·2 = 14; TN 2·1 + 2·2 = 6 of 6 + 2·2 = 10
    tpr, tnr = Fraction(6, 7), Fraction(3, 5)
    assert o.weighted and o.tpr.value == pytest.approx(float(tpr), abs=1e-12)
    assert o.tnr.value == pytest.approx(float(tnr), abs=1e-12)  # unweighted would be 4/6
    assert (o.tpr.low, o.tpr.high) == pytest.approx(wilson_interval(6, 7))  # equal weights: n 7
    j = tpr + tnr - 1
    assert o.attenuation == pytest.approx(float(j), abs=1e-12)
    with_skill = (Fraction(10, 12) + tnr - 1) / j
    baseline = (Fraction(6, 12) + tnr - 1) / j
    assert (with_skill, baseline) == (Fraction(91, 96), Fraction(7, 32))
    assert result.corrected["with_skill"].corrected == pytest.approx(float(with_skill), abs=1e-12)
    assert result.corrected["baseline"].corrected == pytest.approx(float(baseline), abs=1e-12)
    assert result.delta is not None and result.pair == ("with_skill", "baseline")
    assert result.delta.corrected == pytest.approx(float(with_skill - baseline), abs=1e-12)
    low, high = result.corrected["baseline"].low, result.corrected["baseline"].high
    assert low is not None and high is not None and low <= float(baseline) <= high
    # κ of grader vs human over the 13: p_o 10/13, grader pass 8/13, human pass 7/13
    po, pg, ph = Fraction(10, 13), Fraction(8, 13), Fraction(7, 13)
    pe = pg * ph + (1 - pg) * (1 - ph)
    assert o.kappa == pytest.approx(float((po - pe) / (1 - pe)), abs=1e-12)
    assert o.baseline_accuracy == pytest.approx(7 / 13)
    assert (result.unmatched, result.ties, result.labelled) == (1, 1, 13)
    # ann and bob overlap on 4 items, agree on 3: ann P,P,F,P bob P,P,F,F → κ = 1/2
    (pair,) = result.inter_rater
    assert (pair["first"], pair["second"], pair["n"], pair["agreed"]) == ("ann", "bob", 4, 3)
    assert pair["kappa"] == pytest.approx(0.5)
    assert {d["expectation"] for d in result.disagreements} == {RAIN, EXAMPLE, LINES}
    assert written is not None and json.loads(written.read_text())["tpr"] == pytest.approx(6 / 7)
    assert doc.binding.grader == "fake (fake-grader)"


def test_rogan_gladen_clips_and_refuses_an_uninformative_grader() -> None:
    assert rogan_gladen(0.95, 0.8, 0.9) == 1.0  # (0.85 / 0.7) clipped
    assert rogan_gladen(0.02, 0.8, 0.9) == 0.0
    assert rogan_gladen(0.5, 0.5, 0.5) is None  # J = 0: the grader says nothing


def test_calibration_goes_stale_when_the_rubric_changes(hand_labels: tuple[Path, Path]) -> None:
    skill, labels = hand_labels
    assert grader_status(skill).state == "uncalibrated"
    calibrate(skill, labels)
    status = grader_status(skill)
    assert status.state == "calibrated" and not status.provisional
    assert status.attenuation == pytest.approx(16 / 35)
    evals = json.loads(json.dumps(EVALS))
    evals["cases"][0]["expectations"][0]["description"] = "The poem has four lines"
    (skill / "evals" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    status = grader_status(skill)
    assert status.state == "stale" and status.reasons == ["rubric changed"]
    assert status.provisional and "STALE" in status.line()


def test_bad_labels_are_refused_before_anything_is_written(
    hand_labels: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    skill, labels = hand_labels
    broken = labels.with_name("broken.jsonl")
    broken.write_text(labels.read_text() + '{"run": "x", "label": "maybe"}\n', encoding="utf-8")
    assert main(["calibrate", str(skill), "--labels", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "broken.jsonl" in err and "line 21" in err
    assert not (labels.parent / "calibration.json").exists()
    assert main(["calibrate", str(skill), "--labels", str(labels.with_name("none.jsonl"))]) == 2
    assert main(["calibrate", str(skill), "--labels", str(labels)]) == 0
    assert "TPR 0.857" in capsys.readouterr().out


def test_benchmark_shows_corrected_rates_beside_the_raw_ones(
    hand_labels: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    skill, labels = hand_labels
    bench = skill.parent / "demo-skill-workspace" / "benchmark.json"
    main(["benchmark", str(skill)])
    out = capsys.readouterr().out
    assert "grader uncalibrated" in out and "verdicts provisional" in out
    block = json.loads(bench.read_text())["grader_calibration"]
    assert block["provisional"] and block["pass_rates"]["with_skill"]["corrected"] is None
    assert block["pass_rates"]["with_skill"]["observed"] == pytest.approx(10 / 12)

    calibrate(skill, labels)
    main(["benchmark", str(skill)])
    out = capsys.readouterr().out
    assert "with_skill: 0.833 -> 0.948 [" in out  # 91/96, with its bootstrap interval
    assert "baseline: 0.500 -> 0.219 [" in out  # 7/32
    assert "delta with_skill - baseline: +0.333 -> +0.729 [" in out  # 91/96 − 7/32 = 35/48
    block = json.loads(bench.read_text())["grader_calibration"]
    assert not block["provisional"] and block["attenuation"] == pytest.approx(16 / 35)
    assert block["delta"]["corrected"] == pytest.approx(35 / 48)

    labels.write_text(labels.read_text() + "\n", encoding="utf-8")  # the labels changed
    main(["benchmark", str(skill)])
    out = capsys.readouterr().out
    assert "with_skill: 0.833 -> 0.948 (n=12)" in out  # the point estimate, no interval
    assert "its labels changed" in out
