"""How far can one trigger backend stand in for another? One eval set through two backends.

The question behind it: replay (the `anthropic` backend's default harness: the CLI's own request
sent through the SDK) is cheap, the `claude-code` backend (the real CLI) is the reference; does
replay decide the same queries alike?
`run_agreement` runs the same skill, eval set, catalog, runs and seed through backends A and B
(by name: any two the registry knows), and `compare_reports` reports:

- per query: each backend's rate and verdict (`trigger` when the rate reaches the threshold,
  `no` below it, `undecided` when no run completed), whether the verdicts agree, and the run-level
  agreement rate_a·rate_b + (1 − rate_a)(1 − rate_b);
- overall: the share of queries decided by both whose verdicts agree (Wilson interval), and
  Cohen's κ over them with a percentile bootstrap interval over queries;
- the undecided share of each backend: runs that decided nothing (errors, and runs a backend
  marks undecided, e.g. "another tool first"), with a Wilson interval, and queries left
  undecided.

Offline the pair defaults to two proxies (`local` and `lexical`); with a key and a CLI the
experiment users run once is the reference pair the specs declare (`registry.reference_pair`:
`anthropic` (replay) against `claude-code`); the pair is wired by backend name only, so any two
registered backends compare the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.aio import blocking
from skillbench.backends.claude_cli.tested import cli_warnings
from skillbench.errors import InputError
from skillbench.schemas.agreement import AgreementReport, QueryAgreement, UndecidedShare, Verdict
from skillbench.schemas.trigger import Interval, TriggerReport, TriggerResult, expected_pass
from skillbench.stats import Estimate, kappa_bootstrap_ci, proportion
from skillbench.timestamps import utc_timestamp
from skillbench.trigger.options import TriggerOptions
from skillbench.version import __version__

if TYPE_CHECKING:
    import pandas as pd

OFFLINE_PAIR = ("local", "lexical")
"""The default pair: two offline proxies (no key, no network)."""


ProgressCallback = Callable[[int, int], None]


def undecided_runs(result: TriggerResult) -> int:
    """Runs of a query that decided nothing: errors, plus runs a backend counts as undecided
    (a field some backends add, e.g. replay's "another tool first")."""
    extra = getattr(result, "undecided", None)
    return int(result.errors) + (int(extra) if isinstance(extra, int) else 0)


def verdict(result: TriggerResult, threshold: float) -> Verdict:
    """`trigger` when the rate reaches the threshold, `no` below it, `undecided` without a
    completed run (the seed-001 pass rule read as a decision)."""
    if result.runs == 0:
        return "undecided"
    return "trigger" if expected_pass(True, result.trigger_rate, threshold, result.runs) else "no"


def _interval(estimate: Estimate) -> Interval:
    return Interval(
        value=estimate.value,
        low=estimate.low,
        high=estimate.high,
        n=estimate.n,
        method=estimate.method,
    )


def _undecided_share(report: TriggerReport, confidence: float) -> UndecidedShare:
    undecided = sum(undecided_runs(r) for r in report.results)
    total = sum(r.runs for r in report.results) + undecided
    return UndecidedShare(
        runs=_interval(proportion(undecided, total, confidence)),
        queries=sum(1 for r in report.results if r.runs == 0),
    )


def compare_reports(
    a: TriggerReport,
    b: TriggerReport,
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
    evals_file: str | Path | None = None,
) -> AgreementReport:
    """The agreement of two trigger reports on the same queries (matched by text)."""
    if a.config is not None and b.config is not None and a.config.threshold != b.config.threshold:
        raise InputError("the two reports use different thresholds", field="threshold")
    threshold = a.summary.threshold
    by_text = {r.query: r for r in b.results}
    missing = [r.query for r in a.results if r.query not in by_text]
    if missing or len(by_text) != len(a.results):
        raise InputError(
            "the two reports do not hold the same queries"
            + (f" ({missing[0]!r})" if missing else ""),
            field="results",
        )
    rows: list[QueryAgreement] = []
    for ra in a.results:
        rb = by_text[ra.query]
        va, vb = verdict(ra, threshold), verdict(rb, threshold)
        decided = "undecided" not in (va, vb)
        rate_a = ra.trigger_rate if ra.runs else None
        rate_b = rb.trigger_rate if rb.runs else None
        rows.append(
            QueryAgreement(
                query=ra.query,
                should_trigger=ra.should_trigger,
                family=ra.family,
                rate_a=rate_a,
                rate_b=rate_b,
                runs_a=ra.runs,
                runs_b=rb.runs,
                undecided_a=undecided_runs(ra),
                undecided_b=undecided_runs(rb),
                verdict_a=va,
                verdict_b=vb,
                agree=(va == vb) if decided else None,
                run_agreement=(
                    rate_a * rate_b + (1 - rate_a) * (1 - rate_b)
                    if rate_a is not None and rate_b is not None
                    else None
                ),
            )
        )
    compared = [row for row in rows if row.agree is not None]
    agreed = sum(1 for row in compared if row.agree)
    kappa = kappa_bootstrap_ci(
        [row.verdict_a == "trigger" for row in compared],
        [row.verdict_b == "trigger" for row in compared],
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
    )
    run_level = [row.run_agreement for row in compared if row.run_agreement is not None]
    assert a.backend is not None and b.backend is not None
    report = AgreementReport(
        skill_name=a.skill_name,
        description=a.description,
        backend_a=a.backend,
        backend_b=b.backend,
        threshold=threshold,
        confidence=confidence,
        runs=a.config.runs if a.config is not None else 0,
        seed=a.config.seed if a.config is not None else 0,
        evals_file=None if evals_file is None else str(evals_file),
        queries=rows,
        compared=len(compared),
        agreement=_interval(proportion(agreed, len(compared), confidence)),
        kappa=_interval(kappa),
        run_agreement=sum(run_level) / len(run_level) if run_level else None,
        undecided_a=_undecided_share(a, confidence),
        undecided_b=_undecided_share(b, confidence),
        created_at=utc_timestamp(),
        skillbench_version=__version__,
    )
    warned = [*cli_warnings(a.backend.versions), *cli_warnings(b.backend.versions)]
    report.warnings = list(dict.fromkeys(warned)) or None
    report.notes = agreement_notes(report) or None
    return report


def agreement_notes(report: AgreementReport) -> list[str]:
    """What a reader must know before trusting the figures."""
    notes: list[str] = []
    a, b = report.backend_a, report.backend_b
    if a.is_proxy or b.is_proxy:
        from skillbench.backends.registry import reference_pair

        proxies = [x.name for x in (a, b) if x.is_proxy]
        stand_in, reference = reference_pair()
        notes.append(
            f"{' and '.join(proxies)} {'is a proxy' if len(proxies) == 1 else 'are proxies'}, not "
            f"Claude: this run demonstrates the method; with a key, compare `{stand_in}` (replay) "
            f"and `{reference}` (`skillbench agreement SKILL --evals FILE`)."
        )
    if report.compared == 0:
        notes.append("no query was decided by both backends: agreement and κ are undefined.")
    elif report.kappa.value is None:
        notes.append(
            "κ is undefined: both backends gave one and the same verdict to every compared "
            "query (chance agreement is 1); the raw agreement still holds."
        )
    if report.compared and report.compared < 20:
        notes.append(
            f"only {report.compared} queries compared: the κ interval is wide; a larger eval set "
            "narrows it."
        )
    return notes


@dataclass(frozen=True, kw_only=True)
class AgreementOptions:
    """The agreement experiment: the trigger options both sides share (runs, seed, catalog,
    threshold, …; `trigger.model` for both unless `model_a`/`model_b`), and what differs per
    side. `trigger.runs` must be a fixed number: both backends sample every query alike."""

    trigger: TriggerOptions = field(default_factory=TriggerOptions)
    backend_a: str = OFFLINE_PAIR[0]
    backend_b: str = OFFLINE_PAIR[1]
    model_a: str | None = None
    model_b: str | None = None
    backend_options_a: Mapping[str, Any] | None = None
    backend_options_b: Mapping[str, Any] | None = None
    n_resamples: int = 2000
    """Bootstrap resamples of the κ interval."""

    def side(self, which: str) -> TriggerOptions:
        """The trigger options of side `"a"` or `"b"` (its backend, model and options);
        `trigger.as_user` only on a side whose backend captures a request (the replay)."""
        from skillbench.backends.registry import backend_spec

        backend, model, extra = (
            (self.backend_a, self.model_a, self.backend_options_a)
            if which == "a"
            else (self.backend_b, self.model_b, self.backend_options_b)
        )
        captures = backend_spec(backend).project_harness is not None
        return self.trigger.but(
            backend=backend,
            model=model or self.trigger.model,
            backend_options={**(self.trigger.backend_options or {}), **(extra or {})} or None,
            as_user=self.trigger.as_user if captures else None,
        )


async def run_agreement(
    skill_dir: str | Path,
    evals: str | Path,
    options: AgreementOptions | None = None,
    *,
    progress: ProgressCallback | None = None,
) -> AgreementReport:
    """Run one eval set through backends A and B (same skill, catalog, runs, seed) and compare."""
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.trigger.run import evaluate_skill

    options = options or AgreementOptions()
    options = replace(
        options,
        backend_a=resolve_backend_name(options.backend_a),
        backend_b=resolve_backend_name(options.backend_b),
    )
    if options.trigger.runs == "auto":
        raise InputError(
            "use a fixed number of runs: both backends must sample every query alike",
            path="--runs",
        )
    done = {"a": 0, "b": 0}
    planned = {"a": 0, "b": 0}

    def tracker(side: str) -> ProgressCallback:
        def update(finished: int, total: int) -> None:
            done[side], planned[side] = finished, total
            if progress is not None:
                other = "b" if side == "a" else "a"
                progress(sum(done.values()), planned[side] + max(planned[other], total))

        return update

    reports = [
        await evaluate_skill(skill_dir, evals, options.side(side), progress=tracker(side))
        for side in ("a", "b")
    ]
    return compare_reports(
        reports[0],
        reports[1],
        confidence=options.trigger.confidence,
        n_resamples=options.n_resamples,
        seed=options.trigger.seed,
        evals_file=evals,
    )


run_agreement_sync = blocking(run_agreement)


def agreement_lines(report: AgreementReport) -> list[str]:
    """Plain-text summary for the CLI and the notebook."""

    def fmt(iv: Interval) -> str:
        if iv.value is None:
            return f"undefined (n={iv.n})"
        low = "–" if iv.low is None else f"{iv.low:.3f}"
        high = "–" if iv.high is None else f"{iv.high:.3f}"
        return f"{iv.value:.3f}  [{low}, {high}] ({iv.method}, n={iv.n})"

    def who(info: Any) -> str:
        return info.name + (f" ({info.model})" if info.model else "")

    lines = [
        f"A = {who(report.backend_a)}, B = {who(report.backend_b)}; "
        f"{len(report.queries)} queries, {report.compared} decided by both",
        f"agreement: {fmt(report.agreement)}",
        f"Cohen's κ: {fmt(report.kappa)}",
    ]
    if report.run_agreement is not None:
        lines.append(f"run-level agreement (mean over queries): {report.run_agreement:.3f}")
    for label, share in (("A", report.undecided_a), ("B", report.undecided_b)):
        lines.append(
            f"undecided runs {label}: {fmt(share.runs)}; undecided queries {label}: {share.queries}"
        )
    lines.extend(f"WARNING: {warning}" for warning in report.warnings or [])
    lines.extend(f"note: {note}" for note in report.notes or [])
    return lines


def agreement_frame(report: AgreementReport) -> pd.DataFrame:
    """One row per query: both rates and verdicts, agreement, undecided runs."""
    import pandas as pd

    columns = [
        "query",
        "should_trigger",
        "rate_a",
        "rate_b",
        "verdict_a",
        "verdict_b",
        "agree",
        "run_agreement",
        "undecided_a",
        "undecided_b",
    ]
    rows = [{c: getattr(q, c) for c in columns} for q in report.queries]
    return pd.DataFrame(rows, columns=columns)


def agreement_summary_frame(report: AgreementReport) -> pd.DataFrame:
    """The overall figures with their intervals, one row each."""
    import pandas as pd

    rows = [
        ("agreement", report.agreement),
        ("Cohen's kappa", report.kappa),
        ("undecided runs A", report.undecided_a.runs),
        ("undecided runs B", report.undecided_b.runs),
    ]
    return pd.DataFrame(
        [
            {"figure": name, "value": iv.value, "low": iv.low, "high": iv.high, "n": iv.n}
            for name, iv in rows
        ],
        columns=["figure", "value", "low", "high", "n"],
    )
