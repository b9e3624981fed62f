"""`skillbench validate PATH...`: the static validator (seed-001 output with --json, a library
summary, GitHub Actions annotations with --format github).

Exit codes: 0 every skill valid, 1 any skill invalid, 2 usage or I/O error, or a PATH that does
not exist or is not a folder (bad input: its report is still printed, with SKILL_DIR_MISSING or
SKILL_PATH_NOT_DIR).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.cli import common
from skillbench.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, InputError

if TYPE_CHECKING:
    from skillbench.validate.output import Labelled


def register(subparsers: Any) -> None:
    """Add the `validate` subcommand."""
    from skillbench.backends.spec import OPEN_STANDARD, default_skill_profile, skill_profiles

    declared = skill_profiles()  # each agent's profile, as its backend's spec declares it
    chosen = default_skill_profile()
    others = [name for name in declared if name != chosen]
    parser = subparsers.add_parser(
        "validate",
        help="check skill folders against the Agent Skills / Claude Code frontmatter rules",
        description="Validate skill folders. A PATH without SKILL.md whose subfolders hold skills "
        "is validated as a library (hidden folders such as .claude/skills included; .git and "
        "node_modules skipped) and summarised. Exit 0 all valid, 1 any invalid, 2 usage or "
        "I/O error or a PATH that does not exist or is not a folder.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="skill folder or library folder")
    parser.add_argument(
        "--format",
        choices=["text", "json", "github"],
        default="text",
        help="text summary (default), seed-001 JSON, or GitHub Actions annotations",
    )
    parser.add_argument(
        "--json",
        dest="format",
        action="store_const",
        const="json",
        help="print seed-001 JSON only (same as --format json)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list every finding of every skill"
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="UNKNOWN_KEYS, MISSING_RECOMMENDED_KEY and README_PRESENT become errors",
    )
    spec = declared.get(chosen)
    title = next((x.agent for x in (spec.skill_keys, spec.skill_limits) if x), "") if spec else ""
    default = f"{title}'s keys (default)" if title else ""
    parser.add_argument(
        "--profile",
        choices=[OPEN_STANDARD, *declared],
        default=chosen,
        help=f"the open standard (description required{'' if default else '; default'}), "
        f"{default + ', ' if default else ''}or another agent's: {', '.join(others)} "
        "(the standard's keys and that agent's limits)",
    )
    parser.add_argument(
        "--library", action="store_true", help="treat every PATH as a folder of skills"
    )
    parser.set_defaults(func=run)


def _library_skills(path: Path, forced: bool) -> list[Path] | None:
    """The skill folders of `path` when it is validated as a library, else None.

    A library is a folder without SKILL.md (neither file nor link) that holds skills further
    down, or any PATH under --library (`forced`), which must then be a folder holding skills.
    """
    from skillbench.skill import SKILL_MD, find_skills

    if not forced and (not path.is_dir() or os.path.lexists(path / SKILL_MD)):
        return None
    if not path.is_dir():
        raise InputError("library folder does not exist or is not a folder", path=path)
    skills = find_skills(path)
    if skills:
        return skills
    if forced:
        raise InputError("no skill folders (with a SKILL.md) found", path=path)
    return None


def collect(args: argparse.Namespace) -> tuple[list[Labelled], bool, list[tuple[str, str]]]:
    """The labelled reports for every PATH, whether the output is a library/several paths
    (JSON array, summary) rather than one skill (JSON object, details), and the linked skill
    folders reported once as aliases of their target: (alias label, target label)."""
    from skillbench.skill import skill_aliases
    from skillbench.validate.output import Labelled, relative_label
    from skillbench.validate.rules import validate_skill

    items: list[Labelled] = []
    aliases: list[tuple[str, str]] = []
    several = len(args.paths) > 1
    for raw in args.paths:
        path = Path(raw)
        skills = _library_skills(path, args.library)
        if skills is None:
            report = validate_skill(path, profile=args.profile, strict=args.strict)
            items.append(Labelled(report, raw))
            continue
        several = True

        def label_of(folder: Path, raw: str = raw, path: Path = path) -> str:
            label = relative_label(folder, path)
            return (Path(raw) / label).as_posix() if len(args.paths) > 1 else label

        for folder in skills:
            report = validate_skill(folder, profile=args.profile, strict=args.strict, root=path)
            items.append(Labelled(report, label_of(folder)))
        aliases.extend(
            (label_of(alias), label_of(target)) for alias, target in skill_aliases(path).items()
        )
    return items, several, aliases


def run(args: argparse.Namespace) -> int:
    """Validate, print JSON, annotations or a summary, return the exit code."""
    from skillbench.io import dumps_json
    from skillbench.validate.output import detail_lines, github_annotations, summary_lines

    items, several, aliases = collect(args)
    reports = [item.report for item in items]
    if args.format == "json":
        data = [r.to_json_dict() for r in reports]
        sys.stdout.write(dumps_json(data if several else data[0]))
    elif args.format == "github":
        lines = github_annotations(reports)
        lines.append(summary_lines(items)[0])
        sys.stdout.write(common.safe("\n".join(lines)) + "\n")
    else:
        lines = (
            summary_lines(items, verbose=args.verbose, aliases=aliases)
            if several
            else detail_lines(items[0])
        )
        sys.stdout.write(common.safe("\n".join(lines)) + "\n")
    missing = [item for item in items if _not_a_folder(item.report)]
    for item in missing:
        why = "does not exist" if _codes(item.report) & {"SKILL_DIR_MISSING"} else "is not a folder"
        print(common.safe(f"skillbench: error: {item.label}: {why}"), file=sys.stderr)
    if missing:  # a PATH the user gave that is no folder is bad input, not an invalid skill
        return EXIT_USAGE
    return EXIT_OK if all(r.valid for r in reports) else EXIT_FAILED


_NOT_A_FOLDER = frozenset({"SKILL_DIR_MISSING", "SKILL_PATH_NOT_DIR"})


def _codes(report: Any) -> set[str]:
    return {finding.code for finding in report.errors}


def _not_a_folder(report: Any) -> bool:
    """Whether the report is about a PATH that does not exist or is not a folder."""
    return bool(_codes(report) & _NOT_A_FOLDER)
