"""Dialect conversion through the canonical models; every field that cannot be carried is named."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from skillbench.errors import InputError
from skillbench.schemas import canonical as c
from skillbench.schemas import skill_creator as sc
from skillbench.schemas import writing_skills as ws
from skillbench.schemas.base import Document
from skillbench.schemas.loading import LoadedDocument, _unknown_keys, format_errors
from skillbench.schemas.registry import SKILL_CREATOR, WRITING_SKILLS, model_entry

A = TypeVar("A")
B = TypeVar("B")
CONCEPTS = ("evals", "history", "grading", "comparison", "analysis")


@dataclass
class ConversionResult:
    """The converted document and, for each field that could not be carried, one sentence."""

    model: BaseModel
    kind: str
    dialect: str
    losses: list[str] = field(default_factory=list)


def _extras(model: BaseModel, dialect: str) -> list[str]:
    return [
        f"{text.split(':')[0]}: unknown {dialect} key, not converted"
        for text in _unknown_keys(model)
    ]


def _json_or_none(doc: Document | None) -> dict[str, Any] | None:
    """The document's JSON dict, or None when it is absent."""
    return doc.to_json_dict() if doc else None


def _map_or_none(items: Sequence[A] | None, convert: Callable[[A], B]) -> list[B] | None:
    """`convert` applied to every item, or None when the list is absent."""
    return [convert(x) for x in items] if items is not None else None


def _drop(losses: list[str], target: str, **values: Any) -> None:
    for name, value in values.items():
        if value not in (None, [], {}, ""):
            losses.append(f"{name}: {target} has no such field; dropped")


def _mean(values: list[int]) -> float:
    return round(sum(values) / len(values), 1) if values else 0.0


