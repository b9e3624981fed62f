"""The trigger eval's one-line verdict and report header: failures named first."""

from __future__ import annotations

from pathlib import Path

from skillbench.reports.header import HeaderInputs, ReportHeader, Verdict, make_header
from skillbench.schemas.trigger import TriggerReport, TriggerResult


def _quoted(results: list[TriggerResult], limit: int = 2) -> str:
    shown = ", ".join(
        repr(r.query[:40] + ("…" if len(r.query) > 40 else "")) for r in results[:limit]
    )
    more = len(results) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _named(results: list[TriggerResult]) -> str:
    """': 'a', 'b'' for one or two queries; more are listed under the verdict, not in it."""
    return f": {_quoted(results)}" if len(results) <= 2 else ""


def failure_line(result: TriggerResult) -> str:
    """One failing query: what was expected and what happened."""
    if result.unresolved or result.runs == 0:
        return f"unresolved (every run errored): {result.query}"
    expect = "should trigger" if result.should_trigger else "should not trigger"
    return f"{expect}, fired {result.triggers}/{result.runs}: {result.query}"


def trigger_verdict(report: TriggerReport) -> Verdict:
    """ "12 of 14 queries pass; 2 should-trigger queries fail: 'a', 'b'" (unresolved apart)."""
    results = report.results
    total = len(results)
    passed = sum(1 for r in results if r.passed)
    unresolved = [r for r in results if r.unresolved or r.runs == 0]
    missed = [r for r in results if r.should_trigger and not r.passed and r not in unresolved]
    false = [r for r in results if not r.should_trigger and not r.passed and r not in unresolved]
    if total == 0:
        return Verdict(ok=None, line="no queries were evaluated")
    if passed == total:
        return Verdict(ok=True, line=f"all {total} queries pass")
    parts = [f"{passed} of {total} queries pass"]
    if missed:
        noun = "query fails" if len(missed) == 1 else "queries fail"
        parts.append(f"{len(missed)} should-trigger {noun}{_named(missed)}")
    if false:
        noun = "query fires" if len(false) == 1 else "queries fire"
        parts.append(f"{len(false)} should-not-trigger {noun}{_named(false)}")
    if unresolved:
        parts.append(f"{len(unresolved)} unresolved (every run errored)")
    failures = [failure_line(r) for r in (*missed, *false, *unresolved)]
    return Verdict(ok=False, line="; ".join(parts), failures=failures)


def _harness_label(backend: str) -> str | None:
    """How the backend's spec names the way it judges (None: not installed here, or silent)."""
    from skillbench.backends.registry import known_spec

    spec = known_spec(backend)
    return spec.harness_label if spec is not None else None


def harness_of(report: TriggerReport) -> tuple[str | None, str | None]:
    """(harness, CLI version) of the report's backend, as far as it says."""
    backend = report.backend
    if backend is None:
        return None, None
    versions = backend.versions
    harness = versions.get("harness") or _harness_label(backend.name)
    return harness, versions.get("claude_code") or versions.get("cli_version")


def model_of(report: TriggerReport) -> str | None:
    """The model asked for, and the one the Claude Code CLI reported when it differs (or when
    none was asked for: the CLI's default)."""
    backend = report.backend
    if backend is None:
        return None
    reported = backend.versions.get("claude_code_model")
    if not reported or reported == backend.model:
        return backend.model
    if backend.model is None:
        return f"{reported} (reported by the CLI)"
    return f"{backend.model} (the CLI reported {reported})"


def trigger_header(
    report: TriggerReport,
    *,
    eval_set: str | Path | None = None,
    title: str = "Trigger eval",
    recorded: str | None = None,
    listing: str | None = None,
    skill_dir: str | Path | None = None,
) -> ReportHeader:
    """The header of a trigger report (eval set from the report's config unless given; the skill
    repository's commit from `skill_dir`, else from the header the report already holds)."""
    config = report.config
    backend = report.backend
    harness, cli_version = harness_of(report)
    from skillbench.trigger.listing import harness_phrase, listing_phrase

    harness = harness_phrase(report) or harness
    if listing is None and report.listing is not None:
        listing = listing_phrase(report.listing)
    runs = None
    if config is not None:
        runs = f"{config.runs} per query" + (
            f" (adaptive, up to {config.max_runs})" if config.runs == "auto" else ""
        )
    source = eval_set if eval_set is not None else (config.evals_file if config else None)
    header = make_header(
        title,
        trigger_verdict(report),
        HeaderInputs(
            skill=report.skill_name,
            eval_set=source,
            backend=backend.name if backend else None,
            harness=harness,
            model=model_of(report),
            cli_version=cli_version,
            listing=listing,
            runs=runs,
            recorded=recorded,
            cost=report.cost,
            catalog=report.catalog,
            skill_dir=skill_dir,
            proxy=backend.notes or "offline proxy, not Claude"
            if backend and backend.is_proxy
            else None,
        ),
    )
    if header.eval_set_sha256 is None and config is not None and config.evals_sha256:
        header = header.model_copy(update={"eval_set_sha256": config.evals_sha256})
    stored = report.header or {}
    if skill_dir is None and stored.get("skill_commit"):
        update = {"skill_commit": stored["skill_commit"], "skill_dirty": stored.get("skill_dirty")}
        header = header.model_copy(update=update)
    return header
