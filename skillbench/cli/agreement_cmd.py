"""`skillbench agreement SKILL_DIR --evals FILE`: how far does backend A decide like backend B?"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING, Any

from skillbench.cli import common
from skillbench.errors import EXIT_FAILED, EXIT_OK, BackendError
from skillbench.limits import DEFAULT_RUNS

if TYPE_CHECKING:
    from rich.console import Console

    from skillbench.schemas.agreement import AgreementReport


def _default_pair() -> tuple[str, str] | None:
    """The specs' reference pair (`registry.reference_pair`), or None when none is installed."""
    from skillbench.backends.registry import reference_pair

    try:
        return reference_pair()
    except BackendError:
        return None


def register(subparsers: Any) -> None:
    """Add the `agreement` subcommand."""
    pair = _default_pair()
    default = (
        f"The default pair is the experiment to run once with a key: {pair[0]} (A; its trigger "
        f"harness replays Claude Code's own request) against {pair[1]} (B, the real CLI). "
        if pair is not None
        else ""
    )
    p = subparsers.add_parser(
        "agreement",
        help="run one eval set through two backends and report how far they agree",
        description="Run each query of an eval set through backend A and backend B (same skill, "
        "catalog, runs and seed) and report per-query agreement, overall agreement and Cohen's "
        f"kappa with intervals, and each backend's undecided share. {default}"
        "Offline, compare two proxies: --backend-a local --backend-b lexical. Two agents: "
        "--agent-a claude-code --agent-b opencode (docs/agents.md). Exit 0, 1 when no "
        "query was decided by both backends (nothing measured), 2 on bad input.",
    )
    common.add_skill_dir(p)
    p.add_argument("--evals", required=True, metavar="FILE", help="eval set (Format A or B)")
    p.add_argument(
        "--backend-a",
        metavar="NAME",
        help=f"backend A (default {pair[0] if pair else 'none: name one'}; e.g. --backend-a local)",
    )
    p.add_argument(
        "--backend-b",
        metavar="NAME",
        help=f"backend B (default {pair[1] if pair else 'none: name one'}; e.g. --backend-b lexical)",
    )
    common.add_agent_option(p, "a")
    common.add_agent_option(p, "b")
    p.add_argument("--model", help="model for both backends")
    p.add_argument(
        "--model-a",
        metavar="MODEL",
        help="model for backend A only (default: --model; e.g. --model-a claude-haiku-4-5)",
    )
    p.add_argument(
        "--model-b",
        metavar="MODEL",
        help="model for backend B only (default: --model; e.g. --model-b claude-haiku-4-5)",
    )
    p.add_argument(
        "--runs",
        type=common.runs_option(),
        default=DEFAULT_RUNS,
        help=f"runs per query ({DEFAULT_RUNS})",
    )
    p.add_argument(
        "--threshold", type=common.fraction_option(), default=0.5, help="verdict threshold (0.5)"
    )
    common.add_confidence_option(p)
    p.add_argument("--workers", type=common.workers_option(), default=8, help="concurrent runs (8)")
    p.add_argument(
        "--seed", type=common.seed_option(), default=0, help="seed for both backends (0)"
    )
    common.add_catalog_option(p)
    common.add_project_option(p)
    common.add_as_user_option(p)
    common.add_cli_mode_option(p)  # one mode for both sides: the replay's and claude-code's
    p.add_argument("--out", metavar="FILE", help="write the agreement JSON here (atomically)")
    common.add_cache_options(p)
    p.add_argument("--json", action="store_true", help="print the agreement JSON on stdout")
    common.add_cluster_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run both backends, compare, print or save; returns the exit code."""
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.cli.trigger_cmd import trigger_options
    from skillbench.io import dumps_json, write_json
    from skillbench.trigger.agreement import (
        AgreementOptions,
        agreement_lines,
        run_agreement_sync,
    )

    common.apply_agent(args, "a")
    common.apply_agent(args, "b")
    if not (args.backend_a and args.backend_b):
        from skillbench.backends.registry import reference_pair

        stand_in, reference = reference_pair()  # the specs' default pair
        args.backend_a = args.backend_a or stand_in
        args.backend_b = args.backend_b or reference
    resolve_backend_name(args.backend_a)  # unknown names: exit 2 before any run
    resolve_backend_name(args.backend_b)
    _check_cli_mode(args)
    project = _project_options(args)
    # --project and --as-user go to the side(s) with the replay harness (`_project_options`),
    # not to both
    trigger = trigger_options(args, project=None, as_user=None)
    options = AgreementOptions(
        trigger=trigger,
        backend_a=args.backend_a,
        backend_b=args.backend_b,
        model_a=args.model_a,
        model_b=args.model_b,
        backend_options_a=project.get("a"),
        backend_options_b=project.get("b"),
    )
    err = common.stderr_console()
    with (
        common.cluster(args, args.backend_a, args.backend_b) as cluster,
        common.progress_bar(err, "agreement") as on_progress,
    ):
        if cluster is not None:  # enough runs in flight to fill the cluster's agent slots
            wider = trigger.but(workers=cluster.workers(trigger.workers or 1))
            options = dataclasses.replace(options, trigger=wider)
        report = run_agreement_sync(args.skill_dir, args.evals, options, progress=on_progress)
    if args.out:
        write_json(args.out, report)
    if args.json:
        sys.stdout.write(dumps_json(report.to_json_dict()))
    else:
        console = common.console()
        _print_table(console, report)
        for line in agreement_lines(report):
            console.print(line, markup=False)
    if args.out:
        err.print(f"agreement written to {args.out}", markup=False)
    if report.compared == 0:  # no query decided by both backends: nothing was measured
        err.print("nothing to compare: no query was decided by both backends", markup=False)
        return EXIT_FAILED
    return EXIT_OK


def _check_cli_mode(args: argparse.Namespace) -> None:
    """`--cli-mode` goes to every side that runs Claude Code's CLI (by default both: the
    replay's capture and the claude-code sessions, so both ask the same CLI's request); exit 2
    when neither side takes it."""
    from skillbench.backends.registry import takes_cli_mode

    sides = (args.backend_a, args.backend_b)
    if args.cli_mode is not None and not any(takes_cli_mode(backend) for backend in sides):
        common.check_cli_mode(args.cli_mode, args.backend_a, None)


def _project_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """`--project` and `--as-user` for the side(s) whose backend has the replay harness (the
    anthropic backend's), by side; exit 2 when neither has."""
    if args.project is None and args.as_user is None:
        return {}
    from skillbench.backends.registry import backend_spec

    sides = {
        side: backend
        for side, backend in (("a", args.backend_a), ("b", args.backend_b))
        if "replay" in backend_spec(backend).harnesses
    }
    backend = next(iter(sides.values()), args.backend_a)
    common.project_option(args.project, backend, None)
    common.as_user_option(args.as_user, backend, None)
    chosen = {"project": args.project, "as_user": args.as_user}
    kept = {name: value for name, value in chosen.items() if value is not None}
    return {side: dict(kept) for side in sides}


def _print_table(console: Console, report: AgreementReport) -> None:
    """One row per query: both rates and verdicts, and whether they agree."""
    from rich.table import Table

    table = Table(title=f"backend agreement: {report.skill_name}", title_justify="left")
    for column in ("query", "expect", "rate A", "rate B", "A", "B", "agree"):
        table.add_column(column, overflow="fold" if column == "query" else "ellipsis")

    def rate(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    for q in report.queries:
        agree = "–" if q.agree is None else ("yes" if q.agree else "NO")
        table.add_row(
            q.query,
            "trigger" if q.should_trigger else "no",
            rate(q.rate_a),
            rate(q.rate_b),
            q.verdict_a,
            q.verdict_b,
            agree,
        )
    console.print(table)
