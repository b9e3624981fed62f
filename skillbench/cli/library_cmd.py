"""`skillbench library DIR`: route every skill's trigger queries against the whole library."""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from skillbench.cli import common
from skillbench.errors import EXIT_COST_CAP, EXIT_FAILED, EXIT_OK
from skillbench.limits import DEFAULT_RUNS

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from rich.console import Console

    from skillbench.library.document import LibraryReport

MAX_PAIRS_SHOWN = 10
MAX_SKILLS_SHOWN = 40
"""A larger library's per-skill table shows the skills that fail or fire least."""


def register(subparsers: Any) -> None:
    """Add the `library` subcommand."""
    p = subparsers.add_parser(
        "library",
        help="route a whole skill library: which skill takes which request, what the listing hides",
        description="Install every skill under DIR at once and run each skill's trigger queries "
        "against the whole library (one call per query and run names the skill that fired). "
        "Reports each skill's own eval set judged by trigger's rule, the confusion matrix, "
        "per-skill recall and precision with Wilson intervals over queries, the most confused "
        "pairs, and how Claude Code's skill listing shows each skill (full, truncated, name "
        "only) with a what-if at other budgets. Exit 0 when every tested skill passes its own "
        "eval set, no pair crosses and every skill is listed in full, 1 otherwise, 2 on bad "
        "input, 3 when refused or stopped by --max-cost.",
    )
    p.add_argument("library_dir", metavar="DIR", help="folder holding the skills (any depth)")
    p.add_argument(
        "--evals",
        metavar="DIR",
        help="folder of <skill-name>.trigger.json eval sets (default: each skill's "
        "evals/trigger.json or *.trigger.json; e.g. --evals data/evals, holding "
        "csv-cleanup.trigger.json, …)",
    )
    common.add_backend_options(p)
    common.add_agent_option(p)
    p.add_argument(
        "--runs",
        type=_runs,
        default=DEFAULT_RUNS,
        metavar="N|auto",
        help="runs per query (at most 100), or auto to stop a query once its own skill's rate "
        f"is settled (default {DEFAULT_RUNS}; e.g. --runs auto)",
    )
    p.add_argument(
        "--max-runs", type=common.runs_option(), default=10, help="cap for --runs auto (10)"
    )
    common.add_confidence_option(p)
    p.add_argument("--seed", type=common.seed_option(), default=0, help="seed for the backend (0)")
    p.add_argument(
        "--timeout", type=common.timeout_option(), metavar="SECONDS", help="per-run timeout"
    )
    p.add_argument(
        "--budget",
        type=common.positive_int,
        metavar="CHARS",
        help="run with Claude Code's skill listing budget set to CHARS "
        "(SLASH_COMMAND_TOOL_CHAR_BUDGET), to see what hiding costs in recall (default: Claude "
        "Code's own, 1 %% of the model's context window; e.g. --budget 20000)",
    )
    p.add_argument(
        "--embedder",
        choices=("lexical", "local", "none"),
        default="lexical",
        help="the overlap pre-screen's similarity: word overlap (lexical, default), the offline "
        "MiniLM embedder (local, needs skillbench[local]) or none",
    )
    common.add_workers_option(p)
    common.add_harness_option(p)
    common.add_as_user_option(p)
    p.add_argument("--batch", action="store_true", help="ask the backend to use batch calls")
    p.add_argument("--out", metavar="FILE", help="write the report JSON here, atomically")
    p.add_argument("--json", action="store_true", help="print the report JSON on stdout")
    common.add_cache_options(p)
    common.add_cost_options(p)
    common.add_cluster_options(p)
    # the trigger options this command does not offer (the library is the catalog)
    p.set_defaults(func=run, auth=None, project=None, escalate=False, threshold=0.5, catalog=None)


