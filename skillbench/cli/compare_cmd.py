"""`skillbench compare SKILL_DIR --a CONFIG --b CONFIG`: blind A/B comparison, then the analyzer."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from skillbench.cli import common
from skillbench.errors import EXIT_COST_CAP, EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from skillbench.behavior.compare import CompareSummary

DIALECTS = ("writing-skills", "skill-creator")


def register(subparsers: Any) -> None:
    """Add the `compare` subcommand."""
    p = subparsers.add_parser(
        "compare",
        help="blind A/B comparison of two configurations' runs, judged in both orders",
        description="Label each run pair A/B in a seeded random order, judge it in both orders "
        "(a disagreement is a tie), write comparisons/, a summary with swap consistency and the "
        "sign test, update history.json and write analysis.json. The local backend uses a "
        "deterministic proxy (machine-checkable expectations), never a pretended model verdict. "
        "Exit 0 when every pair was judged, 1 when a judgement failed or nothing could be "
        "judged, 2 on bad input, 3 when refused or stopped by --max-cost.",
    )
    common.add_skill_dir(p, common.SKILL_WITH_EVALS_HELP)
    common.add_workspace_option(p, common.WORKSPACE_SHORT_HELP)
    p.add_argument("--a", required=True, metavar="CONFIG", help="with_skill, baseline or v<N>")
    p.add_argument("--b", required=True, metavar="CONFIG", help="with_skill, baseline or v<N>")
    common.add_backend_options(p)
    p.add_argument("--seed", type=common.seed_option(), default=0, help="seed of the A/B order (0)")
    p.add_argument(
        "--dialect", choices=DIALECTS, default="writing-skills", help="comparison/analysis shape"
    )
    p.add_argument(
        "--workers", type=common.workers_option(), default=4, help="pairs judged at once (4)"
    )
    p.add_argument("--no-analyze", action="store_true", help="skip the analyzer")
    common.add_cache_options(p)
    p.add_argument("--json", action="store_true", help="print the summary JSON on stdout")
    common.add_cost_options(p)
    p.set_defaults(func=run)


def summary_lines(summary: CompareSummary) -> list[str]:
    """Plain-text summary: judge, counts, bias diagnostics, the case-level test."""
    judge = (
        "DETERMINISTIC PROXY (no model judge)"
        if summary.judge == "deterministic-proxy"
        else f"model judge {summary.backend}" + (f" ({summary.model})" if summary.model else "")
    )
    a, b = summary.config_a, summary.config_b
    lines = [
        f"{a} vs {b}: {judge}, dialect {summary.dialect}, seed {summary.seed}",
        f"run pairs {summary.pairs}: judged {summary.judged}, errors {summary.errors}, "
        f"skipped {summary.skipped}",
        f"runs: {a} won {summary.wins}, lost {summary.losses}, tied {summary.ties}",
        f"swap consistency {_pct(summary.swap_consistency)}, position bias (same label won both "
        f"orders) {_pct(summary.position_bias_rate)}, label A won {_pct(summary.a_label_win_rate)}"
        " of decisive judgements",
    ]
    interval = (
        f" [{summary.win_rate_low:.2f}, {summary.win_rate_high:.2f}]"
        if summary.win_rate_low is not None and summary.win_rate_high is not None
        else ""
    )
    lines.append(
        f"cases: {a} won {summary.case_wins}, lost {summary.case_losses}, tied "
        f"{summary.case_ties}; win rate {_pct(summary.win_rate)}{interval} (Wilson 95 %), "
        f"sign test p = {summary.sign_test_p:.3g}"
    )
    if summary.note:
        lines.append(summary.note)
    if summary.history:
        lines.append(f"history: {summary.history}")
    for pair in summary.pair_results:
        if pair.status != "judged":
            lines.append(f"{pair.status}: case {pair.case_id} run {pair.run_number}: {pair.reason}")
    return lines


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def run(args: argparse.Namespace) -> int:
    """Run the comparison (and the analyzer) described by the arguments; returns the exit code."""
    from skillbench.backends.registry import backend_spec, resolve_backend_name
    from skillbench.behavior.compare_run import compare_sync, plan_compare_run
    from skillbench.behavior.options import CompareOptions
    from skillbench.io import dumps_json

    cap = common.max_cost(args)
    backend = resolve_backend_name(args.backend)
    options = CompareOptions(
        backend=args.backend,
        model=args.model,
        dialect=args.dialect,
        seed=args.seed,
        use_cache=not args.no_cache,
        cache_path=args.cache,
        workers=args.workers,
        analyze=not args.no_analyze,
        max_cost=cap,
    )
    if args.dry_run:
        common.check_plan(
            plan_compare_run(
                args.skill_dir,
                args.a,
                args.b,
                options.but(backend=backend),
                workspace=args.workspace,
            ),
            cap,
            dry_run=True,
        )
        return EXIT_OK
    err = common.stderr_console()
    with common.progress_bar(err, "blind comparison") as on_progress:
        outcome = compare_sync(
            args.skill_dir,
            args.a,
            args.b,
            options,
            workspace=args.workspace,
            progress=on_progress,
        )
    summary = outcome.summary
    if args.json:
        sys.stdout.write(dumps_json(summary.to_json_dict()))
    else:
        for line in summary_lines(summary):
            print(common.safe(line))
    analysis = outcome.analysis
    if analysis is not None:
        if analysis.path is not None:
            err.print(f"analysis ({analysis.analyzer}) written to {analysis.path}", markup=False)
        elif analysis.reason:
            err.print(common.safe(f"analysis not written: {analysis.reason}"), markup=False)
    if summary.cost is not None and not backend_spec(backend).offline:
        common.print_cost(summary.cost)
    if summary.cost is not None and summary.cost.stopped_at_cap:
        return EXIT_COST_CAP
    return EXIT_OK if summary.errors == 0 and summary.judged > 0 else EXIT_FAILED
