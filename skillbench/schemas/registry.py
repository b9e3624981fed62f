"""Every (kind, dialect) skillbench knows, its model, and the content signature used to detect it."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from skillbench.schemas import (
    grader,
    loop,
    report,
    skill_creator,
    trigger,
    validation,
    writing_skills,
)

SKILL_CREATOR_V3 = "skill-creator-v3"
WRITING_SKILLS = "writing-skills"
SKILL_CREATOR = "skill-creator"
DIALECTS = (SKILL_CREATOR_V3, WRITING_SKILLS, SKILL_CREATOR)
SKILLBENCH = "skillbench"
"""skillbench's own files (run records, comparison summaries, report manifests): not a dialect
of another tool, but recognised so that checking a whole workspace names them correctly."""

KINDS = (
    "trigger-evals",
    "trigger-report",
    "improvement-history",
    "loop-summary",
    "behavior-grading",
    "validation",
    "evals",
    "history",
    "grading",
    "comparison",
    "analysis",
    "metrics",
    "timing",
    "benchmark",
)


@dataclass(frozen=True)
class Entry:
    """One document type: model plus the top-level keys that identify it.

    `signatures` are alternative key sets; a document matches when it has every key of one
    set. `item_keys`, when given, must all appear in the first item of the list named by
    `item_of` (or of the root array when `item_of` is "").
    """

    kind: str
    dialect: str
    model: type[BaseModel]
    signatures: tuple[frozenset[str], ...]
    root_list: bool = False
    item_of: str | None = None
    item_keys: tuple[frozenset[str], ...] = ()
    file_names: tuple[str, ...] = ()


def _keys(*names: str) -> frozenset[str]:
    return frozenset(names)


SC_EVAL_ITEM_KEYS = (
    _keys("id", "expectations"),
    _keys("id", "prompt"),
    _keys("prompt", "expectations"),
    _keys("prompt", "assertions"),
    _keys("prompt", "expected_output"),
)
"""A skill-creator eval case as written: the seed's shape, drafts without expectations yet,
`assertions` instead of `expectations`, with or without an id."""

ENTRIES: tuple[Entry, ...] = (
    Entry(
        "trigger-evals",
        SKILL_CREATOR_V3,
        trigger.TriggerEvalSetA,
        (_keys(),),
        True,
        "",
        (_keys("query", "should_trigger"), _keys("prompt", "should_trigger")),
        ("evals.json", "trigger_evals.json", "trigger-evals.json"),
    ),
    Entry(
        "trigger-evals",
        SKILL_CREATOR_V3,
        trigger.TriggerEvalSetB,
        (_keys("evals"),),
        False,
        "evals",
        (_keys("query", "should_trigger"), _keys("prompt", "should_trigger")),
        ("evals.json", "trigger_evals.json", "trigger-evals.json"),
    ),
    Entry(
        "trigger-report",
        SKILL_CREATOR_V3,
        trigger.TriggerReport,
        (_keys("skill_name", "description", "summary", "results"),),
    ),
    Entry(
        "improvement-history",
        SKILL_CREATOR_V3,
        loop.ImprovementHistory,
        (_keys(),),
        True,
        "",
        (_keys("round", "pass_rate"),),
        ("history.json",),
    ),
    Entry(
        "loop-summary",
        SKILL_CREATOR_V3,
        loop.LoopSummary,
        (_keys("original_description", "iterations"), _keys("best_iteration", "iterations")),
    ),
    Entry(
        "behavior-grading",
        SKILL_CREATOR_V3,
        grader.BehaviorGrading,
        (_keys("assertions", "dimensions"),),
        file_names=("grading.json",),
    ),
    Entry(
        "validation",
        SKILL_CREATOR_V3,
        validation.ValidationReport,
        (_keys("skill_path", "valid", "errors", "warnings"),),
    ),
    Entry(
        "evals",
        WRITING_SKILLS,
        writing_skills.WSEvals,
        (_keys("cases"),),
        file_names=("evals.json",),
    ),
    Entry(
        "history",
        WRITING_SKILLS,
        writing_skills.WSHistory,
        (_keys("versions", "current_version"), _keys("versions")),
        file_names=("history.json",),
    ),
    Entry(
        "grading",
        WRITING_SKILLS,
        writing_skills.WSGrading,
        (_keys("case_id", "results"), _keys("results", "overall", "overall_score")),
        file_names=("grading.json",),
    ),
    Entry(
        "comparison",
        WRITING_SKILLS,
        writing_skills.WSComparison,
        (_keys("winner", "scores"), _keys("winner", "eval_prompt")),
        file_names=("comparison.json",),
    ),
    Entry(
        "analysis",
        WRITING_SKILLS,
        writing_skills.WSAnalysis,
        (_keys("winner_version", "suggestions"), _keys("winner_version", "loser_version")),
        file_names=("analysis.json",),
    ),
    Entry(
        "evals",
        SKILL_CREATOR,
        skill_creator.SCEvals,
        (_keys("evals"),),
        False,
        "evals",
        SC_EVAL_ITEM_KEYS,
        ("evals.json",),
    ),
    Entry(
        "evals",
        SKILL_CREATOR,
        skill_creator.SCEvalList,
        (_keys(),),
        True,
        "",
        SC_EVAL_ITEM_KEYS,
        ("evals.json",),
    ),
    Entry(
        "history",
        SKILL_CREATOR,
        skill_creator.SCHistory,
        (_keys("iterations", "current_best"), _keys("iterations", "started_at")),
        file_names=("history.json",),
    ),
    Entry(
        "grading",
        SKILL_CREATOR,
        skill_creator.SCGrading,
        (_keys("expectations", "summary"),),
        file_names=("grading.json",),
    ),
    Entry(
        "comparison",
        SKILL_CREATOR,
        skill_creator.SCComparison,
        (
            _keys("winner", "rubric"),
            _keys("winner", "output_quality"),
            _keys("winner", "reasoning"),
        ),
        file_names=("comparison.json",),
    ),
    Entry(
        "analysis",
        SKILL_CREATOR,
        skill_creator.SCAnalysis,
        (_keys("comparison_summary"), _keys("winner_strengths", "improvement_suggestions")),
        file_names=("analysis.json",),
    ),
    Entry(
        "metrics",
        SKILL_CREATOR,
        skill_creator.SCMetrics,
        (_keys("tool_calls", "total_tool_calls"),),
        file_names=("metrics.json",),
    ),
    Entry(
        "timing",
        SKILL_CREATOR,
        skill_creator.SCTiming,
        (_keys("total_duration_seconds"), _keys("duration_ms"), _keys("executor_duration_seconds")),
        file_names=("timing.json",),
    ),
    Entry(
        "benchmark",
        SKILL_CREATOR,
        skill_creator.SCBenchmark,
        (_keys("metadata", "runs", "run_summary"), _keys("runs", "run_summary")),
        file_names=("benchmark.json",),
    ),
)


NATIVE_ENTRIES: tuple[Entry, ...] = (
    Entry(
        "report-header",
        SKILLBENCH,
        report.ReportHeader,
        (_keys("title", "verdict", "date"),),
        file_names=("header.json",),
    ),
    Entry("report-table", SKILLBENCH, report.ReportTable, (_keys("table", "columns", "rows"),)),
    Entry(
        "validation-list",
        SKILLBENCH,
        report.ValidationList,
        (_keys(),),
        True,
        "",
        (_keys("skill_path", "valid", "errors", "warnings"),),
        ("validation.json",),
    ),
)
"""skillbench's own report documents defined in this package (schemas.report)."""


