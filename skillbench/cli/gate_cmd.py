"""`skillbench gate SKILL_DIR --evals FILE [--base REF]`: did this change make the skill worse?

The skill at git REF (default: the merge base with the default branch) against the working
tree, the same queries and runs, paired run by run; exit 1 on a significant regression.
`--aa K` calibrates instead: K gates with base = head on fresh runs, and their false-alarm rate.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_COST_CAP, EXIT_FAILED, EXIT_OK, InputError

FORMATS = ("text", "json", "markdown", "github")
#: What the default runs detect (`gate.power.default_runs_power(10)`; a test keeps it true).
RUNS_POWER = (
    "10 runs: on 20 queries with a pass rate of 0.9 the gate detects a drop of ≥ 0.12 in every "
    "query's pass rate with power 0.8 at alpha 0.05; no single query can be flagged on its own "
    "test below 11 runs"
)


def register(subparsers: Any) -> None:
    """Add the `gate` subcommand."""
    p = subparsers.add_parser(
        "gate",
        help="pull-request gate: the skill at a git ref vs the working tree, paired; exit 1 on a "
        "significant regression",
        description="Run the eval set against the skill as it is at git --base (default: the "
        "merge base with the default branch) and as it is in the working tree, the same queries "
        "and runs, paired run by run (exact McNemar). Verdict: regressed (exit 1), improved, or "
        "no change detected with the smallest change this eval could have detected. Exit 2 on "
        "bad input, 3 when refused or stopped by --max-cost. Base results come from the call "
        "cache when the base is unchanged.",
    )
    common.add_skill_dir(p)
    p.add_argument(
        "--evals",
        metavar="FILE",
        help="eval set (Format A or B; required without --behavior); with --behavior, the "
        "behavior eval cases (default: the skill's evals/evals.json)",
    )
    p.add_argument(
        "--evals-from",
        choices=("base", "head"),
        default="base",
        help="whose eval set grades both sides: base (the file as it is at --base, so a change "
        "cannot grade itself; what it changed in the eval set is reported) or head (the working "
        "tree's; the verdict says so) (base)",
    )
    p.add_argument(
        "--behavior",
        action="store_true",
        help="gate the skill's behavior instead of its triggering: the eval cases run "
        "with_skill on base and head (copies in the report folder), graded, paired by case and "
        "run number",
    )
    p.add_argument(
        "--base",
        metavar="REF",
        help="git ref of the base (default: the merge base of HEAD with the default branch; "
        "e.g. --base origin/main)",
    )
    common.add_backend_options(p)
    p.add_argument(
        "--runs",
        type=_runs,
        default=10,
        metavar="N|planned",
        help="runs per query on each side (at most 100), or planned: a pilot of 4, then the runs "
        f"`skillbench plan` gives for --effect at --power. {RUNS_POWER} (default 10; e.g. --runs "
        "planned)",
    )
    p.add_argument(
        "--effect",
        type=common.float_in(0.0, 1.0, low_open=True),
        default=0.15,
        help="the drop in a query's pass rate --runs planned is sized to detect (0.15)",
    )
    p.add_argument(
        "--affected",
        type=common.float_in(0.0, 1.0, low_open=True),
        default=1.0,
        help="share of the queries --effect hits, for --runs planned (1: every query)",
    )
    p.add_argument(
        "--power", type=common.float_in(0.5, 0.999), default=0.8, help="planned power (0.8)"
    )
    p.add_argument(
        "--alpha",
        type=common.float_in(0.0001, 0.5),
        default=0.05,
        help="significance level of the paired test (0.05)",
    )
    p.add_argument(
        "--aa",
        type=common.int_in(1, 1000),
        metavar="K",
        help="A/A calibration instead of a gate: K gates with base = head on fresh runs (a cache "
        "namespace of their own each), reporting the false-alarm rate with its interval",
    )
    p.add_argument(
        "--threshold", type=common.fraction_option(), default=0.5, help="pass threshold (0.5)"
    )
    p.add_argument("--seed", type=common.seed_option(), default=0, help="seed for the backend (0)")
    p.add_argument(
        "--timeout", type=common.timeout_option(), metavar="SECONDS", help="per-run timeout"
    )
    common.add_workers_option(p)
    common.add_catalog_option(p)
    common.add_harness_option(p)
    common.add_as_user_option(p)
    common.add_cache_options(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        help="report folder: gate_report.json and gate_report.html (default "
        "reports/gate/<UTC time>/; run inside the gated repository, under "
        "$XDG_DATA_HOME/skillbench/, default ~/.local/share/skillbench/: never into the repository)",
    )
    p.add_argument(
        "--format",
        dest="output_format",
        choices=FORMATS,
        default="text",
        help="text (default), json (the report), markdown (a PR comment: verdict first), or "
        "github (::error annotations, then the text)",
    )
    p.add_argument(
        "--junit", metavar="FILE", help="also write JUnit XML: the gate and one case per query"
    )
    common.add_cost_options(p)
    common.add_cluster_options(p)
    p.set_defaults(func=run)


def _runs(text: str) -> int | str:
    if text.strip().lower() == "planned":
        return "planned"
    return common.runs_option()(text)


def _options(args: argparse.Namespace) -> Any:
    from skillbench.gate.run import GateOptions
    from skillbench.trigger.options import TriggerOptions

    trigger = TriggerOptions(
        backend=args.backend,
        model=args.model,
        harness=args.harness,
        cache_before_query=args.cache_before_query,
        catalog_dir=common.catalog_dir(args.catalog),
        use_cache=not args.no_cache,
        cache_path=args.cache,
        cli_mode=args.cli_mode,
        as_user=args.as_user,
        seed=args.seed,
        workers=args.workers,
        timeout=args.timeout,
        threshold=args.threshold,
        max_cost=common.max_cost(args),
    )
    return GateOptions(
        trigger=trigger,
        runs=args.runs,
        effect=args.effect,
        affected=args.affected,
        power=args.power,
        alpha=args.alpha,
        evals_from=args.evals_from,
    )


def reports_root(skill_dir: str | Path) -> Path:
    """Where the gate's reports go by default: `reports/` in the working directory, unless the
    working directory lies in the git repository holding the skill (the gate never writes
    into the repository it gates unless asked with --out): then `skillbench/reports` in the
    user's data folder ($XDG_DATA_HOME, default ~/.local/share)."""
    import os

    from skillbench.gate.baseref import repo_root

    try:
        root = repo_root(skill_dir).resolve()
    except InputError:
        return Path("reports")  # no repository: nothing to keep clean (the gate refuses later)
    cwd = Path.cwd().resolve()
    if cwd != root and root not in cwd.parents:
        return Path("reports")
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "skillbench" / "reports"


