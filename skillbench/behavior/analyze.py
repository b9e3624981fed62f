"""The analyzer: after a blind comparison, unblinded, why the winner won and what to change.

`analysis.json` in the writing-skills (seed 002) or skill-creator (seed 004) shape. A model
analyzer answers with the dialect model through structured output; the version labels are then
set from the comparison, never taken from the model. With the `local` backend there is no model:
only what the machine-checkable expectations show is reported (expectations the loser failed
where the winner passed, and the reverse), labelled as deterministic, and no suggestion is made.
An overall tie has no winner to analyse: nothing is written and the reason is returned.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from skillbench.backends.base import TextModel, TextRequest
from skillbench.behavior.blind import (
    MAX_TRANSCRIPT_CHARS,
    WRITING_SKILLS,
    read_run_output,
)
from skillbench.behavior.checks import RunMaterial, run_check
from skillbench.behavior.compare import CaseSpec, CompareSummary, PairResult, pair_versions
from skillbench.behavior.structured import ask_structured, json_instruction
from skillbench.behavior.workspace import Workspace
from skillbench.schemas import skill_creator as sc
from skillbench.schemas import writing_skills as ws
from skillbench.schemas.loading import write

ANALYZER_KEY = "skillbench"
DETERMINISTIC_NOTE = (
    "DETERMINISTIC analysis (local backend, no model): strengths and weaknesses are only the "
    "machine-checkable expectations one side passed and the other failed; no suggestion is made "
    "because none can be derived without a model."
)
ANALYZER_SYSTEM = (
    "You analyse why one version of an Agent Skill beat another in a blind comparison of the "
    "work Claude did with each. The comparison is over; the versions are now named. Be concrete: "
    "quote the skill text and the outputs, and make every suggestion directly actionable."
)
MAX_SKILL_CHARS = 12000
MAX_EXAMPLES = 3


class SideFollowing(BaseModel):
    """How well one side followed its skill's instructions."""

    score: int = Field(ge=1, le=10)
    issues: list[str]


class FollowingPair(BaseModel):
    """Instruction following of the winner and the loser."""

    winner: SideFollowing
    loser: SideFollowing


class TranscriptInsights(BaseModel):
    """How each side went about the task."""

    winner_execution_pattern: str
    loser_execution_pattern: str


class SCSuggestionReply(BaseModel):
    """One prioritised suggestion."""

    priority: Literal["high", "medium", "low"]
    category: str
    suggestion: str
    expected_impact: str


class SCAnalyzerReply(BaseModel):
    """What a skill-creator analyzer answers (fixed keys, so strict structured output works)."""

    comparator_summary: str
    winner_strengths: list[str]
    loser_weaknesses: list[str]
    instruction_following: FollowingPair
    improvement_suggestions: list[SCSuggestionReply]
    transcript_insights: TranscriptInsights


@dataclass(frozen=True)
class Side:
    """One configuration, unblinded: its label, the skill it ran and the skill's text."""

    config: str
    version: int | None
    label: str
    skill_path: str
    skill_text: str


@dataclass
class ExpectationDiff:
    """A machine-checkable expectation that separated the two sides in some runs."""

    case_id: str
    text: str
    winner_only: list[str] = field(default_factory=list)
    loser_only: list[str] = field(default_factory=list)


@dataclass
class AnalysisResult:
    """The analysis document (None on an overall tie), why not, and where it was written."""

    document: ws.WSAnalysis | sc.SCAnalysis | None
    reason: str | None = None
    path: Path | None = None
    analyzer: str = "deterministic"


def overall_winner(summary: CompareSummary) -> str | None:
    """The configuration with more case wins than the other, or None on a tie."""
    if summary.case_wins > summary.case_losses:
        return summary.config_a
    if summary.case_losses > summary.case_wins:
        return summary.config_b
    return None


