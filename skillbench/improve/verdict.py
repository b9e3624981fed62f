"""The improvement loop's one-line verdict and report header: kept or adopted, and the honest
test-split figures beside it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillbench.improve.overfit import Labelled, as_labelled, chosen_iteration, verdict
from skillbench.reports.header import HeaderInputs, ReportHeader, Verdict, make_header
from skillbench.schemas.loop import LoopIteration, LoopSettings, LoopSummary
from skillbench.schemas.trigger import CatalogInfo

DEMO_PROPOSER = (
    "DEMO: the local backend's proposer is an offline word-mining heuristic, not a model; its "
    "candidates demonstrate the method, not good descriptions"
)


def _frac(passed: int | None, total: int | None) -> str:
    return f"{passed or 0}/{total or 0}"


def _test(it: LoopIteration) -> str:
    return _frac(it.test_passed, it.test_total)


def improve_verdict(summary: LoopSummary) -> Verdict:
    """ "kept the original: …" or "adopted round 3: …", with test before → after."""
    original = summary.iterations[0]
    chosen = chosen_iteration(summary)
    best = summary.best_iteration or original
    adoption = summary.adoption
    why = ""
    if adoption is not None and adoption.p_value is not None:
        sign = "<" if adoption.adopted else "≥"
        why = (
            f" ({adoption.improved} selection quer{'y' if adoption.improved == 1 else 'ies'} "
            f"improved, {adoption.regressed} regressed; one-sided McNemar p = "
            f"{adoption.p_value:.3g} {sign} {adoption.alpha:g})"
        )
    failures = [
        f"{'should trigger' if r.should_trigger else 'should not trigger'}: {r.query}"
        for r in chosen.results or []
        if r.split == "test" and not r.passed
    ]
    test = f"test {_test(original)} → {_test(chosen)}"
    if chosen.round == original.round:
        if best.round == original.round:
            line = f"kept the original: no round beat it on selection; test {_test(original)}"
        else:
            line = (
                f"kept the original: round {best.round} led on selection only by noise{why}; "
                f"test {_test(original)}"
            )
        return Verdict(ok=None, line=line, failures=failures)
    worse = (chosen.test_passed or 0) < (original.test_passed or 0)
    line = f"adopted round {chosen.round}{why}; {test}"
    if worse:
        line += ": worse on the held-out test queries"
    return Verdict(ok=not worse, line=line, failures=failures)


def improve_header(summary: LoopSummary, *, eval_set: str | Path | None = None) -> ReportHeader:
    """The improvement report's header."""
    settings = summary.settings
    heuristic = bool(settings and settings.proposer_is_heuristic)
    return make_header(
        "Improve a skill description",
        improve_verdict(summary),
        HeaderInputs(
            skill=summary.skill_name,
            eval_set=eval_set or (settings.evals_file if settings else None),
            backend=settings.backend if settings else None,
            harness=loop_harness(settings),
            model=settings.model if settings else None,
            cli_version=settings.cli_version if settings else None,
            runs=f"{settings.runs} per query, {len(summary.iterations)} round(s)"
            if settings
            else None,
            proxy=DEMO_PROPOSER if heuristic else None,
            cost=summary.cost,
            catalog=loop_catalog(summary),
        ),
    )


def loop_harness(settings: LoopSettings | None) -> str | None:
    """The trigger evals' harness (with the CLI mode) and the proposer, as one header row."""
    if settings is None:
        return None
    parts = [settings.trigger_harness, settings.proposer and f"proposer {settings.proposer}"]
    return "; ".join(p for p in parts if p) or None


def loop_catalog(summary: LoopSummary) -> CatalogInfo | None:
    """The loop's catalog as the header's catalog row (None for a summary written before the
    loop recorded its catalog's source)."""
    settings = summary.settings
    if settings is None or settings.catalog_source is None:
        return None
    return CatalogInfo(
        source=settings.catalog_source,
        skills=list(settings.catalog or []),
        sha256=settings.catalog_sha256,
    )


def overfitting_verdict(summaries: Sequence[LoopSummary | Labelled]) -> Verdict:
    """One clause per loop: the chosen round and what the paired test on test queries says."""
    labelled = as_labelled(summaries)
    if not labelled:
        return Verdict(ok=None, line="no loop to analyse")
    parts = []
    for label, summary in labelled:
        v = verdict(summary, label)
        parts.append(f"{label}: round {v.chosen_round}, test {v.chosen_passed}/{v.n_test}")
    return Verdict(ok=None, line="; ".join(parts))


def overfitting_header(summaries: Sequence[LoopSummary | Labelled]) -> ReportHeader:
    """The overfitting analysis' header."""
    labelled = as_labelled(summaries)
    first = labelled[0][1] if labelled else None
    settings = first.settings if first else None
    return make_header(
        "Overfitting analysis of improvement loops",
        overfitting_verdict(summaries),
        HeaderInputs(
            skill=", ".join(s.skill_name for _, s in labelled) or None,
            backend=settings.backend if settings else None,
            model=settings.model if settings else None,
            runs=f"{settings.runs} per query" if settings else None,
            proxy=DEMO_PROPOSER if settings and settings.proposer_is_heuristic else None,
            catalog=loop_catalog(first) if first else None,
        ),
    )
