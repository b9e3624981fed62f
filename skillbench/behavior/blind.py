"""What a blind comparator may see of a run, and the judge prompts built from it.

A `RunOutput` holds the final reply, the files of `outputs/` (text excerpts) and a transcript
excerpt of one run. It never holds the configuration name or the skill version: the prompts are
built from `RunOutput`s only, and `redact()` removes configuration labels (``with_skill``,
``baseline``, ``v<N>``) and workspace paths that a transcript may quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from skillbench.backends.base import TextRequest
from skillbench.behavior.records import read_run_record
from skillbench.behavior.structured import json_instruction
from skillbench.schemas import writing_skills as ws

RUN_PREFIX = "run-"
HARNESS_FILES = frozenset({"metrics.json"})
"""Files of outputs/ written by the harness, not by the run: never shown to the judge."""
MAX_FILE_CHARS = 4000
MAX_FILES = 12
MAX_TRANSCRIPT_CHARS = 6000
MAX_FINAL_CHARS = 8000
REDACTED = "[redacted]"

Dialect = str
WRITING_SKILLS = "writing-skills"
SKILL_CREATOR = "skill-creator"
DIALECT_CHOICES = (WRITING_SKILLS, SKILL_CREATOR)


@dataclass(frozen=True)
class RunOutput:
    """One run as the judge sees it (plus where it came from, which the judge never sees)."""

    run_dir: Path
    case_id: str
    run_number: int
    status: str
    error: str | None
    final_text: str
    files: tuple[tuple[str, str], ...]
    transcript_excerpt: str


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters not shown]"


def _file_excerpt(path: Path) -> str:
    data = path.read_bytes()
    if b"\x00" in data[:1024]:
        return f"[binary file, {len(data)} bytes]"
    return _clip(data.decode("utf-8", errors="replace"), MAX_FILE_CHARS)


def read_output_files(outputs: Path) -> tuple[tuple[str, str], ...]:
    """(relative path, excerpt) of the files a run created, harness files left out."""
    if not outputs.is_dir():
        return ()
    found: list[tuple[str, str]] = []
    for path in sorted(p for p in outputs.rglob("*") if p.is_file()):
        relative = path.relative_to(outputs).as_posix()
        if relative in HARNESS_FILES:
            continue
        if len(found) == MAX_FILES:
            found.append(("…", "[more files not shown]"))
            break
        found.append((relative, _file_excerpt(path)))
    return tuple(found)


def read_run_output(run_dir: Path) -> RunOutput:
    """Read `run.json`, `transcript.md` and `outputs/` of one run folder."""
    record = read_run_record(run_dir / "run.json")
    transcript_path = run_dir / "transcript.md"
    transcript = (
        transcript_path.read_bytes().decode("utf-8", errors="replace")
        if transcript_path.is_file()
        else ""
    )
    return RunOutput(
        run_dir=run_dir,
        case_id=record.case_id,
        run_number=record.run_number,
        status=record.status,
        error=record.error,
        final_text=record.final_text,
        files=read_output_files(run_dir / "outputs"),
        transcript_excerpt=_clip(transcript, MAX_TRANSCRIPT_CHARS),
    )


def redaction_pattern(configs: tuple[str, ...], workspace: Path | None) -> re.Pattern[str]:
    """A pattern matching configuration labels, version labels and the workspace path."""
    words = {"with_skill", "with-skill", "baseline", *configs}
    parts = [rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in sorted(words, key=len, reverse=True)]
    parts.append(r"(?<![\w-])v\d+(?=/skill\b|(?![\w.-]))")
    if workspace is not None:
        parts.insert(0, re.escape(str(workspace)))
        parts.insert(1, re.escape(workspace.name))
    return re.compile("|".join(parts), re.IGNORECASE)


def redact(text: str, pattern: re.Pattern[str]) -> str:
    """`text` with every configuration label and workspace path replaced by [redacted]."""
    return pattern.sub(REDACTED, text)


def render_output(label: str, run: RunOutput, pattern: re.Pattern[str]) -> str:
    """The section of the prompt that shows one output under its blind label."""
    lines = [f"## Output {label}", "", f"### Final reply of output {label}", ""]
    lines.append(redact(_clip(run.final_text, MAX_FINAL_CHARS), pattern) or "(empty)")
    lines += ["", f"### Files created by output {label}", ""]
    if not run.files:
        lines.append("(none)")
    for name, excerpt in run.files:
        lines += [f"#### {redact(name, pattern)}", "```", redact(excerpt, pattern), "```"]
    lines += ["", f"### Transcript excerpt of output {label}", ""]
    lines.append(redact(run.transcript_excerpt, pattern) or "(no transcript)")
    return "\n".join(lines)


COMPARATOR_SYSTEM = (
    "You are a blind comparator. Two outputs, labelled A and B, were produced for the same task. "
    "The labels were assigned at random: neither position is more likely to be better, so judge "
    "the content only. Decide which output better accomplishes the task and satisfies the "
    "expectations; quote concrete differences in your reasoning."
)

_WS_GUIDE = (
    "Score both outputs on the five dimensions, each an integer from 1 (poor) to 10 "
    '(excellent), as {"A": n, "B": n}: description_quality (is what the output says clear '
    "and accurate), convention_compliance (does it follow the conventions the task implies), "
    "type_specific_quality (quality for this kind of task), token_efficiency (no padding or "
    'repetition), content_value (useful, correct substance). `winner` is "A" or "B" (you '
    "must choose); `reasoning` explains the choice. Leave `eval_prompt` out."
)
_SC_GUIDE = (
    '`winner` is "A", "B" or "TIE" (only when neither is better). `rubric` gives, for each '
    "of A and B, `content` and `structure` criteria you name, each scored 1–5, and "
    "`overall_score` (1–10). `output_quality` gives, for each of A and B, `score` (1–10), "
    "`strengths` and `weaknesses` (short phrases)."
)


class CriterionScore(BaseModel):
    """One rubric criterion scored 1–5."""

    criterion: str
    score: int = Field(ge=1, le=5)


class RubricSide(BaseModel):
    """Rubric of one output: content and structure criteria, and an overall 1–10 score."""

    content: list[CriterionScore] = Field(min_length=1)
    structure: list[CriterionScore] = Field(min_length=1)
    overall_score: int = Field(ge=1, le=10)

    def document(self) -> dict[str, Any]:
        """The seed 004 rubric side; content/structure scores are the means of the criteria."""
        content = {c.criterion: c.score for c in self.content}
        structure = {c.criterion: c.score for c in self.structure}
        return {
            "content": content,
            "structure": structure,
            "content_score": round(sum(content.values()) / len(content), 2),
            "structure_score": round(sum(structure.values()) / len(structure), 2),
            "overall_score": self.overall_score,
        }


class RubricPair(BaseModel):
    """Rubrics of outputs A and B."""

    A: RubricSide
    B: RubricSide


class QualitySide(BaseModel):
    """Overall quality of one output."""

    score: int = Field(ge=1, le=10)
    strengths: list[str]
    weaknesses: list[str]


class QualityPair(BaseModel):
    """Quality of outputs A and B."""

    A: QualitySide
    B: QualitySide


class SCJudgeReply(BaseModel):
    """What a skill-creator comparator answers (fixed keys, so strict structured output works);
    `document()` turns it into the seed 004 comparison shape."""

    winner: Literal["A", "B", "TIE"]
    reasoning: str
    rubric: RubricPair
    output_quality: QualityPair

    def document(self) -> dict[str, Any]:
        """The seed 004 comparison document."""
        return {
            "winner": self.winner,
            "reasoning": self.reasoning,
            "rubric": {"A": self.rubric.A.document(), "B": self.rubric.B.document()},
            "output_quality": self.output_quality.model_dump(),
        }


def judge_output_model(dialect: Dialect) -> type[ws.WSComparison] | type[SCJudgeReply]:
    """The model the judge answers with, per dialect."""
    return ws.WSComparison if dialect == WRITING_SKILLS else SCJudgeReply


def judge_document(reply: ws.WSComparison | SCJudgeReply) -> dict[str, Any]:
    """The dialect comparison document of a judge's reply."""
    return reply.document() if isinstance(reply, SCJudgeReply) else reply.to_json_dict()


def comparison_request(
    *,
    task: str,
    expectations: list[str],
    shown_a: RunOutput,
    shown_b: RunOutput,
    dialect: Dialect,
    pattern: re.Pattern[str],
    run_index: int,
) -> TextRequest:
    """The blind prompt for one order. Nothing in it names a configuration or a version."""
    expected = "\n".join(f"- {redact(e, pattern)}" for e in expectations) or "- (none given)"
    guide = _WS_GUIDE if dialect == WRITING_SKILLS else _SC_GUIDE
    prompt = "\n\n".join(
        [
            "# Task given to both",
            redact(task, pattern),
            "# Expectations",
            expected,
            render_output("A", shown_a, pattern),
            render_output("B", shown_b, pattern),
            "# Your judgement",
            guide,
            json_instruction(judge_output_model(dialect)),
        ]
    )
    return TextRequest(
        prompt=prompt,
        system=COMPARATOR_SYSTEM,
        max_tokens=2048,
        purpose="compare",
        run_index=run_index,
    )
