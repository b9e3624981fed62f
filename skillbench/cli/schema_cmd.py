"""`skillbench schema check|convert|export`: validate, convert and describe JSON documents."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from skillbench.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, InputError


def register(subparsers: Any) -> None:
    """Add `schema` and its subcommands."""
    parser = subparsers.add_parser("schema", help="check, convert and export document schemas")
    commands = parser.add_subparsers(dest="schema_command", metavar="SUBCOMMAND")

    check = commands.add_parser("check", help="validate JSON files (kind and dialect detected)")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--json", action="store_true", help="print a JSON list, nothing else")
    check.set_defaults(func=run_check)

    convert = commands.add_parser("convert", help="convert a document to another dialect")
    convert.add_argument("file", metavar="FILE")
    convert.add_argument("--to", required=True, dest="to_dialect", metavar="DIALECT")
    convert.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    convert.set_defaults(func=run_convert)

    export = commands.add_parser("export", help="write one JSON Schema file per document type")
    export.add_argument("directory", metavar="DIR")
    export.set_defaults(func=run_export)

    parser.set_defaults(func=lambda _args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def run_check(args: argparse.Namespace) -> int:
    """Check every file; exit 0 all valid, 1 any invalid (a broken rule, not JSON, or not a known
    document), 2 when a file cannot be read at all."""
    from skillbench.schemas import CheckResult, check

    results: list[CheckResult] = []
    unreadable = False
    for name in args.files:
        path = Path(name)
        shown = display_path(name)
        if not path.is_file() or not os.access(path, os.R_OK):
            unreadable = True
            reason = "file not found" if not path.exists() else "not a readable file"
            results.append(CheckResult(shown, None, None, False, [f"{shown}: {reason}"]))
            continue
        try:
            result = check(name)
        except InputError as exc:  # readable, but not JSON or not a document skillbench knows
            results.append(CheckResult(shown, None, None, False, [str(exc)]))
            continue
        result.path = shown
        results.append(result)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False))
    else:
        _print_table(results)
    if unreadable:
        return EXIT_USAGE
    return EXIT_OK if all(r.valid for r in results) else EXIT_FAILED


def display_path(name: str | Path, cwd: str | Path | None = None) -> str:
    """A file name as shown: in full, relative to the working directory when it lies below it,
    else absolute."""
    absolute = os.path.abspath(name)
    relative = os.path.relpath(absolute, os.path.abspath(cwd or os.getcwd()))
    return absolute if relative == ".." or relative.startswith(".." + os.sep) else relative


def _print_table(results: list[Any]) -> None:
    """One block per file (never cut): path, kind (dialect), verdict; then its notes indented;
    then a totals line."""
    lines: list[str] = []
    for r in results:
        what = f"{r.kind} ({r.dialect})" if r.kind else "?"
        lines.append(f"{r.path}  {what}  {'valid' if r.valid else 'INVALID'}")
        lines.extend(f"  error: {e}" for e in r.errors)
        lines.extend(f"  warning: {w}" for w in r.warnings)
    invalid = sum(not r.valid for r in results)
    lines.append(f"{len(results)} files: {len(results) - invalid} valid, {invalid} invalid")
    sys.stdout.write("\n".join(lines) + "\n")


def run_convert(args: argparse.Namespace) -> int:
    """Convert one file; losses go to stderr, the document to OUT (atomically) or stdout."""
    from skillbench.schemas import DIALECTS, convert, dumps, load, write

    if args.to_dialect not in DIALECTS:
        raise InputError(
            f"unknown dialect {args.to_dialect!r} (known: {', '.join(DIALECTS)})",
            field="--to",
            rule="known-dialect",
        )
    try:
        result = convert(load(args.file), args.to_dialect)
    except InputError as exc:
        if exc.path is None:
            raise InputError(exc.detail, path=args.file, field=exc.field, rule=exc.rule) from None
        raise
    for loss in result.losses:
        print(f"loss: {loss}", file=sys.stderr)
    if args.output:
        write(result.model, args.output)
    else:
        sys.stdout.write(dumps(result.model))
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    """Export the JSON Schemas and list the written files on stderr."""
    from skillbench.schemas import export_schemas

    for path in export_schemas(args.directory):
        print(path, file=sys.stderr)
    return EXIT_OK
