"""`skillbench plan --evals FILE --effect D`: how many runs per query (and queries) the gate
needs to detect a drop D in a query's pass rate, from observed rates or a stated prior."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_FAILED, EXIT_OK

#: Runs per query shown in the table of detectable effects.
TABLE_RUNS = (4, 10, 20, 50, 100)


def register(subparsers: Any) -> None:
    """Add the `plan` subcommand."""
    p = subparsers.add_parser(
        "plan",
        help="power plan for `gate`: runs per query and queries needed to detect an effect",
        description="Say how many runs per query (and how many queries) `skillbench gate` needs "
        "to detect a drop of --effect in the pass rate of the queries, with probability --power "
        "at --alpha (exact power of the gate's pooled paired McNemar test, which gets half of "
        "alpha; docs/statistics.md). Pass rates "
        "come from the skill's cached trigger runs (--skill), earlier reports (--report) or a "
        "stated prior. No model call. Exit 0 when "
        "the plan is reachable with at most 100 runs per query, 1 when it needs more queries.",
    )
    p.add_argument("--evals", required=True, metavar="FILE", help="eval set (Format A or B)")
    p.add_argument(
        "--effect",
        required=True,
        type=common.float_in(0.0, 1.0, low_open=True),
        help="drop in a query's pass rate to detect (required; e.g. --effect 0.15)",
    )
    p.add_argument("--power", type=common.float_in(0.5, 0.999), default=0.8, help="power (0.8)")
    p.add_argument(
        "--alpha", type=common.float_in(0.0001, 0.5), default=0.05, help="significance (0.05)"
    )
    p.add_argument(
        "--affected",
        type=common.float_in(0.0, 1.0, low_open=True),
        default=1.0,
        help="share of the queries the drop hits (default 1: every query; e.g. --affected 0.2)",
    )
    p.add_argument(
        "--report",
        action="append",
        metavar="FILE",
        help="trigger_report.json or gate_report.json whose per-query rates to use (repeatable)",
    )
    p.add_argument(
        "--prior",
        type=common.float_in(0.0, 1.0),
        default=0.5,
        help="pass rate assumed for queries no report covers (0.5, the noisiest)",
    )
    p.add_argument(
        "--skill",
        metavar="DIR",
        help="the skill folder whose trigger runs in the call cache give the rates (as "
        "`trigger`/`gate` ran it with --backend, --model, --catalog, --seed); cached rates "
        "come first, then --report, then --prior",
    )
    common.add_backend_options(p)
    common.add_catalog_option(p)
    p.add_argument("--seed", type=common.seed_option(), default=0, help="seed of the runs (0)")
    common.add_cache_options(p)
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the plan; exit 1 when even 100 runs per query do not reach the power."""
    from dataclasses import asdict

    from skillbench.gate.power import minimum_detectable_effect, plan_runs
    from skillbench.gate.rates import query_rates, rates_from_report
    from skillbench.gate.report import pooled_alpha
    from skillbench.trigger.evalset import load_eval_set

    queries = load_eval_set(args.evals)
    observed: dict[tuple[str, bool], tuple[int, int]] = {}
    for path in args.report or []:
        for key, (k, n) in rates_from_report(path).items():
            old = observed.get(key, (0, 0))
            observed[key] = (old[0] + k, old[1] + n)
    cached: dict[tuple[str, bool], tuple[int, int]] = {}
    notes: list[str] = []
    if args.skill and not args.no_cache:
        from skillbench.gate.rates import rates_from_cache

        cached, notes = rates_from_cache(
            args.skill, queries, backend=args.backend, model=args.model, cache_path=args.cache,
            catalog_dir=common.catalog_dir(args.catalog), seed=args.seed,
        )  # fmt: skip
    from_reports = sum(1 for q in queries if (q.text, q.should_trigger) in observed
                       and (q.text, q.should_trigger) not in cached)  # fmt: skip
    rates, seen = query_rates(queries, {**observed, **cached}, args.prior)
    half = pooled_alpha(args.alpha)  # the gate's pooled test gets half of alpha
    plan = plan_runs(rates, args.effect, alpha=half, power=args.power, affected=args.affected)
    table = [
        {
            "runs": n,
            "mde": minimum_detectable_effect(
                rates, n, alpha=half, power=args.power, affected=args.affected
            ),
        }
        for n in TABLE_RUNS
    ]
    in_cache = len([q for q in queries if (q.text, q.should_trigger) in cached])
    source = (
        f"{from_reports}/{len(rates)} query rates from reports, {in_cache}/{len(rates)} from the "
        f"call cache, prior {args.prior:g} for the rest ({len(rates) - seen})"
    )
    if args.skill and args.no_cache:
        notes.append("--no-cache: the call cache was not read")
    if args.json:
        doc = {**asdict(plan), "rates_source": source, "notes": notes, "detectable": table}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        extra = [f"  note: {n}" for n in notes]
        for line in [*plan.lines(), f"  rates: {source}", *extra, "  detectable drop at:"]:
            print(common.safe(line))
        for row in table:
            mde = "none ≤ 1" if row["mde"] is None else f"{row['mde']:.3f}"
            print(f"    {row['runs']:>3} runs per query: {mde}")
        if plan.enough and plan.runs:
            print(f"  gate with: --runs {plan.runs}  (or --runs planned --effect {args.effect:g})")
    return EXIT_OK if plan.enough else EXIT_FAILED
