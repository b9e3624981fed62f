"""`skillbench field import|report|mine`: what real sessions recorded about skills.

`import` reads an agent's own session files (incrementally) into one record per user turn;
`report` gives per-skill exposure, proactive rates with intervals, slash share, late-slash
misses, starvation and competition; `mine` turns one skill's turns into trigger-eval rows to
confirm. Nothing is sent anywhere.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_OK


def register(subparsers: Any) -> None:
    """Add `field` and its subcommands."""
    from skillbench.field.importers import IMPORTERS

    parser = subparsers.add_parser(
        "field",
        help="field truth: trigger rates and eval rows from real sessions on this disk",
        description="Read the session files agents already write (Claude Code transcripts, Codex rollouts, Gemini CLI chats, the opencode database) into "
        "one record per user turn, report per skill how often it was offered and fired, and "
        "mine trigger-eval rows. Prompts are kept as hashes unless --with-text. Nothing is sent "
        "anywhere. Exit 0, or 2 on bad input.",
    )
    commands = parser.add_subparsers(dest="field_command", metavar="SUBCOMMAND", required=True)
    imp = commands.add_parser("import", help="session files → FIELD.jsonl (incremental)")
    imp.add_argument("agent", choices=sorted(IMPORTERS), help="whose sessions to read")
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
