"""Pieces the subcommand modules share: option blocks, argument types, consoles, progress bar.

Not a subcommand module (its name does not end in ``_cmd``); rich is imported lazily.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench import limits

if TYPE_CHECKING:
    from rich.console import Console

    from skillbench.cost.budget import Budget
    from skillbench.cost.plan import CostPlan
    from skillbench.schemas.cost import CostBlock

SKILL_DIR_HELP = "folder holding SKILL.md"
SKILL_WITH_EVALS_HELP = "folder holding SKILL.md and evals/"
WORKSPACE_HELP = "workspace folder (default <skill>-workspace)"
WORKSPACE_SHORT_HELP = "workspace (default <skill>-workspace)"
MODEL_HELP = "model name for the backend"
CACHE_HELP = "call cache file (default $SKILLBENCH_CACHE, else ~/.cache/skillbench/cache.sqlite)"
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
    backend_help: str | None = None,
    model_help: str = MODEL_HELP,
) -> None:
    """`--backend NAME` and `--model NAME` (the backends listed from their specs)."""
    from skillbench.backends.registry import backend_choices

    parser.add_argument("--backend", help=backend_help or backend_choices())
    parser.add_argument("--model", type=model_name, help=model_help)


def add_agent_option(parser: argparse.ArgumentParser, side: str = "") -> None:
    """`--agent NAME`: the backend replaying that agent's own request (`apply_agent`), the
    agents listed from their specs. With `side` ("a" / "b", the agreement command's),
    `--agent-a NAME` sets `--backend-a`."""
    from skillbench.backends.registry import agent_choices

    flag = f"--agent-{side}" if side else "--agent"
    backend = f"--backend-{side}" if side else "--backend"
    help_text = (
        f"the agent whose own first request is replayed: {agent_choices()} (see "
        f"docs/agents.md); sets {backend} (default: none, {backend} decides); e.g. {flag} opencode"
    )
    parser.add_argument(flag, metavar="NAME", type=text_value, help=help_text)


def apply_agent(args: argparse.Namespace, side: str = "") -> None:
    """Set `args.backend` (`args.backend_<side>`) from `--agent` (`--agent-<side>`); InputError,
    exit 2, for an unknown agent or one that contradicts the backend option."""
    suffix = f"_{side}" if side else ""
    agent = getattr(args, f"agent{suffix}", None)
    if not agent:
        return
    from skillbench.backends.registry import agent_backend, resolve_backend_name
    from skillbench.errors import InputError

    dash = f"-{side}" if side else ""
    try:
        backend = agent_backend(agent)
    except InputError as exc:  # name the option given
        raise InputError(exc.detail, path=f"--agent{dash}") from None
    given = getattr(args, f"backend{suffix}", None)
    if given and resolve_backend_name(given) != backend:
        message = f"--agent{dash} {agent} replays on the {backend} backend"
        raise InputError(message, path=f"--backend{dash}")
    setattr(args, f"backend{suffix}", backend)


def check_default_backend(backend: str | None) -> None:
    """No backend named (no `--backend`, `--agent` or `$SKILLBENCH_BACKEND`) and the default
    one (the offline `local` embedder) needs an extra that is not installed (a core install):
    InputError, exit 2, saying what to install or which backend to name, before anything runs."""
    import os

    from skillbench.backends.registry import BACKEND_ENV, DEFAULT_BACKEND, backend_spec
    from skillbench.backends.spec import all_specs
    from skillbench.errors import InputError
    from skillbench.extras import install_hint, missing_package

    if backend or os.environ.get(BACKEND_ENV):
        return
    extra = backend_spec(DEFAULT_BACKEND).extra
    package = missing_package(extra) if extra else None
    if extra and package is not None:
        usable = [  # the backends a core install runs, as their specs say what each needs
            f"--backend {s.name} ("
            + (s.key_variable or (f"the {s.cli} CLI" if s.cli else "offline, nothing to install"))
            + ")"
            for s in sorted(all_specs().values(), key=lambda s: s.name)
            if s.name != DEFAULT_BACKEND and s.extra is None and (s.judge or s.harnesses)
        ]
        named = ", ".join(usable[:-1]) + f" or {usable[-1]}" if len(usable) > 1 else "".join(usable)
        raise InputError(
            f"no backend named, and the default ({DEFAULT_BACKEND}) needs {package}, which is "
            f"not installed: {install_hint(extra)}, or name a backend: {named}",
            path="--backend",
        )


def text_value(text: str) -> str:
    """An argparse type: text that is valid Unicode (argv bytes that are not UTF-8 arrive as
    lone surrogates, which no model request or report could carry)."""
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise argparse.ArgumentTypeError("is not valid UTF-8 text (undecodable bytes)")
    return text


def model_name(text: str) -> str:
    """An argparse type: a model name, never a credential (it would land in reports)."""
    from skillbench.redaction import looks_secret

    text_value(text)
    if looks_secret(text):
        raise argparse.ArgumentTypeError(
            "looks like an API key, not a model name; keys come from the environment "
            "(ANTHROPIC_API_KEY), never from options"
        )
    return text


def add_cache_options(parser: argparse.ArgumentParser, *, cache_help: str = CACHE_HELP) -> None:
    """`--no-cache` and `--cache PATH` (the call cache)."""
    parser.add_argument(
        "--no-cache", action="store_true", help="do not read or write the call cache"
    )
    parser.add_argument("--cache", metavar="PATH", help=cache_help)


def add_confidence_option(parser: argparse.ArgumentParser) -> None:
    """`--confidence`: the confidence of every interval a trigger-style report states."""
    parser.add_argument(
        "--confidence",
        type=float_in(0.5, 0.9999),
        default=0.95,
        help="interval confidence (0.95)",
    )


def add_workers_option(parser: argparse.ArgumentParser) -> None:
    """`--workers N`: calls in flight, handed to the backend (None: the default its spec says)."""
    from skillbench.backends.registry import workers_help

    parser.add_argument("--workers", type=workers_option(), metavar="N", help=workers_help())


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
    from skillbench.cost.budget import parse_max_cost

    return parse_max_cost(getattr(args, "max_cost", None))


def print_plan(lines: list[str]) -> None:
    """A dry run's plan and estimate, on stdout."""
    import sys

    for line in lines:
        print(line, file=sys.stdout)


def check_plan(plan: CostPlan, cap: float | None, *, dry_run: bool) -> None:
    """Every model of the plan must have a price (exit 2 naming --model); a dry run prints the
    plan; an estimate above the cap is refused (CostCapError, exit 3)."""
    from skillbench.cost.limit import refuse_plan
    from skillbench.cost.plan import require_price

    for line in plan.planned:
        require_price(line.estimator)
    if dry_run:
        print_plan(plan.text())
    refuse_plan(plan, cap)


def print_cost(cost: Budget | CostBlock) -> None:
    """The actual cost block of a run (stderr): a budget's so far, or a summary's."""
    import sys

    from skillbench.cost.budget import Budget
    from skillbench.cost.prices import price_table_date
    from skillbench.schemas.cost import cost_lines

    block = cost.block(as_of=price_table_date()) if isinstance(cost, Budget) else cost
    for line in cost_lines(block):
        print(line, file=sys.stderr)


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1 (no upper cap; prefer `int_in`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer, got {_shown(text)}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {_shown(text)}")
    return value


def _shown(text: str) -> str:
    """An option value as shown in an error: repr, clipped, control characters escaped."""
    return repr(text if len(text) <= 40 else text[:40] + "…")


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high] (the caps are in skillbench.limits)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip()) if len(text) <= 30 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected an integer from {low} to {high}, got {_shown(text)}"
            )
        return value

    parse.__name__ = "integer"
    return parse


