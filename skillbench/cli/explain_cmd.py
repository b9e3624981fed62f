"""`skillbench explain SKILL_DIR --evals FILE --query TEXT`: what the model did instead.

Reads the runs of one query that `skillbench trigger` (with the same options) stored in the call
cache and shows each run's first move and how the target was listed; no model call. Exit 2
when no run of the query is cached, naming the command that would make them.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_OK, EXIT_USAGE


def register(subparsers: Any) -> None:
    """Add the `explain` subcommand."""
    p = subparsers.add_parser(
        "explain",
        help="why a query did (not) trigger: each cached run's first move, no new call",
        description="Show, from the call cache and with no model call, what the model did in "
        "each run of one query of a trigger eval: called the target, another skill (with its "
        "description), another tool (with its input) or answered in text; and whether the "
        "request listed the target in full, by name only or not at all. Give the options the "
        "trigger eval ran with (backend, model, harness, catalog, runs, seed, cache). Exit 0, "
        "or 2 on bad input or when no run of the query is cached.",
    )
    common.add_skill_dir(p)
    p.add_argument("--evals", required=True, metavar="FILE", help="eval set (Format A or B)")
    p.add_argument(
        "--query",
        required=True,
        type=common.text_value,
        metavar="TEXT",
        help="the query's text, as in the eval set",
    )
    common.add_backend_options(p)
    p.add_argument(
        "--runs",
        type=_runs,
        default=4,
        metavar="N|auto",
        help="runs per query of the trigger eval (4; auto looks up --max-runs)",
    )
    p.add_argument("--max-runs", type=common.runs_option(), default=10, help="of --runs auto (10)")
    p.add_argument("--seed", type=common.seed_option(), default=0, help="of the trigger eval (0)")
    p.add_argument(
        "--description",
        type=common.text_value,
        metavar="TEXT",
        help="the candidate description the eval ran with, if not SKILL.md's",
    )
    common.add_catalog_option(p)
    common.add_harness_option(p)
    common.add_project_option(p)
    common.add_as_user_option(p)
    p.add_argument("--cache", metavar="PATH", help=common.CACHE_HELP)
    p.add_argument("--json", action="store_true", help="print the explanation JSON on stdout")
    p.set_defaults(func=run)


def _runs(text: str) -> int | str:
    if text.strip().lower() == "auto":
        return "auto"
    return common.runs_option()(text)


def run(args: argparse.Namespace) -> int:
    """Explain the query; 0, or 2 when none of its runs is cached."""
    from skillbench.aio import run_sync
    from skillbench.cli.trigger_cmd import trigger_options
    from skillbench.io import dumps_json
    from skillbench.trigger.explain import explain_query, explanation_lines

    common.check_harness(args.harness, args.backend, cache_before_query=args.cache_before_query)
    common.check_cli_mode(args.cli_mode, args.backend, args.harness)
    common.project_option(args.project, args.backend, args.harness)
    common.as_user_option(args.as_user, args.backend, args.harness)
    options = trigger_options(args, cache_path=args.cache)
    found = run_sync(
        lambda: explain_query(
            args.skill_dir, args.evals, args.query, options, description=args.description
        )
    )
    if found.cached_runs == 0:
        print(
            f"skillbench: error: --query: no run of this query is in the call cache (no call is "
            f"made here); run the trigger eval first: {trigger_command(args)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.json:
        sys.stdout.write(dumps_json(found.model_dump(mode="json")))
        return EXIT_OK
    console = common.console()
    for line in explanation_lines(found):
        console.print(common.safe(line), markup=False)
    return EXIT_OK


def trigger_command(args: argparse.Namespace) -> str:
    """The `skillbench trigger` command that makes (and caches) the runs explained here."""
    words = ["skillbench", "trigger", args.skill_dir, "--evals", args.evals]
    for flag, value in (
        ("--backend", args.backend),
        ("--model", args.model),
        ("--harness", args.harness),
        ("--catalog", None if args.catalog == "none" else args.catalog),
        ("--runs", None if args.runs == 4 else args.runs),
        ("--max-runs", None if args.max_runs == 10 else args.max_runs),
        ("--seed", args.seed or None),
        ("--description", args.description),
        ("--project", args.project),
        ("--as-user", args.as_user),
        ("--cache", args.cache),
    ):
        if value is not None:
            words += [flag, str(value)]
    if args.cache_before_query:
        words.append("--cache-before-query")
    return shlex.join(words)
