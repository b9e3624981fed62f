"""`skillbench validate PATH...`: the static validator (seed-001 output with --json).

Exit codes: 0 every skill valid, 1 any skill invalid, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.cli import common
from skillbench.errors import EXIT_FAILED, EXIT_OK, InputError

if TYPE_CHECKING:
    from skillbench.schemas.validation import ValidationReport


def register(subparsers: Any) -> None:
    """Add the `validate` subcommand."""
    parser = subparsers.add_parser(
        "validate",
        help="check skill folders against the Agent Skills / Claude Code frontmatter rules",
        description="Validate skill folders. A PATH without SKILL.md whose subfolders hold skills "
        "is validated as a library. Exit 0 all valid, 1 any invalid, 2 usage or I/O error.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="skill folder or library folder")
    parser.add_argument("--json", action="store_true", help="print seed-001 JSON only")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="UNKNOWN_KEYS, MISSING_RECOMMENDED_KEY and README_PRESENT become errors",
    )
    parser.add_argument(
        "--profile",
        choices=["agentskills", "claude-code"],
        default="claude-code",
        help="allowed frontmatter keys: the open standard or Claude Code (default)",
    )
    parser.add_argument(
        "--library", action="store_true", help="treat every PATH as a folder of skills"
    )
    parser.set_defaults(func=run)


def _library_skills(path: Path, forced: bool) -> list[Path] | None:
    """The skill folders of `path` when it is validated as a library, else None.

    A library is a folder without SKILL.md that holds skills further down, or any PATH under
    --library (`forced`), which must then be a folder holding skills.
    """
    from skillbench.skill import find_skills

    if not forced and (not path.is_dir() or (path / "SKILL.md").exists()):
        return None
    if not path.is_dir():
        raise InputError("library folder does not exist or is not a folder", path=path)
    skills = find_skills(path)
    if skills:
        return skills
    if forced:
        raise InputError("no skill folders (with a SKILL.md) found", path=path)
    return None


def collect(args: argparse.Namespace) -> tuple[list[ValidationReport], bool]:
    """The reports for every PATH, and whether the JSON output must be an array."""
    from skillbench.validate.rules import validate_skill

    reports: list[ValidationReport] = []
    as_array = len(args.paths) > 1
    for raw in args.paths:
        path = Path(raw)
        skills = _library_skills(path, args.library)
        if skills is None:
            reports.append(validate_skill(path, profile=args.profile, strict=args.strict))
        else:
            as_array = True
            reports.extend(
                validate_skill(p, profile=args.profile, strict=args.strict) for p in skills
            )
    return reports, as_array


def _print_human(reports: list[ValidationReport]) -> None:
    from rich.console import Console
    from rich.table import Table

    from skillbench.validate.rules import summary_frame

    console = Console()
    for report in reports:
        status = "[green]valid[/]" if report.valid else "[red]invalid[/]"
        findings = [*report.errors, *report.warnings]
        if not findings:
            console.print(f"{common.safe_markup(report.skill_path)}: {status}, no findings")
            continue
        path = common.safe_markup(report.skill_path)
        table = Table(title=f"{path}: {status}", title_justify="left")
        table.add_column("level")
        table.add_column("code")
        table.add_column("message", overflow="fold")
        for finding in findings:
            colour = "red" if finding.level == "error" else "yellow"
            table.add_row(
                f"[{colour}]{finding.level}[/]",
                common.safe_markup(finding.code),
                common.safe_markup(finding.message),
            )
        console.print(table)
    summary = Table(title="summary", title_justify="left")
    for column in ("skill", "valid", "errors", "warnings"):
        summary.add_column(column)
    for row in summary_frame(reports).itertuples(index=False):
        summary.add_row(
            common.safe_markup(row.skill),
            "yes" if row.valid else "no",
            str(row.errors),
            str(row.warnings),
        )
    console.print(summary)


def run(args: argparse.Namespace) -> int:
    """Validate, print JSON or tables, return the exit code."""
    from skillbench.io import dumps_json

    reports, as_array = collect(args)
    if args.json:
        data = [r.to_json_dict() for r in reports]
        sys.stdout.write(dumps_json(data if as_array else data[0]))
    else:
        _print_human(reports)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_FAILED