DOCUMENT_ENTRY_POINTS = "skillbench.documents"
"""The entry-point group through which a package registers documents it owns (pyproject.toml).

skillbench's own files (run records, comparison summaries, report manifests) are registered this
way by the packages that define them, so this package never imports the packages above it. Without
them a comparison summary (it has `cases`) would be taken for a broken writing-skills evals file."""

_registered: list[Entry] = []


def register(entry: Entry) -> Entry:
    """Register one more document type at run time (plugins, tests); returns it."""
    if entry not in _registered:
        _registered.append(entry)
    return entry


@functools.cache
def plugin_entries() -> tuple[Entry, ...]:
    """Documents registered through the `skillbench.documents` entry points, loaded on first use."""
    from importlib.metadata import entry_points

    found: list[Entry] = []
    for point in sorted(entry_points(group=DOCUMENT_ENTRY_POINTS), key=lambda p: p.name):
        entry = point.load()
        if not isinstance(entry, Entry):
            raise TypeError(f"entry point {point.name!r} ({point.value}) is not a schemas Entry")
        found.append(entry)
    return tuple(found)


def native_entry(
    kind: str, model: type[BaseModel], keys: tuple[str, ...], file_names: tuple[str, ...] = ()
) -> Entry:
    """The Entry of one of skillbench's own documents, recognised by its top-level keys."""
    return Entry(kind, SKILLBENCH, model, (frozenset(keys),), file_names=file_names)