def float_in(low: float, high: float, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high] (or (low, high] with `low_open`)."""

    def parse(text: str) -> float:
        try:
            value = float(text) if len(text) <= 40 else math.nan
        except ValueError:
            value = math.nan
        above_low = low < value if low_open else low <= value
        if not (math.isfinite(value) and above_low and value <= high):
            bracket = "(" if low_open else "["
            raise argparse.ArgumentTypeError(
                f"expected a finite number in {bracket}{low:g}, {high:g}], got {_shown(text)}"
            )
        return value

    parse.__name__ = "number"
    return parse


def runs_option(max_runs: int = limits.MAX_RUNS) -> Callable[[str], int]:
    """`--runs N`: 1 to MAX_RUNS runs per query or case."""
    return int_in(1, max_runs)


def workers_option() -> Callable[[str], int]:
    """`--workers N`: 1 to MAX_WORKERS concurrent calls."""
    return int_in(1, limits.MAX_WORKERS)


def timeout_option() -> Callable[[str], float]:
    """`--timeout SECONDS`: a finite number in (0, MAX_TIMEOUT_SECONDS]."""
    return float_in(0.0, limits.MAX_TIMEOUT_SECONDS, low_open=True)


def seed_option() -> Callable[[str], int]:
    """`--seed N`: 0 to 2**63 - 1."""
    return int_in(0, limits.MAX_SEED)


def fraction_option() -> Callable[[str], float]:
    """A probability-like option in [0, 1] (`--threshold`)."""
    return float_in(0.0, 1.0)


def catalog_dir(arg: str | None) -> str:
    """The `--catalog` value: a folder, `installed` or `none` (the default: never a folder found
    in the working directory)."""
    return arg if arg is not None and arg.strip() else "none"


def add_harness_option(parser: argparse.ArgumentParser) -> None:
    """`--harness replay|minimal` and `--cache-before-query` (the anthropic backend's trigger
    harness and its prompt-cache option; the harness names from the backends' specs)."""
    from skillbench.backends.registry import harness_names

    parser.add_argument(
        "--harness",
        choices=harness_names(),
        help="anthropic backend only: `replay` = Claude Code's own request, captured once with "
        "the installed claude CLI; `minimal` = skillbench's imitation, not Claude Code's request "
        "(default replay)",
    )
    add_cli_mode_option(parser)
    parser.add_argument(
        "--cache-before-query",
        action="store_true",
        help="replay harness only: add one prompt-cache breakpoint before the query, so the "
        "skill listing (~2k tokens) is read from the cache instead of written anew for every "
        "query; the model sees the same tokens, the request's caching hints differ from Claude "
        "Code's (the report says so)",
    )


def add_cli_mode_option(parser: argparse.ArgumentParser) -> None:
    """`--cli-mode interactive|print`: how Claude Code's CLI runs (the claude-code backend) or
    whose request the replay harness captures."""
    from skillbench.backends.claude_cli.interactive import CLI_MODES

    parser.add_argument(
        "--cli-mode",
        choices=CLI_MODES,
        help="the claude-code backend and the replay harness: the interactive Claude Code CLI "
        "(`interactive`, the default: what users type into, driven in a pseudo-terminal) or "
        "`claude -p` (`print`: headless and SDK users); the report states the mode",
    )


def check_cli_mode(cli_mode: str | None, backend: str | None, harness: str | None) -> None:
    """`--cli-mode` applies to the backends that run Claude Code's CLI (the claude-code
    backend, the replay harness): refuse it anywhere else (exit 2)."""
    if cli_mode is None:
        return
    from skillbench.backends.registry import require_cli_mode

    require_cli_mode(backend, harness, "--cli-mode")


def check_harness(
    harness: str | None, backend: str | None, *, cache_before_query: bool = False
) -> None:
    """`--harness` and `--cache-before-query` are the options of a backend with trigger
    harnesses (the second the replay harness's): refuse them anywhere else."""
    if harness is None and not cache_before_query:
        return
    from skillbench.backends.registry import backend_spec, resolve_harness
    from skillbench.backends.spec import all_specs
    from skillbench.errors import InputError

    flag = "--harness" if harness is not None else "--cache-before-query"
    spec = backend_spec(backend)
    if not spec.harnesses:  # the backends with trigger harnesses to choose from, by their specs
        able = sorted(s.name for s in all_specs().values() if s.harnesses)
        raise InputError(
            f"applies to --backend {' or '.join(able) or '(none installed)'} only (the backend "
            f"is {spec.name!r})",
            path=flag,
        )
    if cache_before_query and resolve_harness(harness, spec.name) != "replay":
        raise InputError(
            "applies to the replay harness only (the minimal harness has its own breakpoints)",
            path="--cache-before-query",
        )


def add_project_option(parser: argparse.ArgumentParser) -> None:
    """`--project DIR`: capture the agent's request as inside that repository (replay)."""
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="replay only (Claude Code's replay harness, --agent opencode, gemini, codex): "
        "capture the agent's request as it is inside this project (Claude Code: its CLAUDE.md "
        "files, .claude settings, rules, agents, commands and git status; the others: their "
        "AGENTS.md / GEMINI.md, project skills and configuration), from a throwaway copy that "
        "runs none of its commands (hooks, MCP servers, plugins, command settings left out): "
        "nothing is written into DIR; the report names DIR and its commit",
    )


