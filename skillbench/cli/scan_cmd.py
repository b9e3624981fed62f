"""`skillbench scan PATH`: secrets, hidden text, injected instructions, risky scripts and risky
frontmatter in a skill (or every skill of a library) before anyone runs it.

Exit codes: 0 no error-level finding, 1 any, 2 bad input (a PATH that is no folder or holds no
skill, an --out that cannot be written).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_FAILED, EXIT_OK


def register(subparsers: Any) -> None:
    """Add the `scan` subcommand."""
    parser = subparsers.add_parser(
        "scan",
        help="scan a skill or library for secrets, hidden text, injected instructions and "
        "risky scripts",
        description="Scan a skill folder, or every skill of a library (a folder without "
        "SKILL.md holding skills further down), for supply-chain risks: secrets "
        "(detect-secrets), hidden Unicode text, injected instructions, risky scripts and risky "
        "frontmatter. A library gets a summary first. Exit 0 no error-level finding, 1 any, 2 "
        "bad input.",
    )
    parser.add_argument("path", metavar="PATH", help="skill folder or library folder")
    parser.add_argument(
        "--format",
        choices=["text", "json", "sarif"],
        default="text",
        help="text (default), the scan report as JSON, or SARIF 2.1.0 for GitHub code scanning",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write the --format output here, atomically, and print the text summary "
        "(default: print the output; e.g. --out scan.sarif --format sarif)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Scan, print or write the chosen format, return the exit code."""
    from skillbench.io import atomic_write_text, check_output, dumps_json
    from skillbench.scan.output import report_lines
    from skillbench.scan.sarif import sarif_document
    from skillbench.scan.scan import scan_path

    if args.out:
        check_output(args.out, "--out")
    report = scan_path(args.path)
    text = common.safe("\n".join(report_lines(report))) + "\n"
    if args.format == "json":
        document = dumps_json(report.model_dump(mode="json"))
    elif args.format == "sarif":
        document = dumps_json(sarif_document(report))
    else:
        document = text
    if args.out:
        atomic_write_text(args.out, document)
        sys.stdout.write(text)
        print(common.safe(f"{args.format} written to {args.out}"), file=sys.stderr)
    else:
        sys.stdout.write(document)
    return EXIT_FAILED if report.has_errors else EXIT_OK
