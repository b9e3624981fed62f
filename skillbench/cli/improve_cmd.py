"""`skillbench improve SKILL_DIR --evals FILE`: improve a description with a held-out test set."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench import limits
from skillbench.cli import common
from skillbench.errors import EXIT_COST_CAP, EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from skillbench.improve.loop import LoopResult, RoundEvent
    from skillbench.improve.options import ImproveOptions
    from skillbench.schemas.loop import LoopIteration


def register(subparsers: Any) -> None:
    """Add the `improve` subcommand."""
    from skillbench.backends.registry import DEFAULT_BACKEND, backends_where

    p = subparsers.add_parser(
        "improve",
        help="improve a skill's description: train / selection / test split, best by selection",
        description="Split the eval set (train for the improver, selection to pick the best round, "
        "test for reporting only), evaluate the original description, then propose, validate and "
        "evaluate candidates. Writes history.json, loop_summary.json and one trigger report per "
        "round to --out (refused when --out already holds files, unless --overwrite); prints each "
        "round's candidate description and its selection result. SKILL.md changes only with --apply. Warns when the selection split is too "
        "small for any round ever to be adopted. Exit 0 ok, 1 nothing measured (every run of the "
        "original errored) or the loop stopped on an error (the improver gave no usable reply "
        "twice, a round could not be evaluated; outputs so far written), 2 bad input, 3 refused "
        "or stopped by --max-cost (outputs so far written).",
    )
    common.add_skill_dir(p)
    p.add_argument("--evals", required=True, metavar="FILE", help="eval set (Format A or B)")
    common.add_backend_options(
        p,
        backend_help=f"{DEFAULT_BACKEND} (default, heuristic proposer), "
        + ", ".join(backends_where(lambda s: s.text_model is not None)),
    )
    common.add_agent_option(p)
    p.add_argument(
        "--rounds",
        type=common.int_in(1, limits.MAX_ROUNDS),
        default=5,
        help="evaluations incl. the original (5, at most 50)",
    )
    p.add_argument("--split", metavar="T,S,X", help="train,selection,test fractions (0.6,0.2,0.2)")
    p.add_argument(
        "--split-from",
        metavar="LOOP_SUMMARY",
        help="reuse the split recorded in a loop_summary.json (file or its folder) instead of "
        "drawing one; its queries must be exactly the eval set's",
    )
    p.add_argument(
        "--runs",
        type=common.runs_option(),
        default=limits.DEFAULT_RUNS,
        help=f"runs per query ({limits.DEFAULT_RUNS}, at most 100)",
    )
    p.add_argument(
        "--threshold", type=common.fraction_option(), default=0.5, help="pass threshold (0.5)"
    )
    p.add_argument(
        "--seed",
        type=common.seed_option(),
        default=0,
        help="backend seed, and split seed by default (0)",
    )
    p.add_argument("--split-seed", type=common.seed_option(), help="split seed (default: --seed)")
    common.add_workers_option(p)
    common.add_catalog_option(p)
    p.add_argument(
        "--library",
        metavar="DIR",
        help="interference-aware: the other skills of DIR compete (the catalog, unless --catalog "
        "is given) and their should-trigger queries are added as should-not-trigger queries, so "
        "a description that steals from a neighbour loses (default: none; e.g. --library skills/)",
    )
    common.add_harness_option(p)
    common.add_project_option(p)
    common.add_as_user_option(p)
    p.add_argument("--out", metavar="DIR", help="output folder (default improve-<skill name>)")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the files of an earlier run in --out (a non-empty --out is refused "
        "without it); a re-run answers the calls already made from the call cache, so this is "
        "how a run stopped by --max-cost resumes (default: off; e.g. --overwrite)",
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="write the chosen description to SKILL.md: the best round only if it beats the "
        "original on the selection split (one-sided exact McNemar, p < --adopt-alpha), else the "
        "file is left alone (default: off; e.g. --apply)",
    )
    p.add_argument(
        "--adopt-alpha",
        type=float,
        default=0.05,
        metavar="ALPHA",
        help="significance level of the adoption test (default 0.05; e.g. --adopt-alpha 0.1)",
    )
    common.add_cache_options(p)
    common.add_cost_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the loop described by the parsed arguments; returns the exit code."""
    from skillbench.errors import InputError
    from skillbench.improve.loop import DEFAULT_FRACTIONS
    from skillbench.improve.run import check_out_dir, improve_skill_sync, refuse_earlier_outputs
    from skillbench.improve.splits import parse_fractions

    if args.split_from is not None:
        for flag, value in (("--split", args.split), ("--split-seed", args.split_seed)):
            if value is not None:
                raise InputError("cannot be combined with --split-from", path=flag)
    fractions = parse_fractions(args.split) if args.split is not None else DEFAULT_FRACTIONS
    if not 0.0 <= args.threshold <= 1.0:
        raise InputError("must be between 0 and 1", path="--threshold")
    common.apply_agent(args)
    common.check_default_backend(args.backend)
    common.check_harness(args.harness, args.backend, cache_before_query=args.cache_before_query)
    common.check_cli_mode(args.cli_mode, args.backend, args.harness)
    common.project_option(args.project, args.backend, args.harness)
    common.as_user_option(args.as_user, args.backend, args.harness)
    if not 0.0 < args.adopt_alpha < 1.0:
        raise InputError("must be between 0 and 1 (exclusive)", path="--adopt-alpha")
    from skillbench.cli.trigger_cmd import trigger_options
    from skillbench.improve.options import ImproveOptions

    trigger = trigger_options(args)
    options = ImproveOptions(
        trigger=trigger,
        rounds=args.rounds,
        fractions=fractions,
        split_seed=args.split_seed,
        split_from=args.split_from,
        adopt_alpha=args.adopt_alpha,
        library_dir=args.library,
    )
    if args.dry_run:
        return _dry_run(args, options)
    out = Path(args.out) if args.out else default_out(args.skill_dir)
    check_out_dir(out, label="--out")
    if not args.overwrite:
        refuse_earlier_outputs(out, label="--out")
    result = improve_skill_sync(
        args.skill_dir, args.evals, options, out=out, apply=args.apply, progress=_print_event
    )
    _print_result(result, out)
    steals = result.summary.neighbour_steals
    if steals is not None:
        from skillbench.library.neighbours import steal_lines

        for line in steal_lines(steals):
            print(common.safe(line))
    cost = result.summary.cost
    if cost is not None and cost.stopped_at_cap:
        return EXIT_COST_CAP
    return EXIT_FAILED if result.failure or not result.measured else EXIT_OK