def project_option(project: str | None, backend: str | None, harness: str | None) -> str | None:
    """The `--project` folder, checked (exit 2) before any run: it must exist, the backend must
    capture a request (`registry.require_replay`) and, for Claude Code's, its agents' commands
    must be removable from the capture's copy (`check_agents`, naming the file and the key)."""
    if project is None:
        return None
    from skillbench.backends.anthropic.project import check_agents
    from skillbench.backends.registry import backend_spec, require_replay
    from skillbench.errors import InputError

    require_replay(backend, harness, "--project")
    if not Path(project).expanduser().is_dir():
        raise InputError(f"project folder not found: {project}", path="--project")
    if backend_spec(backend).project_harness is not None:  # Claude Code's `.claude/agents`
        check_agents(Path(project).expanduser())
    return project


def add_as_user_option(parser: argparse.ArgumentParser) -> None:
    """`--as-user [HOME]`: capture the agent's request with the user's configuration."""
    parser.add_argument(
        "--as-user",
        metavar="HOME",
        nargs="?",
        const="~",
        help="replay harness only: capture the agent's request as the user's own CLI sends it, "
        "from HOME (default ~) copied read-only into the capture's isolated HOME. Claude Code "
        "(--backend anthropic): settings (env, permissions, listing budget, output style), "
        "CLAUDE.md and rules, personal skills, commands and agents, enabled plugins' skills "
        "and the skill usage history ($CLAUDE_CONFIG_DIR honoured); opencode, gemini, codex: "
        "the user's instruction files and skills. Never hooks, MCP servers, command settings "
        "or credentials; nothing is written to HOME; the report lists what was taken",
    )


