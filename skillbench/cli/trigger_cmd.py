"""`skillbench trigger SKILL_DIR --evals FILE`: run a trigger eval and print or save the report."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from skillbench.cli import common
from skillbench.errors import EXIT_COST_CAP, EXIT_FAILED, EXIT_OK
from skillbench.limits import DEFAULT_RUNS, ROUTING_CALL_TIMEOUT

if TYPE_CHECKING:
    from rich.console import Console

    from skillbench.schemas.trigger import TriggerReport
    from skillbench.trigger.options import TriggerOptions


def register(subparsers: Any) -> None:
    """Add the `trigger` subcommand."""
    from skillbench.backends.registry import escalation_name

    p = subparsers.add_parser(
        "trigger",
        help="run a trigger eval: does the skill fire for the queries it should?",
        description="Run each query of an eval set several times against the skill's description "
        "(or a candidate --description) and report trigger rates with intervals. Exit 0 when every "
        "query passes, 1 otherwise, 2 on bad input, 3 when refused or stopped by --max-cost.",
    )
    common.add_skill_dir(p)
    p.add_argument("--evals", required=True, metavar="FILE", help="eval set (Format A or B)")
    common.add_backend_options(p)
    common.add_agent_option(p)
    p.add_argument(
        "--runs",
        type=_runs,
        default=DEFAULT_RUNS,
        metavar="N|auto",
        help="runs per query (at most 100), or auto to stop each query once its verdict is "
        f"settled (default {DEFAULT_RUNS}: the fewest whose unanimous result settles a verdict "
        "at threshold 0.5; e.g. --runs auto)",
    )
    p.add_argument(
        "--max-runs", type=common.runs_option(), default=10, help="cap for --runs auto (10)"
    )
    p.add_argument(
        "--threshold", type=common.fraction_option(), default=0.5, help="pass threshold (0.5)"
    )
    common.add_confidence_option(p)
    p.add_argument("--seed", type=common.seed_option(), default=0, help="seed for the backend (0)")
    p.add_argument(
        "--timeout",
        type=common.timeout_option(),
        metavar="SECONDS",
        help=f"per-run timeout (default: {ROUTING_CALL_TIMEOUT:.0f} s per call on the anthropic "
        "and claude-code backends, retries included; at most 3600; e.g. --timeout 60)",
    )
    p.add_argument(
        "--description",
        type=common.text_value,
        metavar="TEXT",
        help="evaluate this description instead",
    )
    common.add_workers_option(p)
    common.add_catalog_option(p)
    common.add_harness_option(p)
    common.add_project_option(p)
    common.add_as_user_option(p)
    p.add_argument(
        "--escalate",
        action="store_true",
        help="re-run undecided replay runs (another tool called first) through the "
        f"{escalation_name()} backend; off by default since each costs a whole agent session",
    )
    p.add_argument("--out", metavar="FILE", help="write the report JSON here, atomically")
    common.add_cache_options(p)
    p.add_argument("--batch", action="store_true", help="ask the backend to use batch calls")
    p.add_argument(
        "--auth",
        choices=("env", "login"),
        help="claude-code only: `env` (default, or $SKILLBENCH_CLAUDE_AUTH) uses the key or "
        "cloud credentials of your environment; `login` copies your Claude Code subscription "
        "login (not your skills or settings) into each run's isolated HOME (e.g. --auth login)",
    )
    p.add_argument("--json", action="store_true", help="print the report JSON on stdout")
    common.add_ci_options(p)
    common.add_cost_options(p)
    common.add_cluster_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute the trigger eval described by the parsed arguments; returns the exit code."""
    from skillbench.backends.registry import escalation_backend
    from skillbench.io import check_output, dumps_json, write_json
    from skillbench.trigger.run import evaluate_skill_sync

    if args.out:  # before any model call: a bad --out must not cost a whole eval
        check_output(args.out, "--out")
    common.check_ci_options(args)
    common.apply_agent(args)
    common.check_default_backend(args.backend)
    common.check_harness(args.harness, args.backend, cache_before_query=args.cache_before_query)
    common.check_cli_mode(args.cli_mode, args.backend, args.harness)
    common.project_option(args.project, args.backend, args.harness)
    common.as_user_option(args.as_user, args.backend, args.harness)
    options = trigger_options(args)
    if args.dry_run:
        return _dry_run(args, options)
    err = common.stderr_console()
    if args.batch:
        _show_batch_progress()
    _show_batch_progress("skillbench.local")  # a large catalog's embedding progress
    # --escalate runs sessions of the backend the specs name for it
    sessions = escalation_backend() if args.escalate else args.backend
    with (
        common.cluster(args, args.backend, sessions) as cluster,
        common.progress_bar(err, "trigger eval") as on_progress,
    ):
        report = evaluate_skill_sync(
            args.skill_dir,
            args.evals,
            options if cluster is None else cluster_workers(options, cluster),
            description=args.description,
            progress=on_progress,
        )
    if args.out:
        write_json(args.out, report)
    from skillbench.cli.ci_cases import trigger_cases

    if args.json:  # --json wins: stdout holds the document only
        args.output_format = "json"
    common.emit_ci(args, "trigger", trigger_cases(report, args.evals), title="trigger")
    if args.output_format == "json":
        sys.stdout.write(dumps_json(report.to_json_dict()))
    else:
        _print_report(common.console(), report)
    for warning in report.warnings or []:
        err.print(common.safe(f"WARNING: {warning}"), style="bold red", markup=False)
    if args.out:
        err.print(common.safe(f"report written to {args.out}"), markup=False)
    if report.cost is not None and report.cost.stopped_at_cap:
        return EXIT_COST_CAP
    return EXIT_OK if report.summary.failed == 0 else EXIT_FAILED