def _dry_run(args: argparse.Namespace, options: ImproveOptions) -> int:
    """Print the plan and the estimate (and, on stderr, a selection split too small to ever
    adopt); no model call. Exit 3 when it exceeds the cap."""
    from skillbench.aio import run_sync
    from skillbench.improve.run import improve_warnings, plan_improve

    plan = run_sync(lambda: plan_improve(args.skill_dir, args.evals, options))
    for warning in improve_warnings(args.evals, options, skill_dir=args.skill_dir):
        _warn(warning)
    common.check_plan(plan, options.trigger.max_cost, dry_run=True)
    return EXIT_OK


def _warn(text: str) -> None:
    common.stderr_console().print(common.safe(f"WARNING: {text}"), style="bold red", markup=False)


def _print_event(event: RoundEvent) -> None:
    if event.stage == "warning":
        _warn(event.message)
    elif event.stage in {"candidate", "evaluated", "stopped"}:
        print(common.safe(event.message), file=sys.stderr, flush=True)


def _rates(it: LoopIteration) -> str:
    return (
        f"selection {it.selection_passed}/{it.selection_total} {_ci(it.selection_ci)}, "
        f"test {it.test_passed}/{it.test_total} {_ci(it.test_ci)}, "
        f"train {it.train_passed}/{it.train_total}"
    )


def _print_result(result: LoopResult, out: Path) -> None:
    summary = result.summary
    best, chosen, original = result.best, result.chosen, summary.iterations[0]
    settings = summary.settings
    if settings is not None and settings.proposer_is_heuristic:
        print(
            "note: DEMO proposer: the local backend rewrites descriptions with an offline "
            "word-mining heuristic, not a model; its candidates show the method, not good prose",
            file=sys.stderr,
        )
    print(f"original (round {original.round}): {_rates(original)}")
    print(f"  {summary.original_description}")
    print(f"best round {best.round} (chosen on the selection split; test used for no decision)")
    adoption = summary.adoption
    if adoption is not None:
        print(common.safe(f"adoption: {adoption.reason}"))
        print(f"  rule: {adoption.rule} (alpha {adoption.alpha:g})")
    print(f"chosen (round {chosen.round}): {_rates(chosen)}")
    print(common.safe(f"  {chosen.description}"))
    from skillbench.schemas.cost import cost_lines, format_dollars

    for it in summary.iterations:
        if it.cost is not None:
            print(
                f"  round {it.round} cost: {format_dollars(it.cost.dollars)} "
                f"(calls {it.cost.calls}, cache hits {it.cost.cache_hits})"
            )
    if summary.cost is not None:
        for line in cost_lines(summary.cost):
            print(line)
    if summary.stop_reason:
        print(common.safe(f"stopped: {summary.stop_reason}"))
    if result.failure:
        print(common.safe(f"ERROR: {result.failure}"), file=sys.stderr)
    if not result.measured:
        print("ERROR: every run of the original errored: nothing was measured", file=sys.stderr)
    print(common.safe(f"outputs in {out}"))
    if result.applied:
        print("SKILL.md updated with the chosen description")
    elif chosen.description == summary.original_description:
        print("SKILL.md unchanged: the original description is kept")


def _ci(ci: list[float] | list[int] | None) -> str:
    return "" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def default_out(skill_dir: str | Path) -> Path:
    """`improve-<name>` in the working directory: the frontmatter name when it makes one folder
    name, else the skill folder's name (a name such as `../x` or `/tmp/x` is never a path)."""
    from skillbench.backends.skill_install import usable_folder_name
    from skillbench.skill import Skill

    name = f"improve-{Skill.load(skill_dir).name}"
    if usable_folder_name(name):
        return Path(name)
    return Path(f"improve-{os.path.basename(os.path.abspath(skill_dir))}")
