"""Pieces the subcommand modules share: option blocks, argument types, consoles, progress bar.

Not a subcommand module (its name does not end in ``_cmd``); rich is imported lazily.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from skillbench.backends.budget import Budget
    from skillbench.backends.cost_report import CostPlan

SKILL_DIR_HELP = "folder holding SKILL.md"
SKILL_WITH_EVALS_HELP = "folder holding SKILL.md and evals/"
WORKSPACE_HELP = "workspace folder (default <skill>-workspace)"
WORKSPACE_SHORT_HELP = "workspace (default <skill>-workspace)"
BACKEND_HELP = "local (default), anthropic, claude-code; or $SKILLBENCH_BACKEND"
MODEL_HELP = "model name for the backend"
CACHE_HELP = "call cache file (default .skillbench/…)"
DEFAULT_CATALOG = Path("data/catalog")

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


def add_cost_options(parser: argparse.ArgumentParser) -> None:
    """`--dry-run` and `--max-cost USD` (or $SKILLBENCH_MAX_COST)."""
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="make no model call: print the plan and the estimated calls, tokens and dollars "
        "(what the call cache holds counts as free); exit 3 if it exceeds --max-cost",
    )
    parser.add_argument(
        "--max-cost",
        metavar="USD",
        help="refuse to start when the estimate exceeds USD, stop starting calls when the spend "
        "reaches it (exit 3, results so far written; a re-run resumes from the cache); "
        "default $SKILLBENCH_MAX_COST",
    )


def max_cost(args: argparse.Namespace) -> float | None:
    """The parsed cap of `--max-cost` / $SKILLBENCH_MAX_COST (InputError naming it if bad)."""
    from skillbench.backends.budget import parse_max_cost

    return parse_max_cost(getattr(args, "max_cost", None))


def print_plan(lines: list[str]) -> None:
    """A dry run's plan and estimate, on stdout."""
    import sys

    for line in lines:
        print(line, file=sys.stdout)


def check_plan(plan: CostPlan, cap: float | None, *, dry_run: bool) -> None:
    """Every model of the plan must have a price (exit 2 naming --model); a dry run prints the
    plan; an estimate above the cap is refused (CostCapError, exit 3)."""
    from skillbench.backends.cost_report import check_cap, require_price

    for line in plan.planned:
        require_price(line.estimator)
    if dry_run:
        print_plan(plan.text())
    check_cap(plan.estimate, cap)


def print_cost(budget: Budget) -> None:
    """The actual cost block of a run (stderr)."""
    import sys

    from skillbench.backends.cost_report import price_table_date
    from skillbench.schemas.cost import cost_lines

    for line in cost_lines(budget.block(as_of=price_table_date())):
        print(line, file=sys.stderr)


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def catalog_dir(arg: str | None) -> Path | None:
    """The `--catalog` folder, else data/catalog when it exists, else None."""
    if arg is not None:
        return Path(arg)
    return DEFAULT_CATALOG if DEFAULT_CATALOG.is_dir() else None


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