def all_entries() -> tuple[Entry, ...]:
    """Every document skillbench recognises: the seed dialects' and its own."""
    return ENTRIES + NATIVE_ENTRIES + plugin_entries() + tuple(_registered)


def entries_for(kind: str, dialect: str) -> list[Entry]:
    """The entries of one (kind, dialect); trigger-evals has two (formats A and B)."""
    return [e for e in ENTRIES if e.kind == kind and e.dialect == dialect]


def model_entry(model: BaseModel) -> Entry:
    """The entry whose model class `model` is an instance of."""
    for entry in all_entries():
        if type(model) is entry.model:
            return entry
    raise KeyError(f"{type(model).__name__} is not a registered document model")


def _items(data: Any, entry: Entry) -> list[Any] | None:
    if entry.item_of is None:
        return None
    items = data if entry.item_of == "" else data.get(entry.item_of)
    return items if isinstance(items, list) else []


@dataclass(frozen=True)
class Match:
    """How well a document fits an entry: `complete` when every identifying key is present."""

    entry: Entry
    complete: bool
    score: float
    specificity: int
    missing: tuple[str, ...]


def match(data: Any, entry: Entry) -> Match | None:
    """Score `data` against `entry` by its keys; None when the JSON type cannot fit at all."""
    if entry.root_list != isinstance(data, list):
        return None
    if not entry.root_list and not isinstance(data, dict):
        return None
    best: Match | None = None
    keys = set(data) if isinstance(data, dict) else set()
    for signature in entry.signatures:
        missing = sorted(signature - keys)
        present = len(signature) - len(missing)
        score = present / len(signature) if signature else 1.0
        candidate = Match(entry, not missing, score, len(signature), tuple(missing))
        if best is None or (candidate.score, candidate.specificity) > (
            best.score,
            best.specificity,
        ):
            best = candidate
    assert best is not None
    items = _items(data, entry)
    if items is not None:
        first = items[0] if items else None
        if not isinstance(first, dict):
            if items:
                return Match(entry, False, best.score / 2, best.specificity, ("items as objects",))
            return best
        item_keys = set(first)
        fits = [ks for ks in entry.item_keys if ks <= item_keys]
        if not fits:
            wanted = " or ".join("+".join(sorted(ks)) for ks in entry.item_keys)
            where = f"{entry.item_of}[0]" if entry.item_of else "[0]"
            return Match(entry, False, best.score / 2, best.specificity, (f"{where}: {wanted}",))
        return Match(
            entry, best.complete, best.score, best.specificity + len(fits[0]), best.missing
        )
    return best
