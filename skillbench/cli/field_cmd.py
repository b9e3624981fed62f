"""`skillbench field import|report|mine`: what real sessions recorded about skills.

`import` reads an agent's own session files (incrementally) into one record per user turn;
`report` gives per-skill exposure, proactive rates with intervals, slash share, late-slash
misses, starvation and competition; `mine` turns one skill's turns into trigger-eval rows to
confirm; `check` replays the recorded turns through a backend and reports the agreement of the
lab's first move with the field's. Only `check` sends anything (after its plan).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_COST_CAP, EXIT_OK


def register(subparsers: Any) -> None:
    """Add `field` and its subcommands."""
    from skillbench.field.importers import importer_names

    parser = subparsers.add_parser(
        "field",
        help="field truth: trigger rates and eval rows from real sessions on this disk",
        description="Read the session files agents already write (Claude Code transcripts, Codex rollouts, Gemini CLI chats, the opencode database) into "
        "one record per user turn, report per skill how often it was offered and fired, and "
        "mine trigger-eval rows; check replays each recorded turn with its listing (the lab vs the "
        "field). Prompts are kept as hashes unless --with-text. Only check sends anything, after "
        "its plan. Exit 0, 2 on bad input, 3 over --max-cost.",
    )
    commands = parser.add_subparsers(dest="field_command", metavar="SUBCOMMAND", required=True)
    imp = commands.add_parser("import", help="session files → FIELD.jsonl (incremental)")
    imp.add_argument("agent", choices=sorted(importer_names()), help="whose sessions to read")
    imp.add_argument(
        "--projects",
        metavar="DIR",
        help="the sessions folder (default: the agent's own: ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp, ~/.local/share/opencode)",
    )
    imp.add_argument("--since", metavar="AGE", help="only turns newer than this (30d, 12h, 90m)")
    imp.add_argument(
        "--with-text",
        action="store_true",
        help="keep each prompt's text, redacted (needed by mine)",
    )
    imp.add_argument("--out", required=True, metavar="FILE", help="the field file, appended to")
    imp.set_defaults(func=run_import)

    rep = commands.add_parser("report", help="per-skill field rates of a FIELD.jsonl")
    rep.add_argument("field_file", metavar="FIELD.jsonl", help="made by `field import`")
    rep.add_argument(
        "--floor", type=common.positive_int, default=20, help="exposed turns for a verdict (20)"
    )
    rep.add_argument("--json", action="store_true", help="print the report JSON on stdout")
    rep.add_argument("--out", metavar="DIR", help="also write field_report.json into this folder")
    rep.set_defaults(func=run_report)

    mine = commands.add_parser("mine", help="one skill's turns → trigger-eval rows to confirm")
    mine.add_argument(
        "field_file", metavar="FIELD.jsonl", help="made by `field import --with-text`"
    )
    mine.add_argument("--skill", required=True, type=common.text_value, help="the skill's name")
    mine.add_argument("--out", required=True, metavar="FILE", help="the eval set (Format B)")
    mine.set_defaults(func=run_mine)

    check = commands.add_parser(
        "check", help="replay each recorded turn with its listing: does the lab predict the field?"
    )
    check.add_argument(
        "field_file", metavar="FIELD.jsonl", help="made by `field import claude --with-text`"
    )
    common.add_backend_options(check)
    common.add_harness_option(check)
    common.add_cache_options(check)
    common.add_workers_option(check)
    common.add_cost_options(check)
    check.add_argument("--seed", type=int, default=0, help="the replay's seed (0)")
    check.add_argument("--json", action="store_true", help="print the agreement JSON on stdout")
    check.set_defaults(func=run_check)


def run_import(args: argparse.Namespace) -> int:
    """Import; prints what was read and skipped."""
    from skillbench.field.importers import ImportOptions
    from skillbench.field.importing import import_sessions, parse_since

    since = parse_since(args.since) if args.since else None
    root = Path(args.projects).expanduser() if args.projects else None
    counts = import_sessions(
        args.agent, Path(args.out), root=root, options=ImportOptions(args.with_text, since)
    )
    print(
        f"{counts.turns} turns from {counts.files} files ({counts.files_unchanged} unchanged); "
        f"{counts.lines} lines, {counts.malformed_lines} malformed and "
        f"{counts.truncated_tails} unfinished skipped; {counts.turns_before_since} turns before "
        f"--since; appended to {common.safe(args.out)}"
    )
    return EXIT_OK


def run_report(args: argparse.Namespace) -> int:
    """Report; text, or JSON with --json."""
    from skillbench.field.report import field_report_lines, read_field_report
    from skillbench.io import check_output, dumps_json, write_json

    if args.out:
        check_output(args.out, "--out", folder=True)
    report = read_field_report(args.field_file, floor=args.floor)
    if args.out:
        write_json(Path(args.out) / "field_report.json", report)
    if args.json:
        sys.stdout.write(dumps_json(report.model_dump(mode="json")))
        return EXIT_OK
    for line in field_report_lines(report):
        print(common.safe(line))
    return EXIT_OK


def run_mine(args: argparse.Namespace) -> int:
    """Mine; writes the eval set atomically."""
    from skillbench.field.load import field_records
    from skillbench.field.mine import mine_rows
    from skillbench.io import check_output, write_json

    check_output(args.out, "--out")
    document = mine_rows(field_records(Path(args.field_file)), args.skill, source=args.field_file)
    write_json(args.out, document)
    rows = document["evals"]
    positives = sum(1 for row in rows if row["should_trigger"])
    print(
        f"{len(rows)} rows for {common.safe(args.skill)} ({positives} proposed should-trigger, "
        f"{len(rows) - positives} should-not); every label is to confirm; wrote "
        f"{common.safe(args.out)}"
    )
    return EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    """Check: the plan first (printed; --dry-run stops there), --max-cost refused before any
    call (exit 3), then the replays and their agreement with the recorded first moves."""
    import asyncio

    from skillbench.backends.base import TriggerOutcome
    from skillbench.backends.registry import default_workers, resolve_backend_name
    from skillbench.cost.budget import CAP_ERROR, Budget
    from skillbench.cost.plan import existing_cache
    from skillbench.field.check import agreement, agreement_lines, check_turns, plan_check, replay
    from skillbench.io import dumps_json
    from skillbench.trigger.options import TriggerOptions
    from skillbench.trigger.stack import judge_stack

    common.check_harness(args.harness, args.backend, cache_before_query=args.cache_before_query)
    cap = common.max_cost(args)
    turns = check_turns(Path(args.field_file), seed=args.seed)
    options = TriggerOptions(
        backend=args.backend,
        model=args.model,
        harness=args.harness,
        cache_before_query=args.cache_before_query,
        seed=args.seed,
        use_cache=not args.no_cache,
        cache_path=args.cache,
        max_cost=cap,
    )
    name, judge_options = resolve_backend_name(options.backend), options.judge_options()
    planning = existing_cache(options.cache_path, enabled=options.use_cache)
    try:
        plan = plan_check(
            turns, name, model=options.model, judge_options=judge_options, cache=planning
        )
    finally:
        if planning is not None:
            planning.close()
    common.check_plan(plan, cap, dry_run=args.dry_run)
    if args.dry_run:
        return EXIT_OK
    for line in plan.text():  # the plan first, on stderr (stdout holds the result)
        print(common.safe(line), file=sys.stderr)
    workers = args.workers or default_workers(options.backend)
    options = options.but(workers=workers)
    budget = Budget(cap)

    async def run() -> list[TriggerOutcome]:
        async with judge_stack(options, budget) as stack:  # the stack every trigger eval uses
            return await replay(turns, stack.judge, workers=workers)

    outcomes = asyncio.run(run())
    result = agreement(turns, outcomes)
    common.print_cost(budget)
    if args.json:
        sys.stdout.write(dumps_json(result.model_dump(mode="json")))
    else:
        for line in agreement_lines(result):
            print(common.safe(line))
    if any(o.error == CAP_ERROR for o in outcomes):
        print("stopped at the cost cap (--max-cost): the rest counted as failed", file=sys.stderr)
        return EXIT_COST_CAP
    return EXIT_OK