def cluster_workers(options: TriggerOptions, cluster: Any) -> TriggerOptions:
    """`options` with enough runs in flight to fill the cluster's agent slots."""
    return options.but(workers=cluster.workers(options.workers or 1))


#: `TriggerOptions` fields read from the flag of the same name, when the command has that flag.
SAME_NAME_FLAGS = (
    "backend", "model", "harness", "cache_before_query", "cli_mode", "project", "as_user",
    "batch",
    "escalate", "runs",
    "max_runs", "confidence", "threshold", "seed", "workers", "timeout",
)  # fmt: skip


def trigger_options(args: argparse.Namespace, **fields: Any) -> TriggerOptions:
    """The one `TriggerOptions` builder of every command that runs trigger evals (`trigger`,
    `library`, `improve`, `agents`, `agreement`): each option from its flag when the command
    has that flag (else `TriggerOptions`' default), `--auth login` checked here (exit 2); then
    `fields`, a command's own differences (e.g. `agents`' `--model AGENT=MODEL` is no model)."""
    from skillbench.trigger.options import TriggerOptions

    found: dict[str, Any] = {n: getattr(args, n) for n in SAME_NAME_FLAGS if hasattr(args, n)}
    if hasattr(args, "catalog"):
        found["catalog_dir"] = common.catalog_dir(args.catalog)
    if hasattr(args, "no_cache"):
        found.update(use_cache=not args.no_cache, cache_path=args.cache)
    if hasattr(args, "max_cost"):
        found["max_cost"] = common.max_cost(args)
    if hasattr(args, "auth"):
        found["backend_options"] = _auth_options(args) or None
    return TriggerOptions(**{**found, **fields})


def _dry_run(args: argparse.Namespace, options: TriggerOptions) -> int:
    """Print the plan and the estimate; no model call. Exit 3 when it exceeds the cap."""
    from skillbench.aio import run_sync
    from skillbench.trigger.run import plan_skill_eval

    plan = run_sync(
        lambda: plan_skill_eval(args.skill_dir, args.evals, options, description=args.description)
    )
    common.check_plan(plan, options.max_cost, dry_run=True)
    return EXIT_OK


#: Rows of the per-query table printed; past it, failing rows first and a count of the rest
#: (a 50,000-row table takes minutes to lay out; every row is in --out / --json).
MAX_TABLE_ROWS = 200


def _show_batch_progress(logger: str = "skillbench.replay") -> None:
    """Print a backend's progress lines on stderr: the replay harness's Message Batch, or
    (`skillbench.local`) the local backend's embedding of a large catalog."""
    import logging

    from skillbench.cli.logs import RedactingFilter, verbose_configured

    if verbose_configured():  # -v shows these lines (and more) already
        return
    log = logging.getLogger(logger)
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler.addFilter(RedactingFilter())
        log.addHandler(handler)
    log.setLevel(logging.INFO)