def default_out(skill_dir: str | Path) -> Path:
    """<reports root>/gate/<UTC time>-<6 hex>/ (`reports_root`)."""
    import secrets
    from datetime import UTC, datetime

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return reports_root(skill_dir) / "gate" / f"{stamp}-{secrets.token_hex(3)}"


def run(args: argparse.Namespace) -> int:
    """Run the gate (or the A/A calibration) described by the parsed arguments."""
    import time

    from skillbench.aio import run_sync
    from skillbench.io import check_output
    from skillbench.reports.manifest import utc_now

    started = (utc_now(), time.monotonic())
    out = Path(args.out) if args.out else default_out(args.skill_dir)
    check_output(out / "gate_report.json", "--out")
    common.check_ci_options(args)
    common.check_harness(args.harness, args.backend, cache_before_query=args.cache_before_query)
    common.check_cli_mode(args.cli_mode, args.backend, args.harness)
    common.as_user_option(args.as_user, args.backend, args.harness)
    options = _options(args)
    if args.behavior:
        return _behavior(args, options, out, started)
    if args.evals is None:
        raise InputError("is required (or use --behavior)", path="--evals")
    if args.dry_run:
        return _dry_run(args, options)
    err = common.stderr_console()
    if args.aa:
        from skillbench.gate.aa import run_aa

        with common.progress_bar(err, f"A/A × {args.aa}") as on_progress:
            options.progress = on_progress
            aa = run_sync(lambda: run_aa(args.skill_dir, args.evals, options, args.aa))
        from skillbench.io import write_json

        out.mkdir(parents=True, exist_ok=True)
        write_json(out / "gate_aa.json", aa)
        if args.output_format == "json":
            sys.stdout.write(aa.model_dump_json(indent=2) + "\n")
        else:
            print(common.safe(aa.verdict_line))
        err.print(common.safe(f"report written to {out / 'gate_aa.json'}"), markup=False)
        if aa.cost is not None and aa.cost.stopped_at_cap:
            return EXIT_COST_CAP
        return EXIT_OK if aa.ok else EXIT_FAILED
    from skillbench.gate.run import run_gate

    with (
        common.cluster(args, args.backend),  # claude-code sessions on Ray (docs/cluster.md)
        common.progress_bar(err, "gate: base and head") as on_progress,
    ):
        options.progress = on_progress
        report = run_sync(lambda: run_gate(args.skill_dir, args.evals, options, base_ref=args.base))
    return emit(args, report, out, started)


