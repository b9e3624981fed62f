"""One skill, several agents: the same eval set through each agent's own request, side by side.

`run_agents` runs `evaluate_skill` once per agent (`--agent` names: `claude-code` is the
anthropic backend's replay of Claude Code's request, the others replay their own CLI's request,
see docs/agents.md), with the same skill, catalog, runs, threshold and seed. An agent that cannot
run here (its CLI not installed, no key) is reported as not run, with the reason; the others go on.

The report holds, per agent, the share of queries that pass with its Wilson interval, the failing
queries, how the target was listed in that agent's captured request, and the harness; per pair
of agents, Cohen's κ over the queries' pass / fail with a bootstrap interval; and the verdict
"works in N of M agents" (works: every query passes).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from skillbench.aio import blocking
from skillbench.errors import BackendError, InputError
from skillbench.redaction import redact
from skillbench.schemas.common import Doc
from skillbench.schemas.trigger import ListingInfo, TriggerReport
from skillbench.stats import kappa_bootstrap_ci, wilson_interval
from skillbench.trigger.options import TriggerOptions

if TYPE_CHECKING:
    import pandas as pd


class AgentRun(Doc):
    """One agent's result on the eval set (or why it did not run)."""

    agent: str
    backend: str
    ran: bool
    reason: str | None = None
    harness: str | None = None
    model: str | None = None
    passed: int = 0
    total: int = 0
    pass_rate: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    failing: list[str] = Field(default_factory=list)
    errors: int = 0
    undecided: int = 0
    listing: ListingInfo | None = None
    listing_note: str | None = None


class PairAgreement(Doc):
    """Cohen's κ between two agents' per-query pass / fail."""

    a: str
    b: str
    n: int
    kappa: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    agree: int = 0


class AgentsReport(Doc):
    """The cross-agent report (`skillbench agents`)."""

    skill_name: str
    evals_file: str
    threshold: float
    runs: int
    confidence: float
    agents: list[AgentRun]
    queries: list[str]
    should_trigger: list[bool]
    passes: dict[str, list[bool]] = Field(default_factory=dict)
    agreement: list[PairAgreement] = Field(default_factory=list)
    works_in: int = 0
    ran: int = 0
    verdict: str = ""

    def __repr__(self) -> str:
        return f"AgentsReport({self.skill_name}: {self.verdict})"


def _agent_run(agent: str, backend: str, report: TriggerReport, confidence: float) -> AgentRun:
    results = report.results
    passed = sum(1 for r in results if r.passed)
    low, high = wilson_interval(passed, len(results), confidence)
    harness = report.harness.name if report.harness is not None else None
    return AgentRun(
        agent=agent,
        backend=backend,
        ran=True,
        harness=harness,
        model=report.backend.model if report.backend is not None else None,
        passed=passed,
        total=len(results),
        pass_rate=passed / len(results) if results else None,
        ci_low=low,
        ci_high=high,
        failing=[r.query for r in results if not r.passed],
        errors=sum(r.errors for r in results),
        undecided=sum(r.undecided or 0 for r in results),
        listing=report.listing,
        listing_note=report.listing.warning if report.listing is not None else None,
    )


async def run_agents(
    skill_dir: str | Path,
    evals: str | Path,
    options: TriggerOptions | None = None,
    *,
    agents: Sequence[str] | None = None,
    models: dict[str, str] | None = None,
    backend_options: dict[str, dict[str, Any]] | None = None,
    n_resamples: int = 2000,
) -> AgentsReport:
    """Run the eval set through every agent of `agents` with the same `options` (runs,
    threshold, seed, catalog, cache; its backend and model are set per agent: `models`, else
    the agent's default; `backend_options` per agent) and compare (see the module docstring).
    InputError for an unknown agent name or a repeated one, before any run. `agents` None:
    every agent (`registry.agent_names()`: Claude Code, then each agent backend)."""
    from skillbench.backends.registry import agent_backend, agent_names
    from skillbench.trigger.run import evaluate_skill

    options = options or TriggerOptions()
    if options.runs == "auto":
        raise InputError("use a fixed number of runs: every agent samples alike", path="--runs")
    if agents is None:
        agents = agent_names()
    if not agents:
        raise InputError("name at least one agent", path="--agents")
    names = [a.strip().lower() for a in agents]
    if len(set(names)) != len(names):
        raise InputError("an agent is named twice", path="--agents")
    backends = {name: agent_backend(name) for name in names}  # unknown names: exit 2 now
    models = models or {}
    reports: dict[str, TriggerReport] = {}
    rows: list[AgentRun] = []
    for name in names:
        own = options.but(
            backend=backends[name],
            model=models.get(name),
            backend_options=(backend_options or {}).get(name),
        )
        try:
            report = await evaluate_skill(skill_dir, evals, own)
        except BackendError as exc:  # this agent cannot run here: say why, run the others
            rows.append(
                AgentRun(agent=name, backend=backends[name], ran=False, reason=redact(str(exc)))
            )
            continue
        reports[name] = report
        rows.append(_agent_run(name, backends[name], report, options.confidence))
    return compare_agents(
        rows,
        reports,
        evals_file=str(evals),
        runs=int(options.runs),
        threshold=options.threshold,
        confidence=options.confidence,
        n_resamples=n_resamples,
        seed=options.seed,
    )


