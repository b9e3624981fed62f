"""The gate's document (`gate_report.json`) and its verdict.

One `GateReport` per gated skill: both sides (ref, commit, description), the paired run-level
test (regressed / improved pairs, exact McNemar p), the query-level pass/fail comparison of
`report diff`, every query's rate delta with its own exact test (Holm-adjusted), the minimum
detectable effect at the runs made, the cost and the usual report header.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from skillbench.gate.evalsource import EvalSetChange
from skillbench.gate.pairing import QueryPairs
from skillbench.gate.power import alone_clause, runs_to_flag
from skillbench.gate.scanned import ScanChange
from skillbench.schemas.common import Doc
from skillbench.schemas.cost import CostBlock

GateVerdict = Literal["regressed", "improved", "no change detected", "no base"]
QueryChange = Literal["regressed", "dropped", "unchanged", "rose", "improved", "not compared"]
"""A query's label: regressed / improved when its own test (Holm, alpha/2) is significant,
dropped / rose when its rate moved but not significantly, unchanged only when both rates are
equal, not compared when no run completed on both sides."""


class GateSide(Doc):
    """One side of the gate: where the skill came from and what it said."""

    label: Literal["base", "head"]
    ref: str | None = None
    commit: str | None = None
    dirty: bool | None = Field(default=None, description="head: the skill folder differs from HEAD")
    skill_name: str | None = None
    description: str | None = None
    passed_queries: int | None = None
    pass_rate: float | None = Field(default=None, description="passing runs / paired runs")


class GateQuery(Doc):
    """One query across both sides, over its runs completed on both."""

    query: str
    should_trigger: bool
    pairs: int
    base_rate: float | None = None
    head_rate: float | None = None
    delta: float | None = Field(default=None, description="head pass rate − base pass rate")
    regressed_runs: int
    improved_runs: int
    p_value: float
    p_holm: float
    base_pass: bool | None = None
    head_pass: bool | None = None
    change: QueryChange
    runs_needed: int | None = Field(
        default=None,
        description="dropped: runs per side with which a drop this size in this query alone "
        "would be flagged (its own exact test at alpha/2 over the number of queries, at the "
        "gate's power); None when not dropped or when even 100 runs would not",
    )

    @property
    def detail(self) -> str:
        """Why this query has its label, with its p-values (and the runs a drop would need)."""
        rates = f"{rate_text(self.base_rate)} → {rate_text(self.head_rate)}"
        tests = f"p = {self.p_value:.3g}, Holm p = {self.p_holm:.3g}"
        if self.change == "regressed":
            return f"regressed {rates}, significant on its own test ({tests})"
        if self.change == "dropped":
            need = (
                f"about {self.runs_needed} runs per side would flag a drop this size alone"
                if self.runs_needed is not None
                else "even 100 runs per side would not flag a drop this size alone"
            )
            return f"dropped {rates}, not significant alone ({tests}); {need}"
        return f"{self.change} {rates} ({tests})"


class QueryLevel(Doc):
    """The query-level pass/fail comparison (`report diff`): pass flips and their McNemar test."""

    paired: int
    base_passed: int
    head_passed: int
    regressed: int
    improved: int
    p_value: float


class GateReport(Doc):
    """`gate_report.json`: base vs head for one skill."""

    kind: Literal["trigger", "behavior"] = "trigger"
    skill_name: str
    verdict: GateVerdict
    verdict_line: str
    ok: bool | None = None
    alpha: float
    power: float
    runs: int
    runs_mode: Literal["fixed", "planned"] = "fixed"
    plan: list[str] | None = None
    seed: int = 0
    pairs: int = 0
    regressed: int = 0
    improved: int = 0
    p_value: float = 1.0
    mde: float | None = Field(
        default=None,
        description="smallest drop in every query's pass rate detected with probability "
        "`power` at these runs (None: not even a drop of 1)",
    )
    mde_line: str = ""
    query_level: QueryLevel | None = None
    base: GateSide
    head: GateSide
    queries: list[GateQuery] = Field(default_factory=list)
    cost: CostBlock | None = None
    eval_set: EvalSetChange | None = Field(
        default=None,
        description="the eval set that graded both sides (the base's by default) and what the "
        "change under test did to it",
    )
    scan: ScanChange | None = Field(
        default=None, description="`skillbench scan` findings new in head versus base"
    )
    header: dict[str, Any] | None = None
    warnings: list[str] | None = None
    notes: list[str] | None = None
    files: dict[str, str] | None = None

    @property
    def regressed_queries(self) -> list[GateQuery]:
        """Queries whose own paired test shows a drop (Holm-adjusted p < alpha / 2)."""
        return [q for q in self.queries if q.change == "regressed"]


def rate_text(value: float | None) -> str:
    """A pass rate with 2 decimals, – when there is none."""
    return "–" if value is None else f"{value:.2f}"


def query_change(
    row: QueryPairs, p_holm: float, alpha: float, *, queries: int, power: float
) -> tuple[QueryChange, int | None]:
    """A query's label (`QueryChange`) and, for a drop not significant on its own, the runs per
    side with which a drop of that size would be: the query's own exact test at the strictest
    Holm level (alpha/2 over `queries`), planned from its base rate (shrunk by half a run)."""
    if not row.pairs:
        return "not compared", None
    if row.base_passed == row.head_passed:
        return "unchanged", None
    down = row.head_passed < row.base_passed
    half = pooled_alpha(alpha)
    if p_holm < half and row.regressed != row.improved:
        return ("regressed" if down else "improved"), None
    if not down:
        return "rose", None
    rate = (row.base_passed + 0.5) / (row.pairs + 1)
    drop = (row.base_passed - row.head_passed) / row.pairs
    return "dropped", runs_to_flag(rate, drop, alpha=half / max(queries, 1), power=power)


def pooled_alpha(alpha: float) -> float:
    """The share of the gate's `alpha` spent on the pooled test (the other half goes to the
    per-query tests, Holm-adjusted): a regression found by either is a regression, and the
    union's false-alarm rate stays ≤ alpha (Bonferroni)."""
    return alpha / 2