def _behavior(
    args: argparse.Namespace, options: Any, out: Path, started: tuple[datetime, float]
) -> int:
    """`--behavior`: the plan (`--dry-run`) or the behavior gate, then `emit`."""
    import tempfile

    from skillbench.gate.behavior import BehaviorGate

    if args.aa:
        raise InputError("is for the trigger gate; it cannot be combined with --behavior",
                         path="--aa")  # fmt: skip
    if args.dry_run:  # the sides' copies go to a scratch folder: a dry run writes nothing
        with tempfile.TemporaryDirectory(prefix="skillbench-gate-plan-") as scratch:
            gate = BehaviorGate(args.skill_dir, options, scratch, evals=args.evals,
                                base_ref=args.base)  # fmt: skip
            if gate.base.folder is None:
                print(common.safe(f"no base: {args.skill_dir} does not exist at {gate.base.ref}"))
                return EXIT_OK
            common.check_plan(gate.plan(), options.trigger.max_cost, dry_run=True)
        return EXIT_OK
    gate = BehaviorGate(args.skill_dir, options, out, evals=args.evals, base_ref=args.base)
    err = common.stderr_console()
    err.print(common.safe(f"behavior gate: base and head run in {out / 'behavior'}"), markup=False)
    with common.cluster(args, args.backend, behavior=True):  # run_cases places the sessions
        report = gate.run()
    return emit(args, report, out, started)


def emit(args: argparse.Namespace, report: Any, out: Path, started: tuple[datetime, float]) -> int:
    """Write the report folder (with its manifest; indexed when it is `<root>/gate/<run>`),
    print in the chosen format, feed GitHub Actions; the exit code."""
    import time

    from skillbench.cli.ci_cases import gate_cases
    from skillbench.gate.output import (
        append_step_summary,
        index_report,
        markdown,
        set_outputs,
        write_manifest,
        write_report,
    )
    from skillbench.io import dumps_json

    write_report(report, out)
    comment = markdown(report, report_dir=out)
    common.emit_ci(args, "gate", gate_cases(report, args.evals), title="gate")
    write_manifest(report, out, parameters=_parameters(args), started=started[0],
                   wall_seconds=time.monotonic() - started[1])  # fmt: skip
    index = index_report(out)
    if args.output_format == "json":
        sys.stdout.write(dumps_json(report.to_json_dict()))
    elif args.output_format == "markdown":
        sys.stdout.write(comment)
    else:
        _print_text(report)
    append_step_summary(comment)
    set_outputs({"verdict": report.verdict, "report-dir": str(out)})
    err = common.stderr_console()
    for warning in report.warnings or []:
        err.print(common.safe(f"WARNING: {warning}"), style="bold red", markup=False)
    err.print(common.safe(f"report written to {out}"), markup=False)
    if index is not None:
        err.print(common.safe(f"reports index: {index}"), markup=False)
    if report.cost is not None and report.cost.stopped_at_cap:
        return EXIT_COST_CAP
    return EXIT_FAILED if report.verdict == "regressed" else EXIT_OK