def _print_report(console: Console, report: TriggerReport) -> None:
    """The header (verdict, failures, provenance), a per-query table (failures first, at most
    MAX_TABLE_ROWS rows) and the summary lines."""
    from rich.table import Table
    from rich.text import Text

    from skillbench.reports.header import ReportHeader, header_lines
    from skillbench.trigger.verdict import trigger_header

    # the header evaluate_skill stored (one git query per eval), else built here
    header = ReportHeader.model_validate(report.header) if report.header else trigger_header(report)
    for line in header_lines(header, failures=False):  # the table lists them
        console.print(line, markup=False)
    for line in (report.harness.as_user_taken or []) if report.harness is not None else []:
        console.print(common.safe(f"  --as-user {line}"), markup=False)

    table = Table(title=f"trigger eval: {report.skill_name}", title_justify="left")
    for column in ("query", "expect", "rate", "95% CI", "runs", "err", "result"):
        table.add_column(column, overflow="fold" if column == "query" else "ellipsis")
    rows = sorted(report.results, key=lambda r: r.passed)  # failures first, order kept
    rows = rows[:MAX_TABLE_ROWS]
    for r in rows:
        ci = "–" if r.ci_low is None else f"{r.ci_low:.2f}–{r.ci_high:.2f}"
        if r.unresolved:
            verdict = Text("UNRESOLVED", style="bold red")
        elif r.passed:
            verdict = Text("pass" + (" (flaky)" if r.flaky else ""), style="green")
        else:
            verdict = Text("FAIL" + (" (flaky)" if r.flaky else ""), style="red")
        instead = ", ".join(f"{k}×{v}" for k, v in (r.fired_instead or {}).items())
        query = Text(common.safe(r.query + (f"  [fired instead: {instead}]" if instead else "")))
        table.add_row(
            query,
            "trigger" if r.should_trigger else "no",
            f"{r.trigger_rate:.2f}",
            ci,
            str(r.runs),
            str(r.errors),
            verdict,
        )
    console.print(table)
    if len(rows) < len(report.results):
        console.print(
            f"… {len(report.results) - len(rows)} more queries not shown (failing ones first); "
            "--out or --json has every row",
            markup=False,
        )
    for line in summary_lines(report):
        console.print(common.safe(line), markup=False)


def summary_lines(report: TriggerReport) -> list[str]:
    """Plain-text summary: counts, metrics with intervals, calls, cost, backend."""
    s = report.summary
    lines = [f"passed {s.passed}/{s.total} (threshold {s.threshold:g})"]
    for label, est in (
        ("pass rate", s.pass_rate),
        ("precision", s.precision),
        ("recall", s.recall),
        ("F1", s.f1),
        ("accuracy", s.accuracy),
    ):
        if est is None:
            continue
        if est.value is None:
            lines.append(f"{label:>10}: undefined (n={est.n})")
        else:
            lines.append(
                f"{label:>10}: {est.value:.3f}  [{est.low:.3f}, {est.high:.3f}] "
                f"({est.method}, n={est.n})"
            )
    calls = f"calls {s.calls}, cache hits {s.cache_hits}"
    if s.calls_saved is not None:
        calls += f", saved by --runs auto {s.calls_saved}"
    lines.append(calls)
    if report.cost is not None:
        from skillbench.schemas.cost import cost_lines

        lines.extend(cost_lines(report.cost))
        lines.append(f"wall {s.wall_seconds or 0:.1f} s")
    elif s.usage is not None:
        cost = "unknown" if s.cost_usd is None else f"${s.cost_usd:.4f}"
        lines.append(
            f"tokens in {s.usage.input_tokens}, out {s.usage.output_tokens}, "
            f"cost {cost}, wall {s.wall_seconds or 0:.1f} s"
        )
    if s.usage is not None and s.cache_read_share is not None:
        lines.append(
            f"prompt cache: {s.usage.cache_read_input_tokens} input tokens read from it "
            f"({s.cache_read_share:.0%} of input)"
        )
    if s.undecided_runs:
        lines.append(f"undecided runs (another tool first): {s.undecided_runs}")
    if report.backend is not None:
        model = f" ({report.backend.model})" if report.backend.model else ""
        workers = ""
        if report.config is not None:
            n = report.config.workers
            workers = f", {n} worker{'' if n == 1 else 's'}"
        versions = ", ".join(f"{k} {v}" for k, v in sorted(report.backend.versions.items()))
        lines.append(f"backend {report.backend.name}{model}{workers}")
        if versions:
            lines.append(f"versions: {versions}")
    from skillbench.trigger.listing import catalog_line

    catalog = catalog_line(report)  # harness and listing are in the header above
    if catalog is not None:
        lines.append(catalog)
    lines.extend(f"note: {note}" for note in report.notes or [])
    return lines


def _auth_options(args: argparse.Namespace) -> dict[str, Any]:
    """`--auth` as a judge option of a backend that runs the CLI in sessions (claude-code);
    `--auth login` elsewhere, or without a login to copy, is exit 2 here, before any run."""
    from skillbench.backends.registry import backend_spec
    from skillbench.errors import InputError

    auth = getattr(args, "auth", None)
    sessions = backend_spec(args.backend).sessions
    if auth == "env" and sessions:
        return {"auth": "env"}  # explicit: wins over $SKILLBENCH_CLAUDE_AUTH
    if auth == "login":
        if not sessions:
            raise InputError("login applies only to --backend claude-code", path="--auth")
        from skillbench.backends.claude_cli.login import find_login

        find_login()  # a missing login is exit 2 here, naming --auth
        return {"auth": "login"}
    return {}


def _runs(text: str) -> int | str:
    if text.strip().lower() == "auto":
        return "auto"
    return common.runs_option()(text)