run_agents_sync = blocking(run_agents)


def compare_agents(
    rows: list[AgentRun],
    reports: dict[str, TriggerReport],
    *,
    evals_file: str,
    runs: int,
    threshold: float,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> AgentsReport:
    """The report from each agent's trigger report (queries matched by text)."""
    first = next(iter(reports.values()), None)
    queries = [r.query for r in first.results] if first is not None else []
    should = [r.should_trigger for r in first.results] if first is not None else []
    passes: dict[str, list[bool]] = {}
    for name, report in reports.items():
        by_query = {r.query: r.passed for r in report.results}
        passes[name] = [bool(by_query.get(q, False)) for q in queries]
    pairs: list[PairAgreement] = []
    for a, b in combinations(passes, 2):
        estimate = kappa_bootstrap_ci(
            passes[a], passes[b], confidence=confidence, n_resamples=n_resamples, seed=seed
        )
        agree = sum(1 for x, y in zip(passes[a], passes[b], strict=True) if x == y)
        pairs.append(
            PairAgreement(
                a=a,
                b=b,
                n=estimate.n,
                kappa=estimate.value,
                ci_low=estimate.low,
                ci_high=estimate.high,
                agree=agree,
            )
        )
    ran = [row for row in rows if row.ran]
    works = [row.agent for row in ran if row.total and not row.failing]
    verdict = f"works in {len(works)} of {len(ran)} agents"
    if ran:
        verdict += f" ({', '.join(works) or 'none'})"
    skipped = [row.agent for row in rows if not row.ran]
    if skipped:
        verdict += f"; not run: {', '.join(skipped)}"
    skill_name = first.skill_name if first is not None else ""
    return AgentsReport(
        skill_name=skill_name,
        evals_file=evals_file,
        threshold=threshold,
        runs=runs,
        confidence=confidence,
        agents=rows,
        queries=queries,
        should_trigger=should,
        passes=passes,
        agreement=pairs,
        works_in=len(works),
        ran=len(ran),
        verdict=verdict,
    )


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f} %"


def agents_lines(report: AgentsReport) -> list[str]:
    """What the CLI prints: the verdict, one line per agent, the failing queries, κ per pair."""
    lines = [f"{report.skill_name}: {report.verdict}"]
    for row in report.agents:
        if not row.ran:
            lines.append(f"  {row.agent}: not run: {row.reason}")
            continue
        listed = row.listing.target if row.listing is not None else "unknown"
        lines.append(
            f"  {row.agent} ({row.harness or row.backend}): {row.passed}/{row.total} queries pass"
            f" ({_pct(row.pass_rate)}, {_pct(row.ci_low)}–{_pct(row.ci_high)}); "
            f"listing: {listed}; errors {row.errors}, undecided {row.undecided}"
        )
        for query in row.failing:
            lines.append(f"    fails: {query}")
    for pair in report.agreement:
        kappa = "undefined" if pair.kappa is None else f"{pair.kappa:.2f}"
        interval = (
            f" ({pair.ci_low:.2f}–{pair.ci_high:.2f})"
            if pair.ci_low is not None and pair.ci_high is not None
            else ""
        )
        lines.append(
            f"  κ {pair.a} vs {pair.b}: {kappa}{interval}, same verdict on {pair.agree}/{pair.n}"
        )
    return lines


def agents_summary_frame(report: AgentsReport) -> pd.DataFrame:
    """One row per agent (notebooks)."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "agent": row.agent,
                "ran": row.ran,
                "passed": row.passed,
                "total": row.total,
                "pass_rate": row.pass_rate,
                "ci_low": row.ci_low,
                "ci_high": row.ci_high,
                "listing": row.listing.target if row.listing is not None else None,
                "failing": len(row.failing),
                "reason": row.reason,
            }
            for row in report.agents
        ]
    )


def agents_frame(report: AgentsReport) -> pd.DataFrame:
    """One row per query, one pass / fail column per agent that ran (notebooks)."""
    import pandas as pd

    data: dict[str, Any] = {"query": report.queries, "should_trigger": report.should_trigger}
    data.update(report.passes)
    return pd.DataFrame(data)
