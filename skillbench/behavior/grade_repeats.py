"""`grade --repeats K`: ask the grader K times about one run and keep the majority verdict.

Repeat k is sent with `TextRequest.repeat = k`, so each has its own call-cache key; repeat 0 is
keyed as a single grading always was (a cache written before repeats existed still answers it).
Every expectation records the verdict of each repeat that gave a valid reply; the stored verdict
is their majority, a tie counting as a fail (a verdict the grader could not settle is not a
pass). The score, quote and reasoning shown are those of the first repeat that agrees with it.
"""

from __future__ import annotations

from skillbench.backends.base import TextModel
from skillbench.behavior.grade_prompt import GraderReply, Material, ask_grader, quote_found
from skillbench.behavior.grade_records import GradedExpectation
from skillbench.schemas import writing_skills as ws


def majority(verdicts: list[bool]) -> bool:
    """True when more verdicts pass than fail; a tie fails."""
    return sum(verdicts) * 2 > len(verdicts)


async def ask_repeatedly(
    model: TextModel, prompt: str, wanted: list[int], *, run_index: int, repeats: int
) -> tuple[list[GraderReply], str | None]:
    """The valid replies of `repeats` askings, in order, and the last problem met (None when
    every asking gave a valid reply)."""
    replies: list[GraderReply] = []
    problem: str | None = None
    for repeat in range(repeats):
        reply, why = await ask_grader(model, prompt, wanted, run_index=run_index, repeat=repeat)
        if reply is None:
            problem = why
        else:
            replies.append(reply)
    return replies, problem


def _evidence(quote: str, reasoning: str, verified: bool | None) -> str:
    if verified is None:
        return f"(no quote: verdict rests on an absence) {reasoning}"
    mark = "" if verified else "[UNVERIFIED: quote not found in the run] "
    return f'{mark}"{quote}" — {reasoning}'


def apply_replies(
    items: list[GradedExpectation], replies: list[GraderReply], material: Material
) -> None:
    """Fill the model-graded items from the replies: the majority verdict, each reply's verdict
    recorded when there are several, the evidence of the first reply agreeing with the majority
    (its quote verified against the run)."""
    for item in items:
        if item.method != "model":
            continue
        judged = [
            j for reply in replies for j in reply.judgements if j.id == item.number
        ]  # one per reply: `ask_grader` checked the coverage
        if not judged:
            continue
        verdicts = [j.score >= ws.PASS_SCORE for j in judged]
        passed = majority(verdicts)
        shown = next(j for j, v in zip(judged, verdicts, strict=True) if v == passed)
        verified = quote_found(shown.quote, material)
        item.score = shown.score
        item.passed = passed
        item.quote_verified = verified
        item.evidence = _evidence(shown.quote, shown.reasoning, verified)
        item.repeat_verdicts = verdicts if len(replies) > 1 else None
