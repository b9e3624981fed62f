"""Pieces the subcommand modules share: option blocks, argument types, consoles, progress bar.

Not a subcommand module (its name does not end in ``_cmd``); rich is imported lazily.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

SKILL_DIR_HELP = "folder holding SKILL.md"
SKILL_WITH_EVALS_HELP = "folder holding SKILL.md and evals/"
WORKSPACE_HELP = "workspace folder (default <skill>-workspace)"
WORKSPACE_SHORT_HELP = "workspace (default <skill>-workspace)"
BACKEND_HELP = "local (default), anthropic, claude-code; or $SKILLBENCH_BACKEND"
MODEL_HELP = "model name for the backend"
CACHE_HELP = "call cache file (default .skillbench/…)"
CATALOG_HELP = (
    "competing skills: a folder of skills, `installed` = what Claude Code loads for you "
    "(~/.claude/skills, this project's .claude/skills, enabled plugins), or `none`"
)

ProgressCallback = Callable[[int, int], None]


def add_skill_dir(parser: argparse.ArgumentParser, help: str = SKILL_DIR_HELP) -> None:
    """The positional SKILL_DIR argument."""
    parser.add_argument("skill_dir", metavar="SKILL_DIR", help=help)


def add_workspace_option(parser: argparse.ArgumentParser, help: str = WORKSPACE_HELP) -> None:
    """`--workspace DIR` (default: the `<skill>-workspace` folder beside the skill)."""
    parser.add_argument("--workspace", metavar="DIR", help=help)


def add_backend_options(
    parser: argparse.ArgumentParser,
    *,
    backend_help: str = BACKEND_HELP,
    model_help: str = MODEL_HELP,
) -> None:
    """`--backend NAME` and `--model NAME`."""
    parser.add_argument("--backend", help=backend_help)
    parser.add_argument("--model", help=model_help)


def add_cache_options(parser: argparse.ArgumentParser, *, cache_help: str = CACHE_HELP) -> None:
    """`--no-cache` and `--cache PATH` (the call cache)."""
    parser.add_argument(
        "--no-cache", action="store_true", help="do not read or write the call cache"
    )
    parser.add_argument("--cache", metavar="PATH", help=cache_help)


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def catalog_dir(arg: str | None) -> str:
    """The `--catalog` value: a folder, `installed` or `none` (the default: never a folder found
    in the working directory)."""
    return arg if arg is not None and arg.strip() else "none"


def add_harness_option(parser: argparse.ArgumentParser) -> None:
    """`--harness replay|minimal` (the anthropic backend's trigger harness)."""
    parser.add_argument(
        "--harness",
        choices=("replay", "minimal"),
        help="anthropic backend only: `replay` = Claude Code's own request, captured once with "
        "the installed claude CLI; `minimal` = skillbench's imitation, not Claude Code's request "
        "(default replay)",
    )


def check_harness(harness: str | None, backend: str | None) -> None:
    """`--harness` is the anthropic backend's option: refuse it for any other backend."""
    if harness is None:
        return
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.errors import InputError

    name = resolve_backend_name(backend)
    if name != "anthropic":
        raise InputError(
            f"applies to --backend anthropic only (the backend is {name!r})", path="--harness"
        )


def add_catalog_option(parser: argparse.ArgumentParser) -> None:
    """`--catalog DIR|installed|none`."""
    parser.add_argument(
        "--catalog", metavar="DIR|installed|none", default="none", help=CATALOG_HELP
    )


def stderr_console() -> Console:
    """The console for progress, notes and warnings (stderr, no highlighting)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


@contextmanager
def progress_bar(console: Console, description: str) -> Iterator[ProgressCallback]:
    """A transient `done/planned` progress bar on `console`; yields the callback to feed it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = progress.add_task(description, total=None)

    def on_progress(done: int, planned: int) -> None:
        progress.update(task, completed=done, total=planned)

    with progress:
        yield on_progress
