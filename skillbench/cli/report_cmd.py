"""`skillbench report NOTEBOOK [-p NAME VALUE]...`, `skillbench report list` and `skillbench demo`."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_FAILED, EXIT_OK, InputError
from skillbench.io import check_output


def parse_value(text: str, name: str = "VALUE") -> Any:
    """A parameter value as YAML (like papermill's -p/-y): 3, 0.5, true, null, text, or a flow
    list or map (whether the parameter accepts it is checked against the notebook's default).

    Parsed with the same bounds as SKILL.md frontmatter (size, nesting depth, aliases); a
    key-shaped value is refused (it would be written into the report's notebook).
    """
    import yaml

    from skillbench.redaction import looks_secret
    from skillbench.skill import YamlBoundError, load_yaml_bounded

    if looks_secret(text):
        raise InputError(
            "looks like an API key; secrets come from the environment, never from parameters",
            path=f"-p {name}",
        )
    if text in ("None", "none"):
        return None
    try:
        value = load_yaml_bounded(text)
    except YamlBoundError as exc:
        raise InputError(str(exc).replace("frontmatter", "the value"), path=f"-p {name}") from None
    except (yaml.YAMLError, ValueError, TypeError):  # not YAML: the text itself
        return text
    return text if value is None and text.strip() not in ("null", "~", "Null", "NULL") else value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `report` and `demo` subcommands."""
    report = subparsers.add_parser(
        "report",
        help="run a notebook into a report folder (or `report list`)",
        description="Execute notebooks/NOTEBOOK.ipynb (or a .ipynb path) with papermill into "
        "OUT/<notebook>/<UTC time>-<id>/ and print that folder. `skillbench report list` lists "
        "the finished report folders. Exit 0 ok, 1 the notebook failed or its verdict is ✗ "
        "(`report diff`: an item regressed, or nothing in common), 2 bad input.",
    )
    report.add_argument(
        "notebook",
        metavar="NOTEBOOK",
        help="notebook name or path, or `list`, `diff`, `params` (e.g. trigger_eval)",
    )
    report.add_argument(
        "paths",
        nargs="*",
        metavar="A B",
        help="with `diff`: two trigger (or benchmark) reports, as JSON files or report folders "
        "(e.g. reports/trigger_eval/latest reports/trigger_eval/20260101T000000Z-abc123); "
        "with `params`: one notebook (e.g. report params trigger_eval)",
    )
    report.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="with `diff`: significance level of the paired test (default 0.05; e.g. --alpha 0.1)",
    )
    report.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a notebook parameter; VALUE is parsed as YAML (3, 0.5, true, null, text; "
        "'[a, b]' for a list) and must fit the type of the notebook's default, else exit 2 "
        "before anything runs (repeatable; e.g. -p runs 2 -p skills '[csv-cleanup]')",
    )
    report.add_argument("--out", default="reports", metavar="DIR", help="report root (reports)")
    report.add_argument(
        "--from",
        dest="from_report",
        metavar="FILE",
        help="with trigger_eval: render this existing trigger report (a `trigger --out` JSON or "
        "a report folder) without re-running it; its cost states what it was first paid",
    )
    report.add_argument(
        "--timeout",
        type=common.timeout_option(),
        default=600.0,
        metavar="SECONDS",
        help="per-cell timeout (600, at most 3600)",
    )
    report.set_defaults(func=_report)

    demo = subparsers.add_parser(
        "demo",
        help="run every demo notebook offline with its defaults",
        description="Run each notebook of skillbench.reports.DEMO_NOTEBOOKS with its default "
        "parameters and print every report folder and its HTML. The notebooks are independent: "
        "--jobs of them run at once (each in its own kernel).",
    )
    demo.add_argument("--out", default="reports", metavar="DIR", help="report root (reports)")
    demo.add_argument(
        "--jobs",
        type=common.positive_int,
        default=default_jobs(),
        metavar="N",
        help=f"notebooks run at once (CPU cores + 1, at most 3: here {default_jobs()})",
    )
    demo.set_defaults(func=_demo)


FROM_NOTEBOOK = "trigger_eval"
FROM_PARAM = "from_report"
"""The notebook `--from` renders an existing result with, and its parameter."""


def _from_report(notebook: str, path: str, params: dict[str, Any]) -> dict[str, Any]:
    """`--from FILE` as the trigger_eval notebook's parameter, once the file is known to be a
    trigger report (InputError, exit 2, before any kernel starts)."""
    from skillbench.trigger.stored import read_trigger_report, trigger_report_file

    if Path(notebook).stem != FROM_NOTEBOOK:
        raise InputError(f"renders a trigger report: only with {FROM_NOTEBOOK}", path="--from")
    if FROM_PARAM in params:
        raise InputError(f"given twice, with -p {FROM_PARAM}", path="--from")
    read_trigger_report(path)
    return {FROM_PARAM: str(trigger_report_file(path).resolve())}


def _report(args: argparse.Namespace) -> int:
    from skillbench.reports.runner import list_reports, run_notebook

    if args.notebook == "diff":
        return _diff(args)
    if args.notebook == "params":
        return _params(args)
    if args.paths:
        raise InputError(
            f"unexpected arguments {' '.join(args.paths)!r} (only `report diff A B` takes paths)",
            field="NOTEBOOK",
        )
    if args.notebook == "list":
        if args.parameter:
            raise InputError("`report list` takes no parameters", field="-p")
        found = list_reports(args.out)
        for folder, manifest in found:
            when = f"{manifest.started_utc:%Y-%m-%d %H:%M:%S}Z"
            print(common.safe(f"{manifest.status:7} {when}  {folder}"))
        if not found:
            print(common.safe(f"no reports under {args.out} (run `skillbench report NOTEBOOK`)"))
        return EXIT_OK
    check_output(args.out, "--out", folder=True)
    params: dict[str, Any] = {}
    for name, value in args.parameter:
        if name in params:
            raise InputError("given twice", field=f"-p {name}")
        params[name] = parse_value(value, name)
    if args.from_report is not None:
        params.update(_from_report(args.notebook, args.from_report, params))
    result = run_notebook(args.notebook, params, out_root=args.out, timeout=args.timeout)
    print(common.safe(result.folder))
    header = result.manifest.header
    if header is not None:
        from skillbench.reports.header import mark

        print(common.safe(f"{mark(header.ok)} {header.verdict}"))
    if not result.ok:
        _print_failure(result.folder, result.manifest.error)
        return EXIT_FAILED
    return (
        EXIT_FAILED if header is not None and header.ok is False else EXIT_OK
    )  # ✗: the check failed


def notebook_parameters(notebook: str) -> list[dict[str, str]]:
    """A notebook's parameters as papermill reads them: name, default, type, the comment."""
    import papermill

    from skillbench.reports.runner import resolve_notebook

    path = resolve_notebook(notebook)
    try:
        inspected = papermill.inspect_notebook(str(path))
    except Exception as exc:  # nbformat / JSON errors: the file is unusable
        raise InputError(f"cannot read notebook: {type(exc).__name__}", path=path) from None
    return [
        {
            "name": name,
            "default": str(info.get("default", "")),
            "type": _type_name(info),
            "help": str(info.get("help") or ""),
        }
        for name, info in inspected.items()
    ]


def _type_name(info: dict[str, Any]) -> str:
    """The annotation papermill read, else the type of the default literal (None: any)."""
    import ast

    annotated = str(info.get("inferred_type_name") or "None")
    if annotated != "None":
        return annotated
    try:
        value = ast.literal_eval(str(info.get("default", "")))
    except (ValueError, SyntaxError):
        return "any"
    return "any" if value is None else type(value).__name__


def _params(args: argparse.Namespace) -> int:
    if len(args.paths) != 1:
        raise InputError("needs one notebook: skillbench report params NOTEBOOK", field="params")
    if args.parameter:
        raise InputError("`report params` takes no parameters", field="-p")
    rows = notebook_parameters(args.paths[0])
    if not rows:
        print(f"{args.paths[0]}: no parameters cell")
        return EXIT_OK
    set_by = {"report_dir": "set by the report runner (not a -p parameter)"}
    table = [("name", "default", "type", "comment")] + [
        (r["name"], r["default"], r["type"], r["help"] or set_by.get(r["name"], "")) for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for row in table:
        cells = [row[i].ljust(widths[i]) for i in range(3)]
        print(common.safe("  ".join([*cells, row[3]]).rstrip()))
    return EXIT_OK


def default_jobs() -> int:
    """Demo notebooks run at once by default: one more than the cores, at most three (a
    kernel waits on start-up and I/O part of the time; on two cores three beat two by 10–20 %)."""
    return max(1, min(3, (os.cpu_count() or 1) + 1))


def _diff(args: argparse.Namespace) -> int:
    from skillbench.reports.diff import diff_header, diff_reports, diff_rows
    from skillbench.reports.header import header_lines, yes_no

    if len(args.paths) != 2:
        raise InputError("needs exactly two reports: skillbench report diff A B", field="diff")
    if args.parameter:
        raise InputError("`report diff` takes no parameters", field="-p")
    if not 0.0 < args.alpha < 1.0:
        raise InputError("must be between 0 and 1 (exclusive)", field="--alpha")
    from skillbench.library.diff import is_library_report

    if any(is_library_report(p) for p in args.paths):
        return _library_diff(args)
    diff = diff_reports(args.paths[0], args.paths[1], alpha=args.alpha)
    print("\n".join(header_lines(diff_header(diff))))
    for warning in diff.warnings:
        print(common.safe(f"WARNING: {warning}"))
    for note in diff.notes:
        print(f"note: {note}")
    changed = diff_rows(diff, changed_only=True)
    if changed:
        print("changed:")
        for row in changed:
            print(
                f"  {row['change']:9}  A {yes_no(row['A pass']):3} → B {yes_no(row['B pass']):3}"
                f"  {row['item']}"
            )
    else:
        print("changed: none")
    # a CI gate: any item that regressed, or nothing in common to compare, is not a pass
    return EXIT_FAILED if diff.regressed > 0 or diff.paired == 0 else EXIT_OK


def _demo(args: argparse.Namespace) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from skillbench.reports.index import write_index
    from skillbench.reports.runner import DEMO_NOTEBOOKS, demo_parameters, run_notebook

    check_output(args.out, "--out", folder=True)
    status = EXIT_OK
    # absolute before any thread starts: papermill changes the process's working directory
    # while a notebook runs, and the notebooks run in parallel
    out = Path(args.out).resolve()
    with ThreadPoolExecutor(max_workers=args.jobs, thread_name_prefix="skillbench-demo") as pool:
        futures = [
            pool.submit(run_notebook, name, demo_parameters(name), out_root=out)
            for name in DEMO_NOTEBOOKS
        ]
        results = [future.result() for future in futures]  # printed in DEMO_NOTEBOOKS order
    # Each notebook rewrote the index as it finished; two finishing together may each have
    # missed the other, so write it once more now that all are done.
    if out.is_dir():
        write_index(out)
    for name, result in zip(DEMO_NOTEBOOKS, results, strict=True):
        print(f"{name}: {'ok' if result.ok else 'FAILED'}")
        print(common.safe(f"  folder: {result.folder}"))
        if result.html is not None:
            print(common.safe(f"  html:   {result.html}"))
        if not result.ok:
            _print_failure(result.folder, result.manifest.error)
            status = EXIT_FAILED
    index = out / "index.html"
    if index.is_file():
        print(f"index of every report, newest first: {index}")
    return status


def _print_failure(folder: Path, error: Any) -> None:
    import sys

    where = f" in cell {error.cell_index}" if error and error.cell_index is not None else ""
    detail = f"{error.type}: {error.message}" if error else "unknown error"
    message = f"skillbench: notebook failed{where}: {detail} (see {folder})"
    print(common.safe(message), file=sys.stderr)


def _library_diff(args: argparse.Namespace) -> int:
    """Two library reports: per skill, the queries passing only in A or only in B (McNemar,
    Holm across skills); exit 1 when any query regressed or nothing is in common."""
    from skillbench.library.diff import diff_library_reports, diff_lines

    diff = diff_library_reports(args.paths[0], args.paths[1])
    for line in diff_lines(diff, args.alpha):
        print(common.safe(line))
    return EXIT_FAILED if diff.failed() else EXIT_OK