def describe_side(workspace: Workspace, config: str, version: int | None) -> Side:
    """Label, skill path and SKILL.md text of a configuration (baseline: no skill)."""
    if version is None:
        return Side(config, None, config, "(no skill)", "")
    skill_md = workspace.version_dir(version) / "SKILL.md"
    text = skill_md.read_bytes().decode("utf-8", errors="replace") if skill_md.is_file() else ""
    return Side(config, version, f"v{version}", f"v{version}/skill", text[:MAX_SKILL_CHARS])


def expectation_diffs(
    workspace: Workspace, summary: CompareSummary, cases: dict[str, CaseSpec], winner: str
) -> list[ExpectationDiff]:
    """Per case and check, the runs where only the winner (or only the loser) passed."""
    diffs: dict[tuple[str, int], ExpectationDiff] = {}
    for pair in summary.pair_results:
        record = pair.record
        case = cases.get(pair.case_id)
        if record is None or case is None:
            continue
        dirs = pair_dirs(workspace, pair)
        if dirs is None:
            continue
        outcomes: dict[str, list[bool | None]] = {}
        for config, run_dir in dirs.items():
            run = read_run_output(run_dir)
            material = RunMaterial(run_dir, run.final_text)
            outcomes[config] = [
                None if check is None else run_check(check, material).passed
                for check in case.checks
            ]
        loser = next(c for c in dirs if c != winner)
        for index, check in enumerate(case.checks):
            if check is None:
                continue
            won, lost = outcomes[winner][index], outcomes[loser][index]
            if won == lost:
                continue
            diff = diffs.setdefault(
                (case.case_id, index), ExpectationDiff(case.case_id, case.expectations[index])
            )
            (diff.winner_only if won else diff.loser_only).append(f"run {pair.run_number}")
    return list(diffs.values())


def pair_dirs(workspace: Workspace, pair: PairResult) -> dict[str, Path] | None:
    """config → run folder of a judged pair (None when the summary does not record them)."""
    if pair.run_dirs is None:
        return None
    return {config: workspace.root / path for config, path in pair.run_dirs.items()}


def deterministic_lists(
    diffs: list[ExpectationDiff], winner: Side, loser: Side
) -> tuple[list[str], list[str]]:
    """(strengths of the winner, weaknesses of the loser), each line labelled as a check."""
    strengths, weaknesses = [], []
    won, lost = _named(winner), _named(loser)  # "v0 (with_skill)", not a bare "v0"
    for diff in diffs:
        if diff.winner_only:
            runs = ", ".join(diff.winner_only)
            strengths.append(
                f"[deterministic check] {won} passed '{diff.text}' where {lost} "
                f"failed (case {diff.case_id}, {runs})"
            )
            weaknesses.append(
                f"[deterministic check] {lost} failed '{diff.text}' where {won} "
                f"passed (case {diff.case_id}, {runs})"
            )
        if diff.loser_only:
            runs = ", ".join(diff.loser_only)
            weaknesses.append(
                f"[deterministic check, against the winner] {won} failed '{diff.text}' "
                f"where {lost} passed (case {diff.case_id}, {runs})"
            )
    return strengths, weaknesses


def _reasonings(summary: CompareSummary, winner: str) -> list[str]:
    lines = []
    for pair in summary.pair_results:
        record = pair.record
        if record is None or record.judge != "model":
            continue
        for judgement in record.judgements:
            reasoning = str(judgement.document.get("reasoning", ""))
            named = reasoning
            for label, config in judgement.shown_as.items():
                named = named.replace(f"Output {label}", f"Output {label} ({config})")
            lines.append(
                f"- case {pair.case_id} run {pair.run_number}, order {judgement.order} "
                f"(A={judgement.shown_as['A']}, B={judgement.shown_as['B']}, "
                f"winner={judgement.winner_config or 'TIE'}): {named}"
            )
    return lines


