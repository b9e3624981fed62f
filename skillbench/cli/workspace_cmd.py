"""`skillbench init SKILL_DIR` and `skillbench snapshot SKILL_DIR`: the versioned behavior workspace;
`skillbench init --trigger SKILL_DIR`: a trigger eval set to fill in (`init_trigger`)."""

from __future__ import annotations

import argparse
from typing import Any

from skillbench.cli import common
from skillbench.cli.init_trigger import OUT_HELP, TRIGGER_HELP, run_init_trigger
from skillbench.errors import EXIT_OK, InputError


def register(subparsers: Any) -> None:
    """Add the `init` and `snapshot` subcommands."""
    p = subparsers.add_parser(
        "init",
        help="create evals/evals.json (if missing) and the <skill>-workspace with snapshot v0",
        description="Create <skill>/evals/evals.json when missing (one example case to edit), and "
        "the workspace beside the skill: v0/skill/ (a snapshot), grading/ and history.json. "
        "Idempotent; never overwrites an existing snapshot. With --trigger: write a trigger "
        "eval set to fill in instead (never over an existing file).",
    )
    common.add_skill_dir(p)
    p.add_argument("--trigger", action="store_true", help=TRIGGER_HELP)
    p.add_argument("--out", metavar="FILE", help=OUT_HELP)
    common.add_workspace_option(p)
    p.add_argument(
        "--dialect",
        choices=("writing-skills", "skill-creator"),
        default="writing-skills",
        help="history.json dialect: seed 002 versions[] (default) or seed 004 iterations[]",
    )
    common.add_max_copy_option(p)
    p.set_defaults(func=run_init)

    s = subparsers.add_parser(
        "snapshot",
        help="copy the current skill into the next version v<N+1>",
        description="Copy the skill folder into v<N+1>/skill/, record its git commit (null when "
        "the skill has uncommitted changes or no repository) and vN's average grading score.",
    )
    common.add_skill_dir(s)
    common.add_workspace_option(s)
    s.add_argument("--description", metavar="TEXT", help="what this version changes")
    common.add_max_copy_option(s)
    s.set_defaults(func=run_snapshot)


def run_init(args: argparse.Namespace) -> int:
    """Create or confirm the workspace (with --trigger: write a trigger eval set to fill in)."""
    from skillbench.behavior.workspace import init_workspace

    if args.trigger:
        return run_init_trigger(args)
    if args.out:
        raise InputError("applies only with --trigger", path="--out")

    err = common.stderr_console()
    result = init_workspace(
        args.skill_dir, args.workspace, dialect=args.dialect, max_copy=args.max_copy
    )
    for path in result.created:
        err.print(common.safe(f"created {path}"), markup=False)
    for warning in result.warnings:
        err.print(
            common.safe(f"warning: evals/evals.json: {warning}"), style="yellow", markup=False
        )
    if result.already_initialised:
        err.print(
            common.safe(f"workspace already initialised: {result.workspace.root}"), markup=False
        )
    else:
        err.print(common.safe(f"workspace ready: {result.workspace.root}"), markup=False)
    if any(p.name == "evals.json" for p in result.created):
        err.print(
            "evals/evals.json holds ONE EXAMPLE case: replace it with real cases before "
            "`skillbench run`",
            style="bold yellow",
            markup=False,
        )
    return EXIT_OK


def run_snapshot(args: argparse.Namespace) -> int:
    """Snapshot the skill into the next version."""
    from skillbench.behavior.workspace import Workspace, snapshot

    err = common.stderr_console()
    version = snapshot(
        args.skill_dir, args.workspace, description=args.description, max_copy=args.max_copy
    )
    root = Workspace.for_skill(args.skill_dir, args.workspace).root
    commit = version.git_hash or "null (uncommitted changes or no git repository)"
    err.print(
        common.safe(f"snapshot {version.label} → {root / (version.path or '')}"), markup=False
    )
    err.print(f"git commit: {commit}", markup=False)
    return EXIT_OK