def run(args: argparse.Namespace) -> int:
    """Execute the library routing described by the parsed arguments; returns the exit code."""
    from skillbench.cli.trigger_cmd import trigger_options
    from skillbench.io import check_output, dumps_json, write_json
    from skillbench.library.run import plan_library, route_library_sync

    if args.out:
        check_output(args.out, "--out")
    common.apply_agent(args)
    common.check_harness(args.harness, args.backend, cache_before_query=args.cache_before_query)
    common.check_cli_mode(args.cli_mode, args.backend, args.harness)
    common.as_user_option(args.as_user, args.backend, args.harness)
    _check_budget(args)
    options = trigger_options(args)
    extra: dict[str, Any] = dict(
        evals_dir=args.evals,
        listing_budget=args.budget,
        embedder=None if args.embedder == "none" else args.embedder,
    )
    if args.dry_run:
        plan = plan_library(args.library_dir, options, **extra)
        common.check_plan(plan, options.max_cost, dry_run=True)
        return EXIT_OK
    err = common.stderr_console()
    with _scan_alongside(args.library_dir, wanted=not args.json) as scan:
        with (
            common.cluster(args, args.backend) as cluster,
            common.progress_bar(err, "library routing") as on_progress,
        ):
            if cluster is not None:  # enough runs in flight to fill the cluster's agent slots
                options = options.but(workers=cluster.workers(options.workers or 1))
            report = route_library_sync(args.library_dir, options, progress=on_progress, **extra)
        if args.out:
            write_json(args.out, report)
        if args.json:
            sys.stdout.write(dumps_json(report.to_json_dict()))
        else:
            print_report(common.console(), report, scan=scan())
    for warning in report.warnings:
        err.print(common.safe(f"WARNING: {warning}"), style="bold red", markup=False)
    if args.out:
        err.print(common.safe(f"report written to {args.out}"), markup=False)
    if report.cost is not None and report.cost.stopped_at_cap:
        return EXIT_COST_CAP
    from skillbench.library.verdict import library_verdict

    if not any(q.runs for q in report.queries):
        return EXIT_FAILED
    return EXIT_FAILED if library_verdict(report).ok is False else EXIT_OK


def _check_budget(args: argparse.Namespace) -> None:
    """`--budget` sets Claude Code's listing budget: refused (exit 2) for a backend replaying
    another agent, whose listing rules are its own (docs/agents.md)."""
    if args.budget is None or not args.backend:
        return
    from skillbench.backends.registry import agent_backend, agent_names, resolve_backend_name
    from skillbench.errors import InputError

    name = resolve_backend_name(args.backend)
    if name in agent_names() and agent_backend(name) == name:
        raise InputError(
            f"sets Claude Code's listing budget; {name} lists skills by its own rules",
            path="--budget",
        )


def _scan_line(library_dir: str) -> str:
    """``Scan: …``: `skillbench scan`'s totals for the library (docs/scan.md)."""
    from skillbench.scan.output import scan_line
    from skillbench.scan.scan import scan_path

    return scan_line(scan_path(library_dir))


def _scan_child(library_dir: str, conn: Connection) -> None:
    """In the child process: send the scan line, or None when the scan failed (the parent
    then scans itself, so its error is reported as the parent's)."""
    try:
        line: str | None = _scan_line(library_dir)
    except Exception:
        line = None
    conn.send(line)
    conn.close()


@contextmanager
def _scan_alongside(library_dir: str, *, wanted: bool) -> Iterator[Callable[[], str]]:
    """The library's ``Scan: …`` line (`_scan_line`), made by a child process while the library
    is routed: the scan's CPU (detect-secrets on every file, a third of a 10,000-skill run) runs
    on the machine's other core. The child is stopped when routing fails; without a child (not
    `wanted`, or it could not start) or an answer from it, the line is made here."""
    process = receive = None
    if wanted:
        context = multiprocessing.get_context("spawn")
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_scan_child, args=(library_dir, send), daemon=True)
        try:
            process.start()
        except OSError:
            process = None
        send.close()

    def line() -> str:
        found = None
        if process is not None and receive is not None:
            try:
                found = receive.recv()
            except EOFError:  # the child died
                found = None
        return found if isinstance(found, str) else _scan_line(library_dir)

    try:
        yield line
    finally:
        if process is not None:
            if process.is_alive():
                process.terminate()
            process.join()
        if receive is not None:
            receive.close()