def _text(value: str | dict[str, Any] | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    parts = []
    for key, item in value.items():
        if isinstance(item, list):
            item = "; ".join(
                " — ".join(map(str, x.values())) if isinstance(x, dict) else str(x) for x in item
            )
        if item:
            parts.append(f"{key}: {item}")
    return " | ".join(parts)


# ----- readers: dialect model → canonical -------------------------------------------------


#: Case keys skillbench adds to either evals dialect, carried through conversions as is.
CASE_EXTENSIONS = ("environment",)


def _case_extensions(case: BaseModel) -> dict[str, Any]:
    """The case's skillbench extension keys (the `environment` block)."""
    extra = case.model_extra or {}
    return {key: extra[key] for key in CASE_EXTENSIONS if key in extra}


def _ws_evals(doc: ws.WSEvals) -> c.Evals:
    return c.Evals(
        skill_path=doc.skill,
        schema_version=doc.version,
        cases=[
            c.Case(
                id=case.id,
                prompt=case.prompt,
                files=case.files,
                expectations=[
                    c.Expectation(text=e.description, criterion=e.criterion, required=e.required)
                    for e in case.expectations
                ],
                extra=_case_extensions(case),
            )
            for case in doc.cases
        ],
    )


def _sc_evals(doc: sc.SCEvals | sc.SCEvalList) -> c.Evals:
    if isinstance(doc, sc.SCEvalList):
        doc = doc.wrapped()
    return c.Evals(
        skill_name=doc.skill_name,
        cases=[
            c.Case(
                id=case_id,
                prompt=case.prompt,
                expected_output=case.expected_output,
                files=case.files,
                expectations=[c.Expectation(text=text) for text in case.statements()],
                extra=_case_extensions(case),
            )
            for case, case_id in zip(doc.evals, sc.case_ids(doc.evals), strict=True)
        ],
    )


def _ws_history(doc: ws.WSHistory) -> c.History:
    return c.History(
        versions=[
            c.Version(
                label=f"v{v.version}",
                number=v.version,
                timestamp=v.timestamp,
                description=v.description,
                git_hash=v.git_hash,
                path=v.path,
                mean_score=v.average_score,
            )
            for v in doc.versions
        ],
        current=f"v{doc.current_version}",
    )


def _version_number(label: str) -> int | None:
    match = re.fullmatch(r"v?(\d+)", label)
    return int(match[1]) if match else None


def _sc_history(doc: sc.SCHistory) -> c.History:
    return c.History(
        skill_name=doc.skill_name,
        started_at=doc.started_at,
        versions=[
            c.Version(
                label=it.version,
                number=_version_number(it.version),
                parent=it.parent,
                pass_rate=it.expectation_pass_rate,
                result=it.grading_result,
            )
            for it in doc.iterations
        ],
        best=doc.current_best,
    )


def _ws_grading(doc: ws.WSGrading) -> c.Grading:
    return c.Grading(
        case_id=doc.case_id,
        version=doc.version,
        run=doc.run,
        criteria=[
            c.Criterion(text=r.criterion, passed=r.passed, score=r.score, evidence=r.reasoning)
            for r in doc.results
        ],
        overall_score=doc.overall_score,
        required_score=doc.required_score,
        conventions=_json_or_none(doc.convention_compliance),
        claims=_map_or_none(
            doc.claims, lambda x: c.Claim(claim=x.claim, verified=x.verified, evidence=x.evidence)
        ),
        user_notes=doc.user_notes_summary,
        eval_feedback=doc.eval_feedback,
        execution_metrics=doc.execution_metrics,
    )


def _sc_grading(doc: sc.SCGrading) -> c.Grading:
    return c.Grading(
        criteria=[
            c.Criterion(text=e.text, passed=e.passed, evidence=e.evidence) for e in doc.expectations
        ],
        claims=_map_or_none(
            doc.claims,
            lambda x: c.Claim(claim=x.claim, verified=x.verified, evidence=x.evidence, type=x.type),
        ),
        user_notes=_json_or_none(doc.user_notes_summary),
        eval_feedback=_json_or_none(doc.eval_feedback),
        execution_metrics=_json_or_none(doc.execution_metrics),
        timing=_json_or_none(doc.timing),
    )


def _ws_comparison(doc: ws.WSComparison) -> c.Comparison:
    return c.Comparison(
        winner=doc.winner,
        reasoning=doc.reasoning,
        eval_prompt=doc.eval_prompt,
        dimension_scores=_json_or_none(doc.scores),
    )


def _sc_comparison(doc: sc.SCComparison) -> c.Comparison:
    data = doc.to_json_dict()
    return c.Comparison(
        winner=doc.winner,
        reasoning=doc.reasoning,
        rubric=data.get("rubric"),
        output_quality=data.get("output_quality"),
        expectation_results=data.get("expectation_results"),
    )


def _ws_analysis(doc: ws.WSAnalysis) -> c.Analysis:
    return c.Analysis(
        winner_label=doc.winner_version,
        loser_label=doc.loser_version,
        strengths=doc.strengths,
        weaknesses=doc.weaknesses,
        suggestions=[
            c.Suggestion(area=s.area, before=s.before, after=s.after, reasoning=s.reasoning)
            for s in doc.suggestions
        ],
    )


def _sc_analysis(doc: sc.SCAnalysis) -> c.Analysis:
    summary = doc.comparison_summary
    data = doc.to_json_dict()
    return c.Analysis(
        winner_skill=summary.winner_skill,
        loser_skill=summary.loser_skill,
        blind_winner=summary.winner,
        comparator_reasoning=summary.comparator_reasoning,
        strengths=doc.winner_strengths,
        weaknesses=doc.loser_weaknesses,
        suggestions=[
            c.Suggestion(
                text=s.suggestion, area=s.category, reasoning=s.expected_impact, priority=s.priority
            )
            for s in doc.improvement_suggestions
        ],
        instruction_following=data.get("instruction_following"),
        transcript_insights=data.get("transcript_insights"),
    )


# ----- writers: canonical → dialect model -------------------------------------------------


def _to_sc_evals(doc: c.Evals, losses: list[str]) -> sc.SCEvals:
    skill_name = doc.skill_name
    if skill_name is None and doc.skill_path:
        skill_name = doc.skill_path.rstrip("/").rsplit("/", 1)[-1]
        losses.append(
            f"skill: path {doc.skill_path!r} not carried; skill_name {skill_name!r} taken from it"
        )
    elif skill_name is None:
        losses.append("skill_name: not in the source; written as an empty string")
    _drop(losses, "skill-creator evals", version=doc.schema_version)
    evals = []
    renumbered = []
    for index, case in enumerate(doc.cases):
        new_id = case.id if isinstance(case.id, int) else index + 1
        if not isinstance(case.id, int):
            renumbered.append(f"{case.id}→{new_id}")
        labels = [e.criterion for e in case.expectations if e.criterion]
        optional = [e.criterion or e.text for e in case.expectations if e.required is False]
        if labels:
            losses.append(f"cases[{index}] criterion labels dropped: {', '.join(labels)}")
        if optional:
            losses.append(
                f"cases[{index}] required flags dropped; optional expectations become plain "
                f"expectations: {', '.join(optional)}"
            )
        evals.append(
            sc.SCEval(
                id=new_id,
                prompt=case.prompt,
                expected_output=case.expected_output,
                files=case.files,
                expectations=[e.text for e in case.expectations],
                **case.extra,
            )
        )
    if renumbered:
        losses.append(f"case ids are integers in skill-creator: {', '.join(renumbered)}")
    return sc.SCEvals(skill_name=skill_name or "", evals=evals)


def _to_ws_evals(doc: c.Evals, losses: list[str]) -> ws.WSEvals:
    cases = []
    invented_required = False
    for index, case in enumerate(doc.cases):
        case_id = case.id if isinstance(case.id, str) else f"case-{case.id:02d}"
        if not isinstance(case.id, str):
            losses.append(f"cases[{index}].id: integer id {case.id} written as {case_id!r}")
        if case.expected_output:
            losses.append(
                f"cases[{index}].expected_output: writing-skills has no such field; dropped"
            )
        expectations = []
        for e in case.expectations:
            invented_required |= e.required is None
            expectations.append(
                ws.WSExpectation(
                    criterion=e.criterion or e.text,
                    description=e.text,
                    required=True if e.required is None else e.required,
                )
            )
        cases.append(
            ws.WSCase(
                id=case_id,
                prompt=case.prompt,
                files=case.files,
                expectations=expectations,
                **case.extra,
            )
        )
    if invented_required:
        losses.append(
            "required: skill-creator has no required flags; every expectation marked required: true "
            "and its text used as the criterion label"
        )
    if doc.skill_path is None and doc.skill_name is not None:
        losses.append(f"skill: holds the skill name {doc.skill_name!r}, not a path to the skill")
    return ws.WSEvals(
        version=doc.schema_version, skill=doc.skill_path or doc.skill_name, cases=cases
    )


def _to_sc_history(doc: c.History, losses: list[str]) -> sc.SCHistory:
    started = doc.started_at or (doc.versions[0].timestamp if doc.versions else None)
    if doc.started_at is None:
        losses.append("started_at: taken from the first version's timestamp")
    best = doc.best
    if best is None:
        scored = [v for v in doc.versions if v.mean_score is not None]
        if scored:
            best = max(scored, key=lambda v: v.mean_score or 0.0).label
            losses.append(f"current_best: not recorded; {best} chosen by highest average_score")
        else:
            best = doc.current or doc.versions[-1].label
            losses.append(
                f"current_best: not recorded and no scores; the current version {best} is marked best"
            )
    iterations = []
    previous: str | None = None
    for index, v in enumerate(doc.versions):
        parent = v.parent
        if parent is None and index > 0:
            parent = previous
            losses.append(f"{v.label}.parent: inferred as the previous version {previous}")
        result = v.result or ("baseline" if index == 0 else None)
        if v.result is None and index > 0:
            losses.append(f"{v.label}.grading_result: unknown (no comparison recorded); null")
        if v.pass_rate is None:
            losses.append(
                f"{v.label}.expectation_pass_rate: unknown; average_score is a 1–5 mean, "
                "not a pass rate; null"
            )
        _drop(
            losses,
            "skill-creator history",
            **{
                f"{v.label}.timestamp": v.timestamp if index else None,
                f"{v.label}.description": v.description,
                f"{v.label}.git_hash": v.git_hash,
                f"{v.label}.path": v.path,
                f"{v.label}.average_score": v.mean_score,
            },
        )
        iterations.append(
            sc.SCIteration(
                version=v.label,
                parent=parent,
                expectation_pass_rate=v.pass_rate,
                grading_result=result,
                is_current_best=v.label == best,
            )
        )
        previous = v.label
    if doc.current is not None and doc.current != best:
        losses.append(f"current_version: {doc.current} (version being worked on) not carried")
    if doc.skill_name is None:
        losses.append("skill_name: not in the source; written as an empty string")
    return sc.SCHistory(
        started_at=started or "",
        skill_name=doc.skill_name or "",
        current_best=best,
        iterations=iterations,
    )


def _to_ws_history(doc: c.History, losses: list[str]) -> ws.WSHistory:
    versions = []
    numbers: dict[str, int] = {}
    for index, v in enumerate(doc.versions):
        number = v.number if v.number is not None else index
        numbers[v.label] = number
        timestamp = v.timestamp or (doc.started_at if index == 0 else None)
        if v.timestamp is None:
            losses.append(
                f"v{number}.timestamp: "
                + ("started_at used" if index == 0 and doc.started_at else "unknown; null")
            )
        description = v.description or (f"{v.label} ({v.result})" if v.result else v.label)
        if v.description is None:
            losses.append(f"v{number}.description: derived from the version label and result")
        if v.path is None:
            losses.append(
                f"v{number}.path: not recorded; workspace convention v{number}/skill assumed"
            )
        _drop(
            losses,
            "writing-skills history",
            **{
                f"{v.label}.parent": v.parent,
                f"{v.label}.expectation_pass_rate": v.pass_rate,
                f"{v.label}.grading_result": v.result,
            },
        )
        versions.append(
            ws.WSVersion(
                version=number,
                timestamp=timestamp,
                description=description,
                git_hash=v.git_hash,
                path=v.path or f"v{number}/skill",
                average_score=v.mean_score,
            )
        )
    current_label = doc.current or doc.best or doc.versions[-1].label
    if doc.current is None:
        losses.append(
            f"current_version: set to the best version {current_label} "
            "(writing-skills records the version being worked on, not the best)"
        )
    _drop(losses, "writing-skills history", skill_name=doc.skill_name, started_at=doc.started_at)
    return ws.WSHistory(versions=versions, current_version=numbers[current_label])


def _to_ws_grading(doc: c.Grading, losses: list[str]) -> ws.WSGrading:
    results = []
    mapped = False
    for item in doc.criteria:
        score = item.score
        if score is None:
            score = ws.PASS_SCORE if item.passed else 1
            mapped = True
        results.append(
            ws.WSCriterionResult(
                criterion=item.text, score=score, passed=item.passed, reasoning=item.evidence or ""
            )
        )
    if mapped:
        losses.append(
            "score: skill-creator grades pass/fail only; passed mapped to 3 and failed to 1 "
            "(band minimums, not real scores); overall_score and required_score follow from them"
        )
    flagged = [
        r for r, item in zip(results, doc.criteria, strict=True) if item.required is not False
    ]
    if any(item.required is None for item in doc.criteria):
        losses.append("required: unknown; every criterion treated as required for overall")
    for name, default in (("case_id", ""), ("version", 0), ("run", 1)):
        if getattr(doc, name) is None:
            losses.append(f"{name}: not in the source; written as {default!r}")
    if doc.claims and any(x.type for x in doc.claims):
        losses.append("claims[].type: writing-skills claims have no type; dropped")
    if isinstance(doc.user_notes, dict):
        losses.append("user_notes_summary: structured notes flattened to one string")
    if isinstance(doc.eval_feedback, dict):
        losses.append("eval_feedback: structured feedback flattened to one string")
    _drop(losses, "writing-skills grading", timing=doc.timing)
    if doc.conventions is None:
        losses.append("convention_compliance: not graded in the source; omitted")
    return ws.WSGrading(
        case_id=doc.case_id or "",
        version=doc.version or 0,
        run=doc.run or 1,
        overall_score=_mean([r.score for r in results]),
        required_score=_mean([r.score for r in flagged]) if flagged else None,
        results=results,
        overall="pass" if all(r.passed for r in flagged) else "fail",
        convention_compliance=ws.WSConventions.model_validate(doc.conventions)
        if doc.conventions
        else None,
        claims=_map_or_none(
            doc.claims,
            lambda x: ws.WSClaim(claim=x.claim, verified=x.verified, evidence=x.evidence),
        ),
        user_notes_summary=_text(doc.user_notes),
        eval_feedback=_text(doc.eval_feedback),
        execution_metrics=doc.execution_metrics,
    )


def _to_sc_grading(doc: c.Grading, losses: list[str]) -> sc.SCGrading:
    scores = [f"{x.text}={x.score}" for x in doc.criteria if x.score is not None]
    if scores:
        losses.append(
            f"score: skill-creator keeps pass/fail only; 1–5 scores dropped ({', '.join(scores)})"
        )
    _drop(
        losses,
        "skill-creator grading",
        case_id=doc.case_id,
        version=doc.version,
        run=doc.run,
        overall_score=doc.overall_score,
        required_score=doc.required_score,
        convention_compliance=doc.conventions,
    )
    passed = sum(1 for x in doc.criteria if x.passed)
    total = len(doc.criteria)
    metrics: sc.SCMetrics | None = None
    if doc.execution_metrics:
        try:
            metrics = sc.SCMetrics.model_validate(doc.execution_metrics)
        except ValidationError:
            losses.append("execution_metrics: not a skill-creator metrics object; dropped")
    user_notes = None
    if isinstance(doc.user_notes, str) and doc.user_notes:
        user_notes = sc.SCUserNotes(uncertainties=[doc.user_notes])
        losses.append("user_notes_summary: free text placed under uncertainties")
    elif isinstance(doc.user_notes, dict):
        user_notes = sc.SCUserNotes.model_validate(doc.user_notes)
    feedback = None
    if isinstance(doc.eval_feedback, str) and doc.eval_feedback:
        feedback = sc.SCEvalFeedback(overall=doc.eval_feedback)
    elif isinstance(doc.eval_feedback, dict):
        feedback = sc.SCEvalFeedback.model_validate(doc.eval_feedback)
    return sc.SCGrading(
        expectations=[
            sc.SCExpectation(text=x.text, passed=x.passed, evidence=x.evidence or "")
            for x in doc.criteria
        ],
        summary=sc.SCSummary(
            passed=passed,
            failed=total - passed,
            total=total,
            pass_rate=round(passed / total, 2) if total else 0.0,
        ),
        execution_metrics=metrics,
        timing=sc.SCTiming.model_validate(doc.timing) if doc.timing else None,
        claims=_map_or_none(
            doc.claims,
            lambda x: sc.SCClaim(
                claim=x.claim, type=x.type, verified=x.verified, evidence=x.evidence
            ),
        ),
        user_notes_summary=user_notes,
        eval_feedback=feedback,
    )


def _to_ws_comparison(doc: c.Comparison, losses: list[str]) -> ws.WSComparison:
    if doc.winner == "TIE":
        raise InputError(
            "writing-skills comparisons have no tie; a TIE cannot be converted",
            field="winner",
            rule="no-tie",
        )
    if doc.dimension_scores is None:
        losses.append("scores: the source has no 1–10 dimension scores; omitted")
    _drop(
        losses,
        "writing-skills comparison",
        rubric=doc.rubric,
        output_quality=doc.output_quality,
        expectation_results=doc.expectation_results,
    )
    return ws.WSComparison(
        eval_prompt=doc.eval_prompt,
        winner=doc.winner,
        reasoning=doc.reasoning,
        scores=ws.WSScores.model_validate(doc.dimension_scores) if doc.dimension_scores else None,
    )


def _to_sc_comparison(doc: c.Comparison, losses: list[str]) -> sc.SCComparison:
    _drop(
        losses,
        "skill-creator comparison",
        eval_prompt=doc.eval_prompt,
        scores=doc.dimension_scores,
    )
    return sc.SCComparison.model_validate(
        {
            "winner": doc.winner,
            "reasoning": doc.reasoning,
            "rubric": doc.rubric,
            "output_quality": doc.output_quality,
            "expectation_results": doc.expectation_results,
        }
    )


def _to_ws_analysis(doc: c.Analysis, losses: list[str]) -> ws.WSAnalysis:
    suggestions = []
    for index, s in enumerate(doc.suggestions):
        if s.before is None:
            losses.append(f"suggestions[{index}].before: the source gives no before text; empty")
        if s.priority is not None:
            losses.append(f"suggestions[{index}].priority: dropped ({s.priority})")
        suggestions.append(
            ws.WSSuggestion(
                area=s.area or "",
                before=s.before or "",
                after=s.after or s.text or "",
                reasoning=s.reasoning,
            )
        )
    for side in ("winner", "loser"):
        label, skill = getattr(doc, f"{side}_label"), getattr(doc, f"{side}_skill")
        if label is None and skill is not None:
            losses.append(f"{side}_version: no version label; the skill path {skill!r} is used")
        elif label is None:
            losses.append(f"{side}_version: not in the source; empty")
    _drop(
        losses,
        "writing-skills analysis",
        **{
            "comparison_summary.winner": doc.blind_winner,
            "comparison_summary.comparator_reasoning": doc.comparator_reasoning,
            "instruction_following": doc.instruction_following,
            "transcript_insights": doc.transcript_insights,
        },
    )
    return ws.WSAnalysis(
        winner_version=doc.winner_label or doc.winner_skill or "",
        loser_version=doc.loser_label or doc.loser_skill or "",
        strengths=doc.strengths,
        weaknesses=doc.weaknesses,
        suggestions=suggestions,
    )


def _to_sc_analysis(doc: c.Analysis, losses: list[str]) -> sc.SCAnalysis:
    suggestions = []
    for index, s in enumerate(doc.suggestions):
        text = s.text
        if text is None:
            text = f"Change {s.before!r} to {s.after!r}"
            losses.append(f"suggestions[{index}].before/after: folded into the suggestion text")
        suggestions.append(
            sc.SCSuggestion(
                priority=s.priority,
                category=s.area,
                suggestion=text,
                expected_impact=s.reasoning,
            )
        )
    for side in ("winner", "loser"):
        label, skill = getattr(doc, f"{side}_label"), getattr(doc, f"{side}_skill")
        if skill is None and label is not None:
            losses.append(
                f"{side}_version: the version label {label!r} is written as {side}_skill "
                "(skill-creator expects a path)"
            )
    return sc.SCAnalysis(
        comparison_summary=sc.SCComparisonSummary(
            winner=doc.blind_winner,
            winner_skill=doc.winner_skill or doc.winner_label,
            loser_skill=doc.loser_skill or doc.loser_label,
            comparator_reasoning=doc.comparator_reasoning,
        ),
        winner_strengths=doc.strengths,
        loser_weaknesses=doc.weaknesses,
        instruction_following=doc.instruction_following,
        improvement_suggestions=suggestions,
        transcript_insights=doc.transcript_insights,
    )


Reader = Callable[[Any], c.CanonicalModel]
Writer = Callable[[Any, list[str]], BaseModel]

READERS: dict[tuple[str, str], Reader] = {
    ("evals", WRITING_SKILLS): _ws_evals,
    ("evals", SKILL_CREATOR): _sc_evals,
    ("history", WRITING_SKILLS): _ws_history,
    ("history", SKILL_CREATOR): _sc_history,
    ("grading", WRITING_SKILLS): _ws_grading,
    ("grading", SKILL_CREATOR): _sc_grading,
    ("comparison", WRITING_SKILLS): _ws_comparison,
    ("comparison", SKILL_CREATOR): _sc_comparison,
    ("analysis", WRITING_SKILLS): _ws_analysis,
    ("analysis", SKILL_CREATOR): _sc_analysis,
}
WRITERS: dict[tuple[str, str], Writer] = {
    ("evals", WRITING_SKILLS): _to_ws_evals,
    ("evals", SKILL_CREATOR): _to_sc_evals,
    ("history", WRITING_SKILLS): _to_ws_history,
    ("history", SKILL_CREATOR): _to_sc_history,
    ("grading", WRITING_SKILLS): _to_ws_grading,
    ("grading", SKILL_CREATOR): _to_sc_grading,
    ("comparison", WRITING_SKILLS): _to_ws_comparison,
    ("comparison", SKILL_CREATOR): _to_sc_comparison,
    ("analysis", WRITING_SKILLS): _to_ws_analysis,
    ("analysis", SKILL_CREATOR): _to_sc_analysis,
}


def to_canonical(model: BaseModel) -> tuple[c.CanonicalModel, list[str]]:
    """The canonical model of a dialect document, with the source's unknown keys as losses."""
    entry = model_entry(model)
    reader = READERS.get((entry.kind, entry.dialect))
    if reader is None:
        raise InputError(
            f"{entry.kind} ({entry.dialect}) has no canonical model; convertible kinds: "
            f"{', '.join(CONCEPTS)}",
            rule="no-conversion",
        )
    return reader(model), _extras(model, entry.dialect)


def from_canonical(doc: c.CanonicalModel, kind: str, dialect: str) -> ConversionResult:
    """Write a canonical model in one dialect; losses name everything not carried."""
    writer = WRITERS.get((kind, dialect))
    if writer is None:
        raise InputError(f"no {kind} document in dialect {dialect!r}", rule="no-conversion")
    losses: list[str] = []
    try:
        model = writer(doc, losses)
    except ValidationError as exc:
        where, message, rule = format_errors(exc, BaseModel)[0]
        raise InputError(
            f"cannot be written as {dialect} {kind}: {message}", field=where, rule=rule
        ) from None
    return ConversionResult(model, kind, dialect, losses)


def convert(doc: LoadedDocument | BaseModel, to_dialect: str) -> ConversionResult:
    """Convert a document to another dialect through the canonical model of its concept."""
    model = doc.model if isinstance(doc, LoadedDocument) else doc
    entry = model_entry(model)
    if entry.dialect == to_dialect:
        return ConversionResult(model, entry.kind, to_dialect, [])
    canonical, losses = to_canonical(model)
    result = from_canonical(canonical, entry.kind, to_dialect)
    result.losses[:0] = losses
    return result
