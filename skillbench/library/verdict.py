"""The library report's verdict and header: the worst confused pairs and the hidden skills
first, then the library (path, sha256, skill count), model, harness, budget, runs and cost."""

from __future__ import annotations

from skillbench.library.document import LibraryReport, SkillRouting
from skillbench.library.listing import hidden_line
from skillbench.reports.header import HeaderInputs, ReportHeader, Verdict, make_header
from skillbench.schemas.trigger import CatalogInfo
from skillbench.trigger.listing import harness_line

MAX_PAIRS_IN_VERDICT = 3
MAX_SKILLS_IN_VERDICT = 5
WORRYING_RATE = 0.1
"""A pair is named in the verdict when at least this share of its queries crossed over."""


def pair_line(report: LibraryReport, index: int) -> str:
    """`a ↔ b: 2 of 6 queries crossed (33%, 10–70%; 3 of 18 runs)`."""
    p = report.pairs[index]
    low, high = p.rate.low or 0.0, p.rate.high or 0.0
    return (
        f"{p.a} ↔ {p.b}: {p.queries} of {p.rate.n} queries crossed "
        f"({(p.rate.value or 0):.0%}, {low:.0%}–{high:.0%}; {p.a_to_b + p.b_to_a} of {p.runs} runs)"
    )


def own_set_line(skill: SkillRouting) -> str:
    """`xlsx: 2 of 3 queries fail (recall 0.33); e.g. 'open the sheet'`."""
    total = (skill.passed or 0) + (skill.failed or 0)
    recall = "–" if skill.recall.value is None else f"{skill.recall.value:.2f}"
    example = f"; e.g. {skill.failing[0][:60]!r}" if skill.failing else ""
    return f"{skill.name}: {skill.failed} of {total} queries fail (recall {recall}){example}"


def library_verdict(report: LibraryReport) -> Verdict:
    """One line: the worst pairs, the hidden skills and the skills failing their own eval set
    (`trigger`'s rule, so a tested skill the library routes away from fails here as it would
    there); the failures list every such pair, hidden skill and failing skill."""
    worst = [i for i, p in enumerate(report.pairs) if (p.rate.value or 0.0) >= WORRYING_RATE][
        :MAX_PAIRS_IN_VERDICT
    ]
    failures = [f"confused: {pair_line(report, i)}" for i in worst]
    hidden = hidden_line(report.listing) if report.listing is not None else None
    if hidden:
        failures.append(f"listing: {hidden}")
    failing = [s for s in report.per_skill if s.failed]
    failures += [f"fails its own eval set: {own_set_line(s)}" for s in failing]
    if not report.queries:
        return Verdict(ok=None, line="no queries were routed")
    if not any(q.runs for q in report.queries):
        undecided = any(q.undecided for q in report.queries)
        why = "every run errored or was undecided" if undecided else "every run errored"
        return Verdict(
            ok=False,
            line=f"no run completed ({why}): nothing was measured",
            failures=[f"no run completed: {why}", *failures],
        )
    if not failures:
        return Verdict(
            ok=True,
            line=f"every tested skill passes its own eval set, no pair crosses {WORRYING_RATE:.0%} "
            "of its queries and every skill is listed in full",
        )
    parts = []
    if worst:
        parts.append("worst pair " + pair_line(report, worst[0]))
    if hidden:
        parts.append(hidden)
    if failing:
        parts.append(
            f"{len(failing)} skill(s) fail their own eval set: "
            + ", ".join(s.name for s in failing[:MAX_SKILLS_IN_VERDICT])
            + (" …" if len(failing) > MAX_SKILLS_IN_VERDICT else "")
        )
    return Verdict(ok=False, line="; ".join(parts), failures=failures)


def library_header(report: LibraryReport, *, title: str = "Library routing") -> ReportHeader:
    """The report header (the library as the catalog row: path, skill count, sha256)."""
    config = report.config
    runs = f"{config.runs} per query" + (
        f" (adaptive, up to {config.max_runs})" if config.runs == "auto" else ""
    )
    listing = None
    if report.listing is not None:
        budget = report.listing.budget_chars
        listing = (
            ""
            if report.listing.applied
            else "NOT APPLIED by this harness (it sends every description in full); Claude Code's rule: "
        )
        listing += (
            f"budget {budget or 0:,} characters ({report.listing.budget_source}); "
            f"{sum(1 for s in report.listing.skills if s.state == 'full')} of "
            f"{len(report.listing.skills)} skills in full"
            + "".join(
                f", {n} {state}"
                for state in ("truncated", "name-only")
                if (n := sum(1 for s in report.listing.skills if s.state == state))
            )
            + f" [{report.listing.source}]"
        )
        if report.listing.rules and report.listing.what_if:
            listing += f"; what-if and cut by {report.listing.rules}"
    backend = report.backend
    harness = harness_line(report.harness) if report.harness is not None else None
    catalog = CatalogInfo(
        source=report.library,
        skills=[s.name for s in report.skills],
        sha256=report.library_sha256,
    )
    return make_header(
        title,
        library_verdict(report),
        HeaderInputs(
            backend=backend.name,
            harness=harness,
            model=backend.model,
            cli_version=backend.versions.get("claude_code"),
            listing=listing,
            runs=runs,
            cost=report.cost,
            catalog=catalog,
            skill_dir=report.library,
            proxy=(backend.notes or "offline proxy, not Claude") if backend.is_proxy else None,
        ),
    )