def as_user_option(as_user: str | None, backend: str | None, harness: str | None) -> str | None:
    """The `--as-user` HOME, checked (exit 2) before any run: the backend must be a replay
    harness (`registry.require_replay`) and HOME a folder."""
    if as_user is None:
        return None
    from skillbench.backends.registry import require_replay
    from skillbench.backends.user_config import user_home

    require_replay(backend, harness, "--as-user")
    user_home(as_user)
    return as_user


def add_catalog_option(parser: argparse.ArgumentParser) -> None:
    """`--catalog DIR|installed|none`."""
    parser.add_argument(
        "--catalog", metavar="DIR|installed|none", default="none", help=CATALOG_HELP
    )


def safe(text: object) -> str:
    """Input or model text fit for the terminal (see skillbench.io.terminal_safe)."""
    from skillbench.io import terminal_safe

    return terminal_safe(text)


def safe_markup(text: object) -> str:
    """`safe(text)` with rich markup escaped, for strings printed with markup on."""
    from rich.markup import escape

    return escape(safe(text))


#: Width given to a console that is not a terminal (a pipe, a file, a CI log): lines and tables
#: are never wrapped or cut to fit 80 columns there; a terminal keeps its own width.
NO_WRAP_WIDTH = 100_000


def console(*, stderr: bool = False) -> Console:
    """A rich console on stdout (or stderr), no highlighting, that wraps only on a terminal."""
    from rich.console import Console

    made = Console(stderr=stderr, highlight=False)
    if not made.is_terminal:
        made.width = NO_WRAP_WIDTH
        made.soft_wrap = True
    return made


def stderr_console() -> Console:
    """The console for progress, notes and warnings (stderr, no highlighting; wraps only on a
    terminal)."""
    return console(stderr=True)


def no_wrap_help(parser: argparse.ArgumentParser) -> None:
    """Help text of `parser` and its subcommands wrapped only when stdout is a terminal
    (argparse otherwise wraps at $COLUMNS or 80)."""
    import sys

    if sys.stdout.isatty():
        return

    def wide(prog: str) -> argparse.HelpFormatter:
        return argparse.HelpFormatter(prog, width=NO_WRAP_WIDTH)

    parser.formatter_class = wide
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                no_wrap_help(sub)


def add_ci_options(parser: argparse.ArgumentParser, *, json_format: bool = True) -> None:
    """`--format text|json|github` (github: one `::error` workflow command per failed item, then
    the usual output) and `--junit FILE` (JUnit XML, one testcase per item)."""
    formats = ["text", "json", "github"] if json_format else ["text", "github"]
    parser.add_argument(
        "--format",
        dest="output_format",
        choices=formats,
        default="text",
        help="text (default), "
        + ("the JSON document, " if json_format else "")
        + "or GitHub Actions annotations (::error file=…,line=…::…) before the text",
    )
    parser.add_argument(
        "--junit",
        metavar="FILE",
        help="also write JUnit XML to FILE (atomically): one testcase per item, failures as "
        "<failure>, errors as <error>, undecided ones as <skipped>",
    )


def check_ci_options(args: argparse.Namespace) -> None:
    """`--junit FILE` must be writable: checked before any work (exit 2 naming it)."""
    if getattr(args, "junit", None):
        from skillbench.io import check_output

        check_output(args.junit, "--junit")


