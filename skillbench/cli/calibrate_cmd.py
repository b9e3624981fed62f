"""`skillbench calibrate SKILL_DIR --labels FILE`: the grader's error and corrected pass rates."""

from __future__ import annotations

import argparse
import json
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_OK


def register(subparsers: Any) -> None:
    """Add the `calibrate` subcommand."""
    p = subparsers.add_parser(
        "calibrate",
        help="measure the model grader against human labels; correct pass rates for its error",
        description="Treat the human labels as truth: the grader's TPR and TNR with Wilson "
        "intervals, kappa beside the constant predictor's, per arm and per expectation; each "
        "arm's observed pass rate corrected for the grader's error (Rogan-Gladen, clipped, "
        "bootstrap interval) and the attenuation factor TPR + TNR - 1; with grade --repeats, the "
        "grader's self-agreement (Wilson interval). Writes calibration.json "
        "in the workspace, bound to the grader's model, prompt and rubric.",
    )
    common.add_skill_dir(p, common.SKILL_WITH_EVALS_HELP)
    common.add_workspace_option(p, common.WORKSPACE_SHORT_HELP)
    p.add_argument("--labels", metavar="FILE", required=True, help="labels.jsonl")
    p.add_argument("--json", action="store_true", help="print the calibration as JSON")
    p.add_argument("--seed", type=common.int_in(0, 2**31), default=0, help="bootstrap seed (0)")
    p.set_defaults(func=run_calibrate)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f" [{low:.3f}, {high:.3f}]"


def run_calibrate(args: argparse.Namespace) -> int:
    """Print (or emit as JSON) the calibration and write calibration.json."""
    from skillbench.calibration.calibrate import calibrate, calibration_json
    from skillbench.calibration.metrics import ErrorRates

    result, doc, path = calibrate(args.skill_dir, args.labels, workspace=args.workspace,
                                  seed=args.seed)  # fmt: skip
    if args.json:
        data = calibration_json(result)
        data["binding"] = doc.binding.model_dump()
        data["written"] = str(path)
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return EXIT_OK

    def line(name: str, r: ErrorRates) -> str:
        return (
            f"{name}: n={r.n} (tp {r.tp}, fn {r.fn}, fp {r.fp}, tn {r.tn})  "
            f"TPR {_pct(r.tpr.value)}{_interval(r.tpr.low, r.tpr.high)}  "
            f"TNR {_pct(r.tnr.value)}{_interval(r.tnr.low, r.tnr.high)}  "
            f"kappa {_pct(r.kappa)} (constant predictor 0.000)  accuracy {_pct(r.accuracy)} "
            f"(constant predictor {_pct(r.baseline_accuracy)})  J {_pct(r.attenuation)}"
        )

    out = [f"grader {doc.binding.grader}: {result.labelled} labelled of {result.population} "
           f"model verdicts (strata: {result.strata})", line("all", result.overall)]  # fmt: skip
    out += [line(f"arm {arm}", r) for arm, r in result.per_arm.items()]
    if result.self_agreement is not None:
        s = result.self_agreement
        out.append(f"grader self-agreement: {_pct(s.value)}{_interval(s.low, s.high)} of {s.n} "
                   "repeated verdicts had every repeat agree (Wilson 95%)")  # fmt: skip
    out.append("pass rates (observed -> corrected, 95% bootstrap interval):")
    for arm, c in result.corrected.items():
        out.append(f"  {arm}: {_pct(c.observed)} -> {_pct(c.corrected)}{_interval(c.low, c.high)}"
                   f" (n={c.n})")  # fmt: skip
    if result.delta is not None and result.pair is not None:
        d = result.delta
        out.append(f"  delta {result.pair[0]} - {result.pair[1]}: {_pct(d.observed)} -> "
                   f"{_pct(d.corrected)}{_interval(d.low, d.high)}")  # fmt: skip
    out.append("per expectation:")
    out += [line(f"  {text}", r) for text, r in result.per_expectation.items()]
    for a in result.inter_rater:
        out.append(f"labellers {a['first']} and {a['second']}: {a['agreed']}/{a['n']} agree, "
                   f"kappa {_pct(a['kappa'])}")  # type: ignore[arg-type]  # fmt: skip
    if result.unmatched:
        out.append(f"{result.unmatched} label(s) name no model verdict of this workspace (ignored)")
    if result.ties:
        out.append(f"{result.ties} item(s) left out: their labellers tied")
    out.append(f"wrote {path}")
    for text in out:
        print(common.safe(text))
    return EXIT_OK
