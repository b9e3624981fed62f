"""`skillbench samples [DIR]`: copy the sample data (skills, catalog, eval sets, a library,
recorded runs) into a folder of the user's, so the README tour runs as written from any folder
after installing the wheel (which carries the data as package data), writing into the copy and
never into the checkout or the installed package.

Exit codes: 0 copied, 2 bad input (DIR exists, or no sample data is found).
"""

from __future__ import annotations

import argparse
from typing import Any

from skillbench.errors import EXIT_OK, InputError

DEFAULT_DIR = "data"


def register(subparsers: Any) -> None:
    """Add the `samples` subcommand."""
    parser = subparsers.add_parser(
        "samples",
        help="copy the sample skills, catalog, eval sets and runs into a folder (for the tour)",
        description="Copy skillbench's sample data (data/: skills, catalog, evals, library, "
        "runs; from the checkout or the installed wheel) into DIR, so the README tour's "
        "`data/...` paths work in any folder and its commands write into the copy. Exit 0 "
        "copied, 2 bad input (DIR already exists: nothing is overwritten).",
    )
    parser.add_argument(
        "dir",
        metavar="DIR",
        nargs="?",
        default=DEFAULT_DIR,
        help=f"the new folder (default {DEFAULT_DIR}; e.g. tour/data)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Copy the sample data into the new folder `args.dir` and say where."""
    import shutil
    from pathlib import Path

    from skillbench.reports.paths import project_root

    target = Path(args.dir)
    if target.exists() or target.is_symlink():
        raise InputError("already exists: nothing was copied (name a new folder)", path=target)
    root = project_root()
    source = root / "data" if root is not None else None
    if source is None or not (source / "skills").is_dir():
        raise InputError("no sample data found (neither a checkout nor an installed wheel)",
                         path="data")  # fmt: skip
    partial = target.with_name(f".{target.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, ignore=shutil.ignore_patterns("*-workspace", "__pycache__"))
    partial.rename(target)  # all or nothing: a failed copy leaves no half-filled DIR
    print(f"sample data copied to {target} (from {source})")
    return EXIT_OK