def decide(
    regressed: int,
    improved: int,
    p_value: float,
    alpha: float,
    mde_line: str,
    *,
    dropped: int = 0,
    rose: int = 0,
    unit: tuple[str, str] = ("query", "queries"),
) -> tuple[GateVerdict, str, bool | None]:
    """The verdict: regressed (exit 1) when the pooled paired test (at alpha/2) finds more
    regressed than improved runs, or any query's own test (Holm, at alpha/2) finds a drop;
    improved for the reverse; else no change detected, with what this eval could detect."""
    half = pooled_alpha(alpha)
    counts = (
        f"{regressed} regressed vs {improved} improved paired runs, exact McNemar p = {p_value:.3g}"
    )
    pooled_down = p_value < half and regressed > improved
    pooled_up = p_value < half and improved > regressed
    if pooled_down or dropped:
        why = [f"{counts} < {half:g}"] if pooled_down else [counts]
        if dropped:
            why.append(f"{dropped} {unit[dropped != 1]} dropped on "
                       f"{'its' if dropped == 1 else 'their'} own test (Holm p < {half:g})")  # fmt: skip
        return "regressed", "REGRESSED: " + "; ".join(why), False
    if pooled_up or rose:
        why = [f"{counts} < {half:g}"] if pooled_up else [counts]
        if rose:
            why.append(f"{rose} {unit[rose != 1]} rose on {'its' if rose == 1 else 'their'} "
                       f"own test (Holm p < {half:g})")  # fmt: skip
        return "improved", "improved: " + "; ".join(why), True
    return "no change detected", f"no change detected ({counts}); {mde_line}", None


def mde_sentence(
    mde: float | None,
    runs: int,
    queries: int,
    power: float,
    unit: tuple[str, str] = ("query", "queries"),
    *,
    alpha: float | None = None,
) -> str:
    """ "this eval can detect a change of ≥ X at this n", never omitted; with `alpha` (the
    level of each query's own test), also when no single query can be flagged alone."""
    where = f"{runs} runs × {queries} {unit[1]}"
    alone = "" if alpha is None or not queries else alone_clause(runs, queries, alpha, unit)
    if mde is None:
        return (
            f"this eval cannot detect even a drop of 1 in every {unit[0]}'s pass rate at "
            f"{where}{alone}"
        )
    return (
        f"this eval can detect a change of ≥ {mde:.3g} in every {unit[0]}'s pass rate at {where} "
        f"(power {power:g}){alone}"
    )
