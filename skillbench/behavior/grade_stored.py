"""The gradings already in a workspace, read without writing anything.

A report shows what the workspace holds: `grade.read_gradings` turns each run's seed 004
`grading.json` back into a `RunGrade` (`stored_items`: graded expectations with their method,
score, evidence and repeated verdicts; the `ungraded` list), so a report never re-grades (and
so never replaces) a grading made by another grader. `stored_grader` names the grader of a run's grading, which
`grade_workspace` checks before it replaces one.
"""

from __future__ import annotations

from typing import Any

from skillbench.behavior.grade_records import GradedExpectation, Method
from skillbench.behavior.workspace import StoredRun
from skillbench.errors import InputError
from skillbench.io import read_json
from skillbench.schemas import canonical as c
from skillbench.schemas import skill_creator as sc

NOT_GRADED = "not graded yet (run `skillbench grade`)"
UNKNOWN_GRADER = "an unknown grader (no `grader` key)"


def stored_grading(run: StoredRun) -> sc.SCGrading | None:
    """The run's seed 004 grading.json, None when it has none."""
    from skillbench.schemas.loading import from_data

    if not run.grading_path.is_file():
        return None
    doc = from_data(read_json(run.grading_path), run.grading_path)
    if not isinstance(doc.model, sc.SCGrading):
        raise InputError("not a skill-creator grading", path=run.grading_path, rule="kind")
    return doc.model


def grader_label(grader: dict[str, Any] | None) -> str:
    """ "anthropic (claude-x)", "local", or the unknown grader."""
    if not grader or not grader.get("backend"):
        return UNKNOWN_GRADER
    model = grader.get("model")
    return f"{grader['backend']} ({model})" if model else str(grader["backend"])


def stored_grader(run: StoredRun) -> dict[str, Any] | None:
    """The `grader` recorded in the run's grading.json ({} when the file has none), None when
    the run has no grading.json (or an unreadable one, which grading will replace)."""
    if not run.grading_path.is_file():
        return None
    try:
        data = read_json(run.grading_path)
    except InputError:
        return None
    grader = data.get("grader") if isinstance(data, dict) else None
    return dict(grader) if isinstance(grader, dict) else {}


def stored_items(case: c.Case | None, grading: sc.SCGrading | None) -> list[GradedExpectation]:
    """The expectations of a stored grading in the case's order (all UNGRADED when None)."""
    expectations = list(case.expectations) if case is not None else []
    texts = [e.text for e in expectations]

    def base(text: str) -> tuple[int, str, bool]:
        if text in texts:
            number = texts.index(text) + 1
            exp = expectations[number - 1]
            return number, exp.criterion or exp.text, exp.required is not False
        return len(texts) + 1, text, True

    if grading is None:  # nothing stored: every expectation is ungraded, and says why
        return [
            GradedExpectation(n, e.text, e.criterion or e.text, e.required is not False,
                              "ungraded", evidence=NOT_GRADED)
            for n, e in enumerate(expectations, start=1)
        ]  # fmt: skip
    items: list[GradedExpectation] = []
    for exp in grading.expectations:
        extra = exp.model_extra or {}
        method: Method = "check" if extra.get("method") == "check" else "model"
        score = extra.get("score")
        repeats = extra.get("repeat_verdicts")
        number, criterion, required = base(exp.text)
        items.append(
            GradedExpectation(
                number, exp.text, criterion, required, method, passed=exp.passed,
                score=score if isinstance(score, int) else None, evidence=exp.evidence,
                repeat_verdicts=[bool(v) for v in repeats] if isinstance(repeats, list) else None,
            )
        )  # fmt: skip
    for left in (grading.model_extra or {}).get("ungraded") or []:
        if not isinstance(left, dict):
            continue
        text = str(left.get("text", ""))
        number, criterion, required = base(text)
        items.append(
            GradedExpectation(number, text, criterion, required, "ungraded",
                              evidence=str(left.get("reason", "")))
        )  # fmt: skip
    return sorted(items, key=lambda i: i.number)
