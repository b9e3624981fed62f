"""`report diff` on two library reports: a description change's effect on every skill.

Queries are paired by text. A query passes when the skill it was written for fired in most of
its completed runs (a should-not-trigger query: when no skill did). Per row of the matrix (each
skill, and `(none)`), the queries that pass only in A (regressed) and only in B (improved) give
an exact McNemar p, Holm-adjusted across the rows.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field

from skillbench import stats
from skillbench.documents import read_model
from skillbench.library.document import NONE, LibraryReport, QueryRouting
from skillbench.schemas.base import Document

LIBRARY_REPORT_FILE = "library_routing.json"
NOTHING_IN_COMMON = (
    "nothing in common: no query of A is in B with the same expected skill and a completed run"
)


class SkillChange(Document):
    """One row's paired queries between A and B."""

    skill: str
    queries: int
    a_passed: int
    b_passed: int
    improved: list[str] = Field(default_factory=list)
    regressed: list[str] = Field(default_factory=list)
    p_value: float
    p_holm: float


class LibraryDiff(Document):
    """Two library reports compared skill by skill."""

    a: str
    b: str
    paired: int
    skills: list[SkillChange]
    warnings: list[str] = Field(default_factory=list)

    def failed(self) -> bool:
        """Exit 1: a query regressed, or nothing in common to compare."""
        return self.paired == 0 or any(s.regressed for s in self.skills)


def is_library_report(path: str | Path) -> bool:
    """Whether `path` (a file, or a report folder holding `library_routing.json`) is one."""
    source = Path(path)
    if source.is_dir():
        return (source / LIBRARY_REPORT_FILE).is_file()
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(document, dict) and document.get("document") == LibraryReport.kind


def _load(path: str | Path) -> LibraryReport:
    source = Path(path)
    if source.is_dir():
        source = source / LIBRARY_REPORT_FILE
    return read_model(source, LibraryReport, what="invalid library report")


def passes(query: QueryRouting) -> bool | None:
    """Most completed runs fired the skill it was written for (none: no skill); None when no
    run completed."""
    if query.runs == 0:
        return None
    return 2 * query.fired.get(query.expected or NONE, 0) > query.runs


def diff_library_reports(a: str | Path, b: str | Path) -> LibraryDiff:
    """Pair the two reports' queries and compare each row (skill) with exact McNemar."""
    left, right = _load(a), _load(b)
    by_text = {q.query: q for q in right.queries}
    rows: dict[str, tuple[int, int, int, list[str], list[str]]] = {}
    paired = 0
    for qa in left.queries:
        qb = by_text.get(qa.query)
        if qb is None or qb.expected != qa.expected:
            continue
        pa, pb = passes(qa), passes(qb)
        if pa is None or pb is None:
            continue
        paired += 1
        row = qa.expected or NONE
        n, a_ok, b_ok, improved, regressed = rows.get(row, (0, 0, 0, [], []))
        if pa and not pb:
            regressed.append(qa.query)
        if pb and not pa:
            improved.append(qa.query)
        rows[row] = (n + 1, a_ok + bool(pa), b_ok + bool(pb), improved, regressed)
    names = sorted(rows, key=lambda r: (r == NONE, r))
    raw = [stats.mcnemar_exact(len(rows[r][4]), len(rows[r][3])) for r in names]
    adjusted = stats.holm(raw) if raw else []
    changes = [
        SkillChange(
            skill=r,
            queries=rows[r][0],
            a_passed=rows[r][1],
            b_passed=rows[r][2],
            improved=rows[r][3],
            regressed=rows[r][4],
            p_value=round(p, 6),
            p_holm=round(h, 6),
        )
        for r, p, h in zip(names, raw, adjusted, strict=True)
    ]
    warnings = []
    if left.library_sha256 != right.library_sha256:
        warnings.append("the libraries differ (sha256): a skill was added, removed or edited")
    for field in ("runs", "budget_chars", "seed"):
        if getattr(left.config, field) != getattr(right.config, field):
            warnings.append(
                f"{field} differs: A {getattr(left.config, field)}, B {getattr(right.config, field)}"
            )
    if (left.backend.name, left.backend.model) != (right.backend.name, right.backend.model):
        warnings.append("the backends or models differ")
    if paired == 0:
        warnings.append(NOTHING_IN_COMMON)
    return LibraryDiff(a=str(a), b=str(b), paired=paired, skills=changes, warnings=warnings)


def diff_lines(diff: LibraryDiff, alpha: float = 0.05) -> list[str]:
    """One line per skill (passed in A → B, McNemar p, Holm), then the regressed queries."""
    lines = [f"library diff: A = {diff.a}, B = {diff.b}; {diff.paired} queries paired"]
    lines += [f"WARNING: {w}" for w in diff.warnings]
    for s in diff.skills:
        mark = "✗" if s.regressed and s.p_holm < alpha else ("!" if s.regressed else "✓")
        lines.append(
            f"{mark} {s.skill}: {s.a_passed}/{s.queries} → {s.b_passed}/{s.queries}, "
            f"+{len(s.improved)} −{len(s.regressed)}, McNemar p {s.p_value:.3g} (Holm {s.p_holm:.3g})"
        )
        lines += [f"    regressed: {q}" for q in s.regressed[:5]]
    return lines