def _transcripts(
    workspace: Workspace, summary: CompareSummary, configs: tuple[str, str]
) -> list[str]:
    blocks: list[str] = []
    seen = 0
    for pair in summary.pair_results:
        dirs = pair_dirs(workspace, pair)
        if dirs is None or seen >= MAX_EXAMPLES:
            continue
        seen += 1
        for config in configs:
            path = dirs[config]
            run = read_run_output(path)
            excerpt = run.transcript_excerpt[: MAX_TRANSCRIPT_CHARS // 2]
            blocks.append(
                f"### {config}, case {pair.case_id}, run {pair.run_number}\n"
                f"Final reply:\n{run.final_text[:3000]}\n\nTranscript excerpt:\n{excerpt}"
            )
    return blocks


def _named(side: Side) -> str:
    return side.label if side.label == side.config else f"{side.label} ({side.config})"


def analyzer_request(
    workspace: Workspace,
    summary: CompareSummary,
    winner: Side,
    loser: Side,
    diffs: list[ExpectationDiff],
    dialect: str,
) -> TextRequest:
    """The unblinded analyzer prompt."""
    model = ws.WSAnalysis if dialect == WRITING_SKILLS else SCAnalyzerReply
    strengths, _weaknesses = deterministic_lists(diffs, winner, loser)
    shape = (
        "Fill winner_version and loser_version with the labels given; strengths: what the "
        "winner did better; weaknesses: what the loser got wrong; suggestions: changes to the "
        "LOSING skill's text, each with area, before (its current text, quoted), after (the "
        "replacement) and reasoning."
        if dialect == WRITING_SKILLS
        else "comparator_summary: one paragraph on why the winner won; winner_strengths; "
        "loser_weaknesses; instruction_following of winner and loser (score 1-10, issues); "
        "improvement_suggestions for the LOSING skill (priority high/medium/low, category, "
        "suggestion, expected_impact); transcript_insights (each side's execution pattern)."
    )
    parts = [
        f"# Result\n{_named(winner)} beat {_named(loser)}: "
        f"{summary.case_wins} case wins, {summary.case_losses} losses, {summary.case_ties} ties "
        f"(judged in both orders; disagreements are ties).",
        f"# Winning skill {winner.label} ({winner.skill_path})\n{winner.skill_text or '(no skill)'}",
        f"# Losing skill {loser.label} ({loser.skill_path})\n{loser.skill_text or '(no skill)'}",
        "# Machine-checked expectations that separated them\n"
        + ("\n".join(f"- {line}" for line in strengths) or "- (none)"),
        "# The comparator's reasoning, unblinded\n"
        + ("\n".join(_reasonings(summary, winner.config)) or "- (no model reasoning)"),
        "# Example runs\n"
        + "\n\n".join(_transcripts(workspace, summary, (winner.config, loser.config))),
        f"# Your analysis\n{shape}",
        json_instruction(model),
    ]
    return TextRequest(
        prompt="\n\n".join(parts),
        system=ANALYZER_SYSTEM,
        max_tokens=4096,
        purpose="analyze",
    )


def _deterministic_document(
    winner: Side, loser: Side, diffs: list[ExpectationDiff], summary: CompareSummary, dialect: str
) -> ws.WSAnalysis | sc.SCAnalysis:
    strengths, weaknesses = deterministic_lists(diffs, winner, loser)
    marker = {"analyzer": "deterministic", "note": DETERMINISTIC_NOTE}
    if dialect == WRITING_SKILLS:
        return ws.WSAnalysis.model_validate(
            {
                "winner_version": winner.label,
                "loser_version": loser.label,
                "strengths": strengths,
                "weaknesses": weaknesses,
                "suggestions": [],
                ANALYZER_KEY: marker,
            }
        )
    return sc.SCAnalysis.model_validate(
        {
            "comparison_summary": {
                "winner": None,
                "winner_skill": winner.skill_path,
                "loser_skill": loser.skill_path,
                "comparator_reasoning": (
                    f"{winner.label} ({winner.config}) won {summary.case_wins} cases, lost "
                    f"{summary.case_losses}, tied {summary.case_ties} (both orders judged)"
                ),
            },
            "winner_strengths": strengths,
            "loser_weaknesses": weaknesses,
            "improvement_suggestions": [],
            ANALYZER_KEY: marker,
        }
    )


def model_document(
    reply: ws.WSAnalysis | SCAnalyzerReply,
    winner: Side,
    loser: Side,
    summary: CompareSummary,
    model: TextModel,
) -> ws.WSAnalysis | sc.SCAnalysis:
    """The dialect document of a model's reply, with the unblinded labels set from the
    comparison (never taken from the model) and the analyzer named."""
    marker = {"analyzer": "model", "backend": model.name, "model": model.model}
    if isinstance(reply, ws.WSAnalysis):
        data = reply.to_json_dict()
        data["winner_version"], data["loser_version"] = winner.label, loser.label
        data[ANALYZER_KEY] = marker
        return ws.WSAnalysis.model_validate(data)
    return sc.SCAnalysis.model_validate(
        {
            "comparison_summary": {
                "winner_skill": winner.skill_path,
                "loser_skill": loser.skill_path,
                "comparator_reasoning": reply.comparator_summary,
            },
            "winner_strengths": reply.winner_strengths,
            "loser_weaknesses": reply.loser_weaknesses,
            "instruction_following": reply.instruction_following.model_dump(),
            "improvement_suggestions": [s.model_dump() for s in reply.improvement_suggestions],
            "transcript_insights": reply.transcript_insights.model_dump(),
            ANALYZER_KEY: {
                **marker,
                "record": f"{winner.config} beat {loser.config}: "
                f"{summary.case_wins}-{summary.case_losses}-{summary.case_ties}",
            },
        }
    )


async def analyze(
    workspace: Workspace,
    summary: CompareSummary,
    cases: dict[str, CaseSpec],
    *,
    model: TextModel | None = None,
    dialect: str = WRITING_SKILLS,
    write_file: bool = True,
) -> AnalysisResult:
    """Analyse a finished comparison; writes `analysis.json` unless there is no winner."""
    winner_config = overall_winner(summary)
    if winner_config is None:
        return AnalysisResult(
            None,
            "no overall winner (case wins equal case losses): nothing to analyse",
            analyzer="model" if model else "deterministic",
        )
    loser_config = summary.config_b if winner_config == summary.config_a else summary.config_a
    va, vb = pair_versions(workspace, summary.config_a, summary.config_b)
    versions = {summary.config_a: va, summary.config_b: vb}
    winner = describe_side(workspace, winner_config, versions[winner_config])
    loser = describe_side(workspace, loser_config, versions[loser_config])
    diffs = expectation_diffs(workspace, summary, cases, winner_config)
    if model is None:
        document = _deterministic_document(winner, loser, diffs, summary, dialect)
        kind = "deterministic"
    else:
        request = analyzer_request(workspace, summary, winner, loser, diffs, dialect)
        reply: ws.WSAnalysis | SCAnalyzerReply
        if dialect == WRITING_SKILLS:
            reply, _usage = await ask_structured(model, request, ws.WSAnalysis)
        else:
            reply, _usage = await ask_structured(model, request, SCAnalyzerReply)
        document = model_document(reply, winner, loser, summary, model)
        kind = "model"
    result = AnalysisResult(document, analyzer=kind)
    if write_file:
        result.path = write(document, workspace.analysis_path)
    return result


def grouped_findings(document: ws.WSAnalysis | sc.SCAnalysis) -> dict[str, list[str]]:
    """Plain lists for display: strengths, weaknesses, suggestions (as one line each)."""
    found: dict[str, list[str]] = defaultdict(list)
    if isinstance(document, ws.WSAnalysis):
        found["strengths"] = list(document.strengths)
        found["weaknesses"] = list(document.weaknesses)
        found["suggestions"] = [
            f"[{s.area}] {s.before!r} → {s.after!r}" + (f" ({s.reasoning})" if s.reasoning else "")
            for s in document.suggestions
        ]
    else:
        found["strengths"] = list(document.winner_strengths)
        found["weaknesses"] = list(document.loser_weaknesses)
        found["suggestions"] = [
            f"[{s.priority or '-'}/{s.category or '-'}] {s.suggestion}"
            + (f" ({s.expected_impact})" if s.expected_impact else "")
            for s in document.improvement_suggestions
        ]
    return dict(found)