def _parameters(args: argparse.Namespace) -> dict[str, Any]:
    """The command's options as the manifest records them (plain values only)."""
    plain = (str, int, float, bool, type(None))
    return {k: v for k, v in vars(args).items() if isinstance(v, plain)}


def _print_text(report: Any) -> None:
    from skillbench.gate.output import eval_set_lines
    from skillbench.reports.header import ReportHeader, header_lines
    from skillbench.schemas.cost import cost_lines

    console = common.console()
    if report.header:
        for line in header_lines(ReportHeader.model_validate(report.header)):
            console.print(common.safe(line), markup=False)
    else:
        console.print(common.safe(report.verdict_line), markup=False)
    lines = [
        f"base {report.base.ref} ({(report.base.commit or '?')[:12]}): {report.base.description}",
        f"head {report.head.ref} ({(report.head.commit or '?')[:12]}): {report.head.description}",
    ]
    if report.verdict != "no base":
        lines.append(
            f"{report.pairs} paired runs: {report.regressed} regressed, {report.improved} "
            f"improved, exact McNemar p = {report.p_value:.3g}; {report.mde_line}"
        )
    if report.query_level is not None:
        from skillbench.gate.output import query_level_line

        lines.append(query_level_line(report))
    lines.extend(
        f"eval set: {line}" if i == 0 else f"  {line}"
        for i, line in enumerate(eval_set_lines(report.eval_set, cell=False))
    )
    lines.extend(report.plan or [])
    for q in sorted(report.queries, key=lambda q: q.delta or 0)[:20]:
        if q.delta:
            lines.append(f"  {q.delta:+.2f}  {q.query}: {q.detail}")
    if report.scan is not None:
        lines.extend(report.scan.lines())
    if report.cost is not None:
        lines.extend(cost_lines(report.cost))
    for line in lines:
        console.print(common.safe(line), markup=False)


def _dry_run(args: argparse.Namespace, options: Any) -> int:
    """The plan and estimate of both sides (of every A/A repetition with --aa; the pilot's for
    --runs planned), cache hits free; no model call. Exit 3 above --max-cost."""
    from skillbench.gate.baseref import materialise
    from skillbench.gate.run import PILOT_RUNS, GateRun, _side, aa_seed

    gate = GateRun(args.skill_dir, args.evals, options)
    runs = PILOT_RUNS if options.runs == "planned" else int(options.runs)
    if args.aa:
        gate.choose_evals(None)
        seed = options.trigger.seed
        plan = gate.plan_many(
            [(gate.head, runs, (aa_seed(seed, k, "base"), aa_seed(seed, k, "head")))
             for k in range(args.aa)]
        )  # fmt: skip
    else:
        base = materialise(gate.skill_dir, args.base)
        base_side = None if base.folder is None else _side(base.folder)[0]
        if base.folder is not None:
            gate.choose_evals(base)
        plan = gate.plan(base_side, runs, (options.trigger.seed, options.trigger.seed))
    if options.runs == "planned":
        plan.lines.append(f"  --runs planned: this is the pilot ({PILOT_RUNS} runs); the plan "
                          "after it may add runs (`skillbench plan` says how many)")  # fmt: skip
    common.check_plan(plan, options.trigger.max_cost, dry_run=True)
    return EXIT_OK