def emit_ci(args: argparse.Namespace, suite: str, cases: list[Any], *, title: str) -> None:
    """Print the annotations of `cases` with `--format github`; write `--junit FILE`."""
    import sys

    from skillbench.reports.ci import github_lines, write_junit

    if getattr(args, "output_format", "text") == "github":
        for line in github_lines(cases, title=title):
            print(line, file=sys.stdout)
    if getattr(args, "junit", None):
        write_junit(args.junit, suite, cases)


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


def _size_option(option: str) -> Callable[[str], int]:
    """An argparse type reading a size (`500M`, `2G`, bytes; `skill_copy.parse_size`)."""
    from skillbench.backends.skill_copy import parse_size
    from skillbench.errors import InputError

    def size(text: str) -> int:
        try:
            return parse_size(text[:40], option)
        except InputError:
            raise argparse.ArgumentTypeError(
                f"expected a size such as 500M, 2G or a number of bytes, got {_shown(text)}"
            ) from None

    size.__name__ = "size"
    return size


def add_max_copy_option(parser: argparse.ArgumentParser) -> None:
    """`--max-copy SIZE`: the bytes one copy of a skill folder may hold (skill_copy)."""
    from skillbench.backends.skill_copy import DEFAULT_MAX_COPY, human_size

    parser.add_argument(
        "--max-copy",
        type=_size_option("--max-copy"),
        default=DEFAULT_MAX_COPY,
        metavar="SIZE",
        help="most bytes copied from the skill folder into a snapshot or an agent session (a "
        "session leaves out what would pass it, with a warning naming the file; a snapshot "
        f"refuses it) (default {human_size(DEFAULT_MAX_COPY)}; e.g. --max-copy 2G)",
    )


def add_max_output_option(parser: argparse.ArgumentParser) -> None:
    """`--max-output SIZE`: the bytes of files one behavior run may keep (`limits`)."""
    from skillbench.backends.skill_copy import human_size
    from skillbench.limits import DEFAULT_MAX_OUTPUT

    parser.add_argument(
        "--max-output",
        type=_size_option("--max-output"),
        default=DEFAULT_MAX_OUTPUT,
        metavar="SIZE",
        help="most bytes of files one run (one agent session) may leave: past it the run is an "
        "error and only the files that fit are kept "
        f"(default {human_size(DEFAULT_MAX_OUTPUT)}; e.g. --max-output 1G)",
    )


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """`--cluster ray|auto|none` and `--cluster-calls N` (docs/cluster.md)."""
    parser.add_argument(
        "--cluster",
        metavar="WHERE",
        help="run the agent sessions on a Ray cluster: ray (the one at $RAY_ADDRESS), auto (start "
        "one on this machine), none (default; or $SKILLBENCH_CLUSTER); needs skillbench[ray]",
    )
    parser.add_argument(
        "--cluster-calls",
        type=int_in(1, 16 * limits.MAX_WORKERS),
        default=8,
        metavar="N",
        help="with --cluster: API calls in flight across the whole cluster (8; AIMD below it)",
    )


@contextmanager
def cluster(
    args: argparse.Namespace, *backends: str | None, behavior: bool = False
) -> Iterator[Any]:
    """The cluster of `--cluster` while the block runs (None: this machine). Exit 2, before any
    work, when none of `backends` runs agent sessions (`behavior`: behavior runs, whose sessions
    are those of every `behavior_sessions` backend; else trigger calls, the spec's `sessions`),
    the extra is missing or no cluster answers."""
    from skillbench.backends.registry import backend_spec
    from skillbench.backends.spec import BackendSpec, all_specs
    from skillbench.cluster.connect import cluster_choice, open_cluster
    from skillbench.errors import InputError

    def runs_sessions(spec: BackendSpec) -> bool:
        return spec.behavior_sessions if behavior else spec.sessions

    choice = getattr(args, "cluster", None)

    chosen = cluster_choice(choice)
    if chosen is not None and not any(runs_sessions(backend_spec(b)) for b in backends):
        if choice is None:  # $SKILLBENCH_CLUSTER is a default: API backends ignore it
            chosen = None
        else:
            able = sorted(s.name for s in all_specs().values() if runs_sessions(s))
            raise InputError(
                "--cluster runs agent sessions: it needs a backend that runs them "
                f"({', '.join(able) or 'none installed'})",
                path="--cluster",
            )
    with open_cluster(chosen, calls=getattr(args, "cluster_calls", 8)) as session:
        if session is not None:
            stderr_console().print(
                f"cluster: {session.nodes} node(s), {session.slots} agent slots, at most "
                f"{args.cluster_calls} API calls in flight",
                markup=False,
            )
        yield session