def print_report(console: Console, report: LibraryReport, *, scan: str | None = None) -> None:
    """Header (verdict first), the scan's totals, per-skill table, worst pairs, listing
    what-if, pre-screen."""
    from rich.table import Table

    from skillbench.library.verdict import library_header
    from skillbench.reports.header import header_lines
    from skillbench.schemas.cost import cost_lines

    for line in header_lines(library_header(report)):
        console.print(common.safe(line), markup=False)
    if scan is not None:
        console.print(common.safe(scan), markup=False)
    table = Table(title="per skill", title_justify="left")
    shown = report.per_skill
    if len(shown) > MAX_SKILLS_SHOWN:  # the ones that fail, then those firing least
        worst = sorted(shown, key=lambda s: (not s.failed, s.recall.value is None, s.recall.value))
        shown = worst[:MAX_SKILLS_SHOWN]
        table.caption = (
            f"the {len(shown)} of {len(report.per_skill)} skills that fail or fire least; "
            "every skill is in the report (--out, --json)"
        )
    columns = (
        "skill",
        "own set",
        "listing",
        "recall",
        "95% CI",
        "precision",
        "95% CI",
        "stolen by",
    )
    for column in columns:
        table.add_column(column, overflow="fold")
    for s in shown:
        table.add_row(
            common.safe(s.name),
            _own_set(s.passed, s.failed),
            s.listing or "–",
            _rate(s.recall.value),
            _ci(s.recall.low, s.recall.high),
            _rate(s.precision.value),
            _ci(s.precision.low, s.precision.high),
            common.safe(", ".join(f"{f.skill}×{f.runs}" for f in s.stolen_by[:3])),
        )
    console.print(table)
    for p in report.pairs[:MAX_PAIRS_SHOWN]:
        console.print(
            common.safe(
                f"confused: {p.a} ↔ {p.b}: {p.a}→{p.b} {p.a_to_b}, {p.b}→{p.a} {p.b_to_a} of "
                f"{p.runs} runs ({_rate(p.rate.value)}, {_ci(p.rate.low, p.rate.high)}); e.g. "
                + " | ".join(p.examples[:2])
            ),
            markup=False,
        )
    if report.listing is not None:
        listing = report.listing
        for w in listing.what_if:
            hidden = ", ".join(w.name_only[:8]) + (" …" if len(w.name_only) > 8 else "")
            console.print(
                common.safe(
                    f"listing at {w.budget_chars:,} characters: {w.full} of "
                    f"{len(listing.skills)} in full"
                    + (f"; truncated: {', '.join(w.truncated[:8])}" if w.truncated else "")
                    + (f"; name only: {hidden}" if hidden else "")
                ),
                markup=False,
            )
        if listing.rules and (listing.what_if or listing.source == "estimate"):
            console.print(common.safe(f"listing rule: {listing.rules}"), markup=False)
        if listing.rule_check:
            console.print(common.safe(f"listing rule check: {listing.rule_check}"), markup=False)
        predicted = bool(listing.what_if)  # not for another agent, nor when rules are unread
        if predicted and listing.cut_to_fit is None:
            console.print(
                "no per-skill cut fits the budget: even bare names overflow it", markup=False
            )
        elif predicted and listing.cut_skills:
            console.print(
                common.safe(
                    f"cut every description to {listing.cut_to_fit} characters and every skill is "
                    f"listed in full (shortens {', '.join(listing.cut_skills[:8])})"
                ),
                markup=False,
            )
    for o in report.overlap[:MAX_PAIRS_SHOWN]:
        console.print(
            common.safe(f"alike descriptions: {o.a} ~ {o.b}: {o.similarity:.2f}"), markup=False
        )
    console.print(f"calls {report.calls}, cache hits {report.cache_hits}", markup=False)
    if report.cost is not None:
        for line in cost_lines(report.cost):
            console.print(common.safe(line), markup=False)
    for note in report.notes:
        console.print(common.safe(f"note: {note}"), markup=False)


def _own_set(passed: int | None, failed: int | None) -> str:
    """`✓ 3/3` or `✗ 1/3` (queries of the skill's own eval set passing), `–` when untested."""
    if passed is None or failed is None:
        return "–"
    return f"{'✗' if failed else '✓'} {passed}/{passed + failed}"


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ci(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"{low:.2f}–{high:.2f}"


def _runs(text: str) -> int | str:
    if text.strip().lower() == "auto":
        return "auto"
    return common.runs_option()(text)
