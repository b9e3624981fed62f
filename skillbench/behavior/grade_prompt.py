"""The model grader's reply shape, its prompt, the structured call (through the call cache) and
quote verification. `grade.py` decides what is asked; this module only talks to the model."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, Field

from skillbench.backends.base import TextModel, TextRequest
from skillbench.behavior.structured import ask_structured, json_instruction
from skillbench.errors import BackendError

TRANSCRIPT_LIMIT = 60_000
OUTPUT_FILE_LIMIT = 12_000
OUTPUTS_TOTAL_LIMIT = 40_000
MAX_TOKENS = 4096


class Judgement(BaseModel):
    """The grader's verdict on one expectation (by its number in the prompt)."""

    id: int = Field(description="the expectation's number as given in the prompt")
    score: int = Field(ge=1, le=5, description="1–5 rubric score; passed means score >= 3")
    quote: str = Field(
        description="verbatim excerpt of the transcript, final reply or an output file that "
        "supports the verdict; empty only when the point is that something is absent"
    )
    reasoning: str


class DimensionScore(BaseModel):
    """A 1–5 score with notes."""

    score: int = Field(ge=1, le=5)
    notes: str


class ReplyDimensions(BaseModel):
    """The four fixed seed 001 dimensions."""

    task_completion: DimensionScore
    output_structure: DimensionScore
    error_handling: DimensionScore
    efficiency: DimensionScore


class ReplyClaim(BaseModel):
    """A claim the executor made, checked against the run."""

    claim: str
    type: str = Field(description="factual, process or quality")
    verified: bool
    evidence: str


class ReplyNotes(BaseModel):
    """Issues the executor flagged."""

    uncertainties: list[str] = Field(default_factory=list)
    needs_review: list[str] = Field(default_factory=list)
    workarounds: list[str] = Field(default_factory=list)


class ReplyFeedbackItem(BaseModel):
    """A weakness of one expectation."""

    assertion: str
    reason: str


class ReplyFeedback(BaseModel):
    """Suggestions for the evals themselves."""

    suggestions: list[ReplyFeedbackItem] = Field(default_factory=list)
    overall: str = ""


class ReplyConvention(BaseModel):
    """One writing-skills convention judged by the model."""

    key: str = Field(description="description_field, progressive_disclosure or type_alignment")
    passed: bool
    details: str


class GraderReply(BaseModel):
    """Everything the model grader answers for one run."""

    judgements: list[Judgement]
    dimensions: ReplyDimensions
    summary: str
    claims: list[ReplyClaim] = Field(default_factory=list)
    user_notes: ReplyNotes = Field(default_factory=ReplyNotes)
    eval_feedback: ReplyFeedback = Field(default_factory=ReplyFeedback)
    weak_assertions: list[str] = Field(default_factory=list)
    missing_coverage: list[str] = Field(default_factory=list)
    conventions: list[ReplyConvention] = Field(default_factory=list)


SYSTEM = """You grade one run of an AI agent against a list of expectations.
Rubric per expectation (integer score): 1 unaddressed or contradicted; 2 partially addressed with
significant gaps; 3 met minimally; 4 met well; 5 exemplary. An expectation passes when score >= 3.
Give exactly ONE judgement per numbered expectation. Its `quote` must be copied VERBATIM from the
transcript, the final reply or an output file shown to you (it is checked); leave it empty only when
the verdict rests on something being absent. Do not reward claims the run does not back up.
Also score the four dimensions (task_completion, output_structure, error_handling, efficiency, 1-5),
list the executor's claims with whether the run verifies them, the executor's uncertainties,
weak expectations (ones a wrong run could pass), missing coverage, and feedback on the evals."""


@dataclass(frozen=True)
class Material:
    """The run as shown to the grader (and searched for quotes)."""

    transcript: str
    final_text: str
    outputs: dict[str, str]

    def haystack(self) -> str:
        """All text a quote may come from, whitespace-normalised."""
        return normalise(" ".join([self.transcript, self.final_text, *self.outputs.values()]))


