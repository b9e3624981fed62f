"""`skillbench grade SKILL_DIR` and `skillbench benchmark SKILL_DIR` (behavior evals)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from skillbench import limits
from skillbench.cli import common
from skillbench.errors import EXIT_COST_CAP, EXIT_FAILED, EXIT_OK


def register(subparsers: Any) -> None:
    """Add the `grade` and `benchmark` subcommands."""
    from skillbench.backends.registry import DEFAULT_BACKEND, backends_where

    g = subparsers.add_parser(
        "grade",
        help="grade the workspace's runs (machine checks first, then a model grader)",
        description="Grade every run folder of the skill's workspace and write the gradings "
        "(seed 004 grading.json, seed 002 grading/*.json, seed 001 behavior_grading.json). With the "
        "local backend only machine-checkable expectations are graded; the rest are reported as "
        "UNGRADED. Exit 0 when every graded expectation passed, 1 when one failed or nothing "
        "was graded, 2 on bad input, 3 when refused or stopped by --max-cost.",
    )
    common.add_skill_dir(g, common.SKILL_WITH_EVALS_HELP)
    common.add_workspace_option(g, common.WORKSPACE_SHORT_HELP)
    graders = ", ".join(backends_where(lambda s: s.text_model is not None))
    common.add_backend_options(
        g, backend_help=f"{DEFAULT_BACKEND} (default), {graders}", model_help="grader model name"
    )
    g.add_argument(
        "--dialect",
        choices=["all", "skill-creator", "writing-skills"],
        default="all",
        help="which grading files to write (all)",
    )
    g.add_argument(
        "--force",
        action="store_true",
        help="replace gradings made by another grader (backend or model); without it such a "
        "grading is refused (exit 2, naming the file and both graders)",
    )
    g.add_argument(
        "--repeats",
        type=common.int_in(1, limits.MAX_GRADE_REPEATS),
        default=1,
        metavar="K",
        help="ask the model grader K times per run (1); the stored verdict is the majority "
        "(a tie fails), every verdict is recorded, K calls per run are planned and paid",
    )
    common.add_cache_options(g, cache_help="call cache file")
    common.add_cost_options(g)
    common.add_ci_options(g, json_format=False)
    g.set_defaults(func=run_grade)

    b = subparsers.add_parser(
        "benchmark",
        help="aggregate graded runs into benchmark.json (candidate minus baseline)",
        description="Write benchmark.json (seed 004 shape plus paired per-case differences with "
        "intervals, an expectation x configuration matrix, non-discriminating and flaky "
        "expectations). The delta is candidate minus baseline. Exit 0 when the mean paired "
        "difference is not negative, 1 when it is or when no case was run under both "
        "configurations (nothing to compare), 2 on bad input.",
    )
    common.add_skill_dir(b, common.SKILL_WITH_EVALS_HELP)
    common.add_workspace_option(b, common.WORKSPACE_SHORT_HELP)
    b.add_argument("--baseline", metavar="CONFIG", help="baseline configuration (baseline)")
    b.add_argument("--candidate", metavar="CONFIG", help="candidate configuration (with_skill)")
    b.add_argument("--out", metavar="FILE", help="output file (default <workspace>/benchmark.json)")
    common.add_ci_options(b, json_format=False)
    b.set_defaults(func=run_benchmark)


def run_grade(args: argparse.Namespace) -> int:
    """Grade the workspace; print per-configuration counts with the ungraded ones."""
    from rich.table import Table

    from skillbench.backends.registry import backend_spec, resolve_backend_name
    from skillbench.behavior.grade import grade_workspace_sync, plan_grade
    from skillbench.behavior.options import GradeOptions
    from skillbench.cost.plan import planning_cache

    cap = common.max_cost(args)
    common.check_ci_options(args)
    options = GradeOptions(
        backend=args.backend,
        model=args.model,
        dialect=args.dialect,
        use_cache=not args.no_cache,
        cache_path=args.cache,
        force=args.force,
        max_cost=cap,
        repeats=args.repeats,
    )
    if args.dry_run:
        with planning_cache(args.cache, enabled=not args.no_cache) as cache:
            plan = plan_grade(
                args.skill_dir,
                workspace=args.workspace,
                backend=resolve_backend_name(args.backend),
                model=args.model,
                cache=cache,
                repeats=args.repeats,
            )
        common.check_plan(plan, cap, dry_run=True)
        return EXIT_OK
    err = common.stderr_console()
    with common.progress_bar(err, "grading runs") as on_progress:
        summary = grade_workspace_sync(
            args.skill_dir, options, workspace=args.workspace, progress=on_progress
        )
    table = Table(title=f"grading ({summary.backend})", title_justify="left")
    for column in ("config", "case", "run", "passed", "graded", "ungraded", "pass rate"):
        table.add_column(column)
    failed = 0
    for r in summary.runs:
        rec = r.run.record
        failed += len(r.graded) - r.passed
        rate = "–" if r.pass_rate is None else f"{r.pass_rate:.2f}"
        table.add_row(
            common.safe_markup(rec.config),
            common.safe_markup(rec.case_id),
            str(rec.run_number),
            str(r.passed),
            str(len(r.graded)),
            str(len(r.ungraded)),
            rate,
        )
    from skillbench.behavior.workspace import evals_path
    from skillbench.cli.ci_cases import grade_cases

    evals = evals_path(args.skill_dir)
    cases = grade_cases(summary, evals if evals.is_file() else None)
    common.emit_ci(args, "grade", cases, title="grade")
    common.console().print(table)
    print(
        f"{summary.graded} expectations graded, {summary.ungraded} UNGRADED "
        f"(pass rates count graded ones only)"
    )
    for note in summary.notes:
        err.print(common.safe(f"note: {note}"), markup=False)
    for r in summary.runs:  # asked and paid, but unusable: the reason, never "no model"
        if r.grader_problem:
            rec = r.run.record
            where = f"{rec.config}/{rec.case_id}/run-{rec.run_number}"
            err.print(common.safe(f"UNGRADED {where}: {r.grader_problem}"), markup=False)
    skipped = {why for r in summary.runs for why in r.skipped.values()}
    for why in sorted(skipped):
        err.print(common.safe(f"not written: {why}"), markup=False)
    if summary.cost is not None and not backend_spec(summary.backend).offline:
        common.print_cost(summary.cost)
    if summary.stopped_at_cap:
        return EXIT_COST_CAP
    if summary.graded == 0:  # nothing could be measured: not a pass
        err.print("nothing was graded: no expectation could be decided (exit 1)", markup=False)
        return EXIT_FAILED
    return EXIT_OK if failed == 0 else EXIT_FAILED


def run_benchmark(args: argparse.Namespace) -> int:
    """Build and write benchmark.json; print the summary and the paired difference."""
    from skillbench.behavior.benchmark import paired_lines, write_benchmark
    from skillbench.behavior.verdicts import benchmark_header, delta_text, workspace_is_recorded
    from skillbench.behavior.workspace import Workspace
    from skillbench.io import check_output
    from skillbench.reports.header import header_lines

    if args.out:
        check_output(args.out, "--out")
    common.check_ci_options(args)
    err = common.stderr_console()
    with err.status("benchmark"):
        doc, path = write_benchmark(
            args.skill_dir,
            out=args.out,
            workspace=args.workspace,
            baseline=args.baseline,
            candidate=args.candidate,
        )
    extra = doc.model_extra or {}
    paired = extra.get("paired", {})
    out = common.console()
    from skillbench.cli.ci_cases import benchmark_cases

    common.emit_ci(args, "benchmark", benchmark_cases(paired, path), title="benchmark")
    recorded = workspace_is_recorded(Workspace.for_skill(args.skill_dir, args.workspace))
    for line in header_lines(benchmark_header(doc, backend=None, recorded=recorded)):
        out.print(common.safe(line), markup=False)
    mean = paired.get("mean_difference")
    if mean is None:  # the run_summary delta of two empty configurations is not "+0.00"
        delta = f"n/a (no case was run under both {paired.get('candidate')} and {paired.get('baseline')})"
    else:
        delta = delta_text(doc)
    out.print(f"delta ({extra['comparison']['delta']}): {delta}", markup=False)
    for line in paired_lines(paired):
        out.print(line, markup=False)
    out.print(
        f"non-discriminating expectations: {len(extra.get('non_discriminating', []))}; "
        f"flaky: {len(extra.get('flaky', []))}",
        markup=False,
    )
    for line in _grader_correction(args, path, paired):
        out.print(common.safe(line), markup=False)
    if extra.get("cost"):
        from skillbench.schemas.cost import CostBlock, cost_lines

        for line in cost_lines(CostBlock.model_validate(extra["cost"])):
            out.print(line, markup=False)
    err.print(f"benchmark written to {path}", markup=False)
    if mean is None:  # nothing could be compared: not a pass
        err.print("nothing to compare: no case was run under both configurations", markup=False)
        return EXIT_FAILED
    return EXIT_FAILED if mean < 0 else EXIT_OK


def _grader_correction(args: argparse.Namespace, path: Path, paired: dict[str, Any]) -> list[str]:
    """Corrected pass rates and delta beside the raw ones (or why they are provisional), also
    written into benchmark.json as `grader_calibration`."""
    from skillbench.calibration.correction import benchmark_correction
    from skillbench.io import read_json, write_json

    candidate, baseline = paired.get("candidate"), paired.get("baseline")
    if not candidate or not baseline:
        return []
    correction = benchmark_correction(
        args.skill_dir, (str(candidate), str(baseline)), workspace=args.workspace
    )
    data = read_json(path)
    data["grader_calibration"] = correction.as_json()
    write_json(path, data)
    return correction.lines()
