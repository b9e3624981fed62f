"""One RunGrade → the three grading dialects, built from the existing schema models.

- seed 004 `<run-dir>/grading.json` (SCGrading): graded expectations only, each marked with
  `method` ("check" or "model") and, for a model verdict, its 1–5 `score` (and, with
  `grade --repeats` > 1, `repeat_verdicts`: each call's pass/fail); `ungraded` (extra key)
  lists the rest; metrics and timing copied from the run's metrics.json / timing.json.
- seed 002 `grading/<case>_v<N>_run<k>.json` (WSGrading): scored criteria, each marked with
  `score_source`: "model" (a 1–5 judgement) or "check" (a machine check mapped to the
  placeholder 3 = pass / 1 = fail, not a judgement); ungraded criteria are listed under
  `ungraded`, never scored; skipped when no criterion is scored or when `overall` cannot be
  decided (a required criterion ungraded while every scored required one passed). History
  numbers are therefore read from the seed 004 files, which every graded run has.
- seed 001 `<run-dir>/behavior_grading.json` (BehaviorGrading): needs the model's four dimensions,
  so it is skipped when no model judged the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillbench.behavior.grade_records import GradedExpectation, RunGrade
from skillbench.behavior.workspace import Workspace, config_version
from skillbench.schemas import grader as g
from skillbench.schemas import skill_creator as sc
from skillbench.schemas import writing_skills as ws
from skillbench.schemas.loading import write

BEHAVIOR_GRADING_NAME = "behavior_grading.json"
CHECK_SCORE_NOTE = (
    "criteria with score_source 'check' carry placeholder scores (3 = check passed, 1 = failed), "
    "not 1-5 judgements; history average_score counts model scores only"
)


def _ungraded(grade: RunGrade, label: str) -> list[dict[str, str]]:
    return [
        {label: i.criterion if label == "criterion" else i.text, "reason": i.evidence}
        for i in grade.ungraded
    ]


def skill_creator_grading(grade: RunGrade) -> sc.SCGrading:
    """The seed 004 grading of one run."""
    graded = grade.graded
    passed = grade.passed
    total = len(graded)
    reply = grade.reply
    extra: dict[str, Any] = {"ungraded": _ungraded(grade, "text"), "grader": grade.grader}
    feedback = None
    notes = None
    claims = None
    if reply is not None:
        claims = [
            sc.SCClaim(claim=x.claim, type=x.type, verified=x.verified, evidence=x.evidence)
            for x in reply.claims
        ]
        notes = sc.SCUserNotes(**reply.user_notes.model_dump())
        fb = reply.eval_feedback
        if fb.suggestions or fb.overall:
            feedback = sc.SCEvalFeedback(
                suggestions=[
                    sc.SCFeedbackItem(assertion=s.assertion, reason=s.reason)
                    for s in fb.suggestions
                ],
                overall=fb.overall or None,
            )
    return sc.SCGrading(
        expectations=[_sc_expectation(i) for i in graded],
        summary=sc.SCSummary(
            passed=passed,
            failed=total - passed,
            total=total,
            pass_rate=round(passed / total, 2) if total else 0.0,
            ungraded=len(grade.ungraded),
        ),
        execution_metrics=grade.metrics,
        timing=grade.timing,
        claims=claims,
        user_notes_summary=notes,
        eval_feedback=feedback,
        **extra,
    )


def _sc_expectation(item: GradedExpectation) -> sc.SCExpectation:
    """A graded expectation with how it was decided (`method`) and a model's 1–5 `score`."""
    marks: dict[str, Any] = {"method": item.method}
    if item.method == "model" and item.score is not None:
        marks["score"] = item.score
    if item.repeat_verdicts is not None:
        marks["repeat_verdicts"] = list(item.repeat_verdicts)
    return sc.SCExpectation(
        text=item.text, passed=bool(item.passed), evidence=item.evidence, **marks
    )


def score_source(item: GradedExpectation) -> str:
    """ "check" for a machine check's placeholder score, "model" for a 1–5 judgement."""
    return "check" if item.method == "check" else "model"


def _mean(values: list[int]) -> float:
    return round(sum(values) / len(values), 1)