def normalise(text: str) -> str:
    """Collapse whitespace and unify quotes so a quote survives re-wrapping."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip()


def quote_found(quote: str, material: Material) -> bool | None:
    """True when every fragment of the quote (split at ellipses) occurs in the run; None for an
    empty quote (nothing to verify)."""
    fragments = [normalise(f).strip(" \"'") for f in re.split(r"\.\.\.|…", quote)]
    fragments = [f for f in fragments if f]
    if not fragments:
        return None
    haystack = material.haystack()
    return all(f in haystack for f in fragments)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters not shown]"


def build_prompt(
    task: str,
    expectations: list[tuple[int, str]],
    material: Material,
    *,
    conventions: list[str] | None = None,
) -> str:
    """The user prompt: task, numbered expectations, the run's transcript, reply and outputs."""
    lines = ["## Task given to the agent", task, "", "## Expectations to grade"]
    lines += [f"{number}. {text}" for number, text in expectations]
    if conventions:
        lines += [
            "",
            "## Conventions to judge on the SKILL.md among the outputs (put them in `conventions`)",
            *[f"- {key}" for key in conventions],
        ]
    lines += ["", "## Transcript", _clip(material.transcript or "(none)", TRANSCRIPT_LIMIT)]
    lines += ["", "## Final reply", material.final_text or "(none)", "", "## Output files"]
    budget = OUTPUTS_TOTAL_LIMIT
    for name, text in material.outputs.items():
        shown = _clip(text, min(OUTPUT_FILE_LIMIT, max(budget, 0)))
        budget -= len(shown)
        lines += [f"### {name}", shown]
    if not material.outputs:
        lines.append("(none)")
    return "\n".join(lines)


def check_coverage(reply: GraderReply, wanted: list[int]) -> None:
    """ValueError unless the reply judges every wanted expectation exactly once."""
    ids = [j.id for j in reply.judgements]
    missing = sorted(set(wanted) - set(ids))
    extra = sorted(set(ids) - set(wanted))
    doubled = sorted({i for i in ids if ids.count(i) > 1})
    problems = []
    if missing:
        problems.append(f"no judgement for expectation(s) {missing}")
    if extra:
        problems.append(f"judgements for unknown expectation(s) {extra}")
    if doubled:
        problems.append(f"more than one judgement for {doubled}")
    if problems:
        raise ValueError("; ".join(problems))


_INVALID_REPLY = ("not a valid", "holds no JSON", "does not match", "returned no", "had no")
ATTEMPTS = 2
"""Grader calls per run when the reply is invalid: the first and one retry."""


def grader_request(model: Any, prompt: str, *, run_index: int = 0, repeat: int = 0) -> TextRequest:
    """The grader request `ask_grader` sends `model` first (and a dry run plans): the JSON
    instruction appended unless the model answers natively (wrappers pass `complete_json` on).
    `repeat` (`grade --repeats`) keys the k-th asking apart in the call cache."""
    native = callable(getattr(model, "complete_json", None))
    return TextRequest(
        prompt=prompt if native else f"{prompt}\n\n{json_instruction(GraderReply)}",
        system=SYSTEM,
        max_tokens=MAX_TOKENS,
        purpose="grade",
        run_index=run_index,
        repeat=repeat,
    )


async def ask_grader(
    model: TextModel,
    prompt: str,
    wanted: list[int],
    *,
    run_index: int = 0,
    repeat: int = 0,
) -> tuple[GraderReply | None, str | None]:
    """(reply, None), or (None, why) when the reply is invalid twice (one retry): `why` says the
    grader was asked and what was wrong with its last reply (never that there was no model).

    Goes through `skillbench.behavior.structured.ask_structured`: native structured output where
    the backend has it, else JSON in the text reply; the call cache of a CachingTextModel is used
    either way (and a meter outside it counts its hits). A failed call (BackendError other than
    an invalid reply) propagates.
    """
    request = grader_request(model, prompt, run_index=run_index, repeat=repeat)
    base_prompt = request.prompt
    problem = ""
    for _attempt in range(ATTEMPTS):
        try:
            reply, _usage = await ask_structured(model, request, GraderReply)
            check_coverage(reply, wanted)
            return reply, None
        except BackendError as exc:
            if not any(marker in str(exc) for marker in _INVALID_REPLY):
                raise
            problem = str(exc)
        except ValueError as exc:
            problem = str(exc)
        request = replace(
            request,
            prompt=f"{base_prompt}\n\nYour previous reply was invalid ({problem}). Answer again, "
            "judging every numbered expectation exactly once, as one JSON object.",
        )
    return None, f"the grader's reply was invalid twice ({ATTEMPTS} calls made): {problem}"
