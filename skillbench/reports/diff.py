"""Did my change help? Two trigger (or benchmark) reports compared item by item.

Trigger reports are paired by query (text and expectation); benchmark reports by (case,
expectation) of their candidate configuration, an expectation passing when it passed in at
least half of its graded runs. The paired test is the exact two-sided McNemar test on the items
whose outcome changed (`improved`: fails in A, passes in B; `regressed`: the reverse). Items
present in only one report are listed and left out of the test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.io import read_json
from skillbench.reports.header import HeaderInputs, ReportHeader, Verdict, make_header
from skillbench.schemas.skill_creator import SCBenchmark
from skillbench.schemas.trigger import CatalogInfo, TriggerReport
from skillbench.stats import mcnemar_exact

ALPHA = 0.05
REPORT_FILES = ("trigger_report.json", "benchmark.json")
Change = Literal["improved", "regressed", "still passes", "still fails", "only in A", "only in B"]


@dataclass(frozen=True)
class Item:
    """One compared unit: a query (trigger) or an expectation of a case (benchmark)."""

    key: str
    label: str
    passed: bool
    rate: float | None


@dataclass(frozen=True)
class Side:
    """One report: what it is, where it came from, its items."""

    kind: Literal["trigger", "benchmark"]
    path: Path
    name: str
    items: dict[str, Item]
    eval_sha256: str | None = None
    backend: str | None = None
    model: str | None = None
    description: str | None = None
    catalog: CatalogInfo | None = None
    runs: str | None = None
    harness: str | None = None


@dataclass
class ItemChange:
    """One item in both (or one) reports."""

    item: str
    change: Change
    a_pass: bool | None
    b_pass: bool | None
    a_rate: float | None
    b_rate: float | None


@dataclass
class ReportDiff:
    """The comparison: counts, the exact McNemar p-value, the changed items, the verdict."""

    kind: str
    a: Side
    b: Side
    changes: list[ItemChange]
    improved: int
    regressed: int
    a_passed: int
    b_passed: int
    paired: int
    p_value: float
    alpha: float
    verdict: Verdict
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def report_file(path: str | Path) -> Path:
    """A report JSON: `path` itself, or the trigger/benchmark JSON inside a report folder."""
    source = Path(path)
    if source.is_dir():
        for name in REPORT_FILES:
            if (source / name).is_file():
                return source / name
        raise InputError(
            f"no {' or '.join(REPORT_FILES)} in this folder", path=source, rule="report-file"
        )
    if not source.exists():
        raise InputError("file not found", path=source)
    return source


def _trigger_side(path: Path, report: TriggerReport | None = None) -> Side:
    if report is None:
        report = read_model(path, TriggerReport, what="invalid trigger report")
    items = {
        f"{r.should_trigger}|{r.query}": Item(
            key=f"{r.should_trigger}|{r.query}",
            label=f"[{'+' if r.should_trigger else '-'}] {r.query}",
            passed=r.passed,
            rate=r.trigger_rate,
        )
        for r in report.results
        if r.runs > 0  # unresolved queries have no outcome to compare
    }
    config, backend = report.config, report.backend
    harness = report.harness.name if report.harness else None
    if harness is None and backend is not None:
        harness = backend.versions.get("harness")
    return Side(
        "trigger",
        path,
        report.skill_name,
        items,
        eval_sha256=config.evals_sha256 if config else None,
        backend=backend.name if backend else None,
        model=backend.model if backend else None,
        description=report.description,
        catalog=report.catalog,
        runs=str(config.runs) if config else None,
        harness=harness,
    )


def _benchmark_side(path: Path, doc: SCBenchmark | None = None) -> Side:
    if doc is None:
        doc = read_model(path, SCBenchmark, what="invalid benchmark")
    extra = doc.model_extra or {}
    candidate = (extra.get("comparison") or {}).get("candidate")
    items: dict[str, Item] = {}
    for row in extra.get("expectation_matrix", []):
        cell: dict[str, Any] = (row.get("results") or {}).get(candidate) or {}
        graded = int(cell.get("graded") or 0)
        if not graded:
            continue
        rate = int(cell.get("passed") or 0) / graded
        key = f"{row['case_id']}|{row['expectation']}"
        items[key] = Item(key, f"{row['case_id']}: {row['expectation']}", rate >= 0.5, rate)
    return Side(
        "benchmark",
        path,
        f"{doc.metadata.skill_name} ({candidate})",
        items,
        model=doc.metadata.executor_model,
        runs=str(doc.metadata.runs_per_configuration),
    )


def load_side(path: str | Path) -> Side:
    """Read one report (a trigger report or a benchmark, by content)."""
    source = report_file(path)
    data = read_json(source)
    if isinstance(data, dict) and "results" in data and "summary" in data:
        return _trigger_side(source)
    if isinstance(data, dict) and "run_summary" in data:
        return _benchmark_side(source)
    raise InputError(
        "neither a trigger report nor a benchmark (report diff compares those)",
        path=source,
        rule="report-kind",
    )


def _change(a: Item | None, b: Item | None) -> Change:
    if a is None:
        return "only in B"
    if b is None:
        return "only in A"
    if a.passed != b.passed:
        return "improved" if b.passed else "regressed"
    return "still passes" if a.passed else "still fails"


_ORDER: dict[str, int] = {
    "regressed": 0,
    "improved": 1,
    "still fails": 2,
    "only in A": 3,
    "only in B": 4,
    "still passes": 5,
}


def diff_sides(a: Side, b: Side, *, alpha: float = ALPHA) -> ReportDiff:
    """Compare two loaded reports (same kind) item by item."""
    if a.kind != b.kind:
        raise InputError(f"cannot compare a {a.kind} report with a {b.kind} report", path=b.path)
    keys = list(dict.fromkeys([*a.items, *b.items]))
    changes = []
    for key in keys:
        ia, ib = a.items.get(key), b.items.get(key)
        changes.append(
            ItemChange(
                item=(ia or ib).label,  # type: ignore[union-attr]
                change=_change(ia, ib),
                a_pass=None if ia is None else ia.passed,
                b_pass=None if ib is None else ib.passed,
                a_rate=None if ia is None else ia.rate,
                b_rate=None if ib is None else ib.rate,
            )
        )
    changes.sort(key=lambda c: _ORDER[c.change])
    improved = sum(1 for c in changes if c.change == "improved")
    regressed = sum(1 for c in changes if c.change == "regressed")
    paired = [c for c in changes if c.a_pass is not None and c.b_pass is not None]
    a_passed = sum(1 for c in paired if c.a_pass)
    b_passed = sum(1 for c in paired if c.b_pass)
    p = mcnemar_exact(regressed, improved)
    notes = _notes(a, b, changes)
    verdict = _verdict(a.kind, len(paired), a_passed, b_passed, improved, regressed, p, alpha)
    return ReportDiff(
        a.kind, a, b, changes, improved, regressed, a_passed, b_passed, len(paired), p, alpha,
        verdict, notes, setting_warnings(a, b),
    )  # fmt: skip


def diff_reports(a: str | Path, b: str | Path, *, alpha: float = ALPHA) -> ReportDiff:
    """Load and compare two reports (files or report folders)."""
    if not 0.0 < alpha < 1.0:
        raise InputError("must be between 0 and 1 (exclusive)", field="alpha")
    return diff_sides(load_side(a), load_side(b), alpha=alpha)


def diff_documents(
    a: TriggerReport | SCBenchmark,
    b: TriggerReport | SCBenchmark,
    *,
    labels: tuple[str, str] = ("A", "B"),
    alpha: float = ALPHA,
) -> ReportDiff:
    """Compare two reports already in memory (`labels` stand in for their paths)."""

    def side(doc: TriggerReport | SCBenchmark, label: str) -> Side:
        if isinstance(doc, TriggerReport):
            return _trigger_side(Path(label), doc)
        return _benchmark_side(Path(label), doc)

    return diff_sides(side(a, labels[0]), side(b, labels[1]), alpha=alpha)


def _catalog(side: Side) -> str:
    from skillbench.reports.header import catalog_text

    return "not recorded" if side.catalog is None else catalog_text(side.catalog)


def setting_warnings(a: Side, b: Side) -> list[str]:
    """What differs between how A and B were measured (catalog, runs, harness, backend/model,
    eval set): a difference in outcome may come from these rather than from the change."""
    warnings = []
    if a.eval_sha256 and b.eval_sha256 and a.eval_sha256 != b.eval_sha256:
        warnings.append("the two reports used different eval sets (sha256 differs)")
    if (a.catalog is None) != (b.catalog is None) or (
        a.catalog is not None and b.catalog is not None and a.catalog.sha256 != b.catalog.sha256
    ):
        warnings.append(f"the catalogs differ: A {_catalog(a)}; B {_catalog(b)}")
    if a.runs != b.runs:
        warnings.append(f"runs differ: A {a.runs or 'not recorded'}, B {b.runs or 'not recorded'}")
    if a.harness != b.harness:
        warnings.append(f"harness differs: A {a.harness}, B {b.harness}")
    if (a.backend, a.model) != (b.backend, b.model):
        warnings.append(f"backend/model differ: A {a.backend}/{a.model}, B {b.backend}/{b.model}")
    return warnings


def _notes(a: Side, b: Side, changes: list[ItemChange]) -> list[str]:
    notes = []
    only = sum(1 for c in changes if c.change in ("only in A", "only in B"))
    if only:
        notes.append(f"{only} item(s) appear in one report only: left out of the test")
    return notes


def _verdict(
    kind: str, n: int, a_passed: int, b_passed: int, improved: int, regressed: int, p: float,
    alpha: float,
) -> Verdict:  # fmt: skip
    unit = "queries" if kind == "trigger" else "expectations"
    if n == 0:
        return Verdict(ok=None, line=f"no {unit} in common: nothing to compare")
    counts = (
        f"B passes {b_passed}/{n} {unit} vs A {a_passed}/{n}; {improved} improved, "
        f"{regressed} regressed; exact McNemar p = {p:.3g}"
    )
    if improved == regressed == 0:
        return Verdict(ok=None, line=f"no {unit[:-1] if unit.endswith('s') else unit} changed "
                       f"outcome ({a_passed}/{n} pass in both)")  # fmt: skip
    if p < alpha:
        better = improved > regressed
        word = "better" if better else "worse"
        return Verdict(ok=better, line=f"B is {word} than A: {counts} < {alpha:g}")
    return Verdict(ok=None, line=f"no significant difference: {counts} ≥ {alpha:g}")


def diff_header(diff: ReportDiff) -> ReportHeader:
    """The header of a report diff."""
    failures = [f"regressed: {c.item}" for c in diff.changes if c.change == "regressed"]
    verdict = Verdict(ok=diff.verdict.ok, line=diff.verdict.line, failures=failures)
    return make_header(
        f"Report diff ({diff.kind}): A = {diff.a.path}, B = {diff.b.path}",
        verdict,
        HeaderInputs(
            skill=diff.a.name if diff.a.name == diff.b.name else f"{diff.a.name} vs {diff.b.name}",
            backend=diff.b.backend,
            model=diff.b.model,
            harness=diff.b.harness,
            catalog=diff.b.catalog,
            runs=diff.b.runs if diff.a.runs == diff.b.runs else f"A {diff.a.runs}, B {diff.b.runs}",
        ),
    )


def diff_rows(diff: ReportDiff, *, changed_only: bool = False) -> list[dict[str, Any]]:
    """The item table as rows (changed items first)."""
    return [
        {
            "item": c.item,
            "change": c.change,
            "A pass": c.a_pass,
            "B pass": c.b_pass,
            "A rate": c.a_rate,
            "B rate": c.b_rate,
        }
        for c in diff.changes
        if not changed_only or c.change in ("improved", "regressed", "only in A", "only in B")
    ]