def writing_skills_grading(grade: RunGrade) -> tuple[ws.WSGrading | None, str | None]:
    """(the seed 002 grading, None) or (None, why it cannot be written honestly)."""
    scored = [i for i in grade.items if i.score is not None]
    if not scored:
        if grade.grader_problem:  # the model was asked (and paid): say why it gave nothing
            return None, f"no criterion could be scored: {grade.grader_problem}"
        return None, "no criterion could be scored (nothing machine-checkable, no model)"
    required = [i for i in scored if i.required]
    open_required = [i.criterion for i in grade.ungraded if i.required]
    if open_required and all(i.passed for i in required):
        return None, f"overall undecidable: required criteria ungraded: {', '.join(open_required)}"
    record = grade.run.record
    reply = grade.reply
    conventions = None
    extra: dict[str, Any] = {
        "config": record.config,
        "ungraded": _ungraded(grade, "criterion"),
        "grader": grade.grader,
    }
    if set(ws.CONVENTION_KEYS) <= set(grade.conventions):
        conventions = ws.WSConventions(**{k: grade.conventions[k] for k in ws.CONVENTION_KEYS})
    elif grade.conventions or grade.conventions_ungraded:
        extra["convention_compliance_partial"] = {
            k: v.to_json_dict() for k, v in grade.conventions.items()
        }
        extra["convention_compliance_ungraded"] = dict(grade.conventions_ungraded)
    if any(i.method == "check" for i in scored):
        extra["score_note"] = CHECK_SCORE_NOTE
    version = skill_version(grade)
    if version is None:
        extra["skill_version"] = None  # no skill: `version` 0 is only a placeholder the model needs
    return ws.WSGrading(
        case_id=record.case_id,
        version=version if version is not None else 0,
        run=record.run_number,
        overall_score=_mean([i.score or 0 for i in scored]),
        required_score=_mean([i.score or 0 for i in required]) if required else None,
        results=[
            ws.WSCriterionResult(
                criterion=i.criterion,
                score=i.score or 0,
                passed=(i.score or 0) >= ws.PASS_SCORE,
                reasoning=i.evidence,
                score_source=score_source(i),
            )
            for i in scored
        ],
        overall="pass" if all(i.passed for i in required) else "fail",
        convention_compliance=conventions,
        claims=[
            ws.WSClaim(claim=x.claim, verified=x.verified, evidence=x.evidence)
            for x in reply.claims
        ]
        if reply is not None
        else None,
        user_notes_summary=_notes_text(grade) if reply is not None else None,
        eval_feedback=(reply.eval_feedback.overall if reply is not None else None),
        execution_metrics=grade.metrics.to_json_dict() if grade.metrics is not None else {},
        **extra,
    ), None


def _notes_text(grade: RunGrade) -> str:
    assert grade.reply is not None
    notes = grade.reply.user_notes
    parts = [
        f"{label}: {'; '.join(values)}"
        for label, values in (
            ("uncertainties", notes.uncertainties),
            ("needs review", notes.needs_review),
            ("workarounds", notes.workarounds),
        )
        if values
    ]
    return " | ".join(parts)


def behavior_grading(grade: RunGrade) -> tuple[g.BehaviorGrading | None, str | None]:
    """(the seed 001 grader output, None) or (None, why): it needs the model's dimensions."""
    reply = grade.reply
    if reply is None and grade.grader_problem:
        return None, f"the model grader gave no usable judgement: {grade.grader_problem}"
    if reply is None:
        return None, "no model judgement: the four 1–5 dimensions need a model grader"
    dims = reply.dimensions
    scores = [
        d.score
        for d in (dims.task_completion, dims.output_structure, dims.error_handling, dims.efficiency)
    ]
    return g.BehaviorGrading(
        assertions=[
            g.Assertion(text=i.text, passed=bool(i.passed), evidence=i.evidence)
            for i in grade.graded
        ],
        dimensions=g.Dimensions.model_validate(dims.model_dump()),
        overall_score=round(sum(scores) / len(scores), 2),
        summary=reply.summary,
        weak_assertions=list(reply.weak_assertions),
        missing_coverage=list(reply.missing_coverage),
        ungraded=_ungraded(grade, "text"),
    ), None


def skill_version(grade: RunGrade) -> int | None:
    """The skill version a run used: its record's, else the N of a "v<N>" config; None for
    baseline (no skill)."""

    record = grade.run.record
    if record.config == "baseline":
        return None
    return record.version if record.version is not None else config_version(record.config)


def seed002_path(grade: RunGrade, workspace: Workspace) -> Path:
    """`grading/<case>_v<N>_run<k>.json`, or `<case>_baseline_run<k>.json` for a run without skill."""
    record = grade.run.record
    return workspace.grading_path(record.case_id, skill_version(grade), record.run_number)


def write_gradings(grade: RunGrade, workspace: Workspace, dialect: str = "all") -> None:
    """Write the dialects asked for; fills `grade.written` and `grade.skipped`."""
    if dialect in ("all", "skill-creator"):
        grade.written["skill-creator"] = write(skill_creator_grading(grade), grade.run.grading_path)
    if dialect in ("all", "writing-skills"):
        doc, why = writing_skills_grading(grade)
        if doc is None:
            grade.skipped["writing-skills"] = why or ""
            seed002_path(grade, workspace).unlink(missing_ok=True)  # no stale verdict left behind
        else:
            grade.written["writing-skills"] = write(doc, seed002_path(grade, workspace))
    if dialect == "all":
        behavior, why = behavior_grading(grade)
        if behavior is None:
            grade.skipped["skill-creator-v3"] = why or ""
            (grade.run.dir / BEHAVIOR_GRADING_NAME).unlink(missing_ok=True)
        else:
            path = grade.run.dir / BEHAVIOR_GRADING_NAME
            grade.written["skill-creator-v3"] = write(behavior, path)
