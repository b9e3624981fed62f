"""`skillbench run SKILL_DIR`: execute every eval case N times with and without the skill."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.backends.spec import (
    AGENT_CLI_SESSION,
    CLAUDE_SESSION,
    CONVERSATION,
    RECORDED_SAMPLES,
)
from skillbench.cli import common
from skillbench.cost import notes
from skillbench.errors import EXIT_COST_CAP, EXIT_FAILED, EXIT_OK, InputError
from skillbench.limits import AGENT_SESSION_TIMEOUT, TEXT_CALL_TIMEOUT

if TYPE_CHECKING:
    from skillbench.cost.plan import CostPlan


#: How a backend executes a case, by its spec's executor kind (for `--backend`'s help).
EXECUTION = {
    RECORDED_SAMPLES: "replay samples",
    CONVERSATION: "one text turn per run, no tools",
    CLAUDE_SESSION: "an agent session per run",
    AGENT_CLI_SESSION: "an agent session of that CLI per run",
}


def _backend_help() -> str:
    """Each backend that runs cases, with how (from its spec), the default first."""
    from skillbench.backends.registry import DEFAULT_BACKEND, backend_spec, backends_where

    able = backends_where(lambda s: isinstance(s.executor, str) and s.executor in EXECUTION)

    def how(name: str) -> str:
        kind = str(backend_spec(name).executor)
        return f"{name} ({'default: ' if name == DEFAULT_BACKEND else ''}{EXECUTION[kind]})"

    ordered = sorted(able, key=lambda name: name != DEFAULT_BACKEND)
    return ", ".join(how(name) for name in ordered)


def register(subparsers: Any) -> None:
    """Add the `run` subcommand."""
    p = subparsers.add_parser(
        "run",
        help="execute the skill's eval cases into the workspace's run folders",
        description="Run every case prompt of evals/evals.json N times per configuration "
        "(with_skill and baseline, or versions v0,v1) and write runs/<config>/<case>/run-<k>/. "
        "The local backend replays the recorded SAMPLE runs of data/runs/<skill>/ (no model). "
        "On an API backend (anthropic) a run is ONE text turn: the SKILL.md in the system "
        "prompt, no tools, the reply saved as outputs/response.md, so expectations about files "
        "the agent creates or commands it runs cannot pass; claude-code, codex, gemini and "
        "opencode run an agent session of their CLI with tools, acting on the real world (real commands on PATH, the network) unless the "
        "case has an `environment` block: fake commands first on PATH, every call logged to "
        "calls.jsonl, the network confined to the model API (see docs/hermetic.md). "
        "Exit 0 when every run completed, 1 when some failed or are missing, 2 on bad input, "
        "3 when refused or stopped by --max-cost.",
    )
    common.add_skill_dir(p)
    common.add_workspace_option(p)
    p.add_argument("--evals", metavar="FILE", help="evals file (default <skill>/evals/evals.json)")
    p.add_argument(
        "--configs",
        default="with_skill,baseline",
        help="comma-separated configurations: with_skill,baseline (default) or v0,v1",
    )
    p.add_argument(
        "--runs",
        type=common.runs_option(),
        default=3,
        help="runs per case and config (3, at most 100)",
    )
    common.add_backend_options(p, backend_help=_backend_help())
    p.add_argument(
        "--workers", type=common.workers_option(), default=2, help="concurrent runs (2, max 64)"
    )
    p.add_argument(
        "--timeout",
        type=common.timeout_option(),
        metavar="SECONDS",
        help="per-run timeout (default: the backend's: "
        f"{AGENT_SESSION_TIMEOUT:.0f} s per agent session, {TEXT_CALL_TIMEOUT:.0f} s per "
        "text call, retries included; at most 3600; e.g. --timeout 900)",
    )
    p.add_argument("--samples", metavar="DIR", help="recorded runs to replay (local backend)")
    common.add_cache_options(p)
    common.add_cost_options(p)
    common.add_max_copy_option(p)
    common.add_max_output_option(p)
    common.add_cluster_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute the runs; returns the exit code."""
    with contextlib.ExitStack() as stack:
        return _run(args, stack)


def _run(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    """`run`, with `--cluster` (when given) entered on `stack` once the inputs are checked."""
    from skillbench.backends.cache import CallCache
    from skillbench.backends.registry import backend_spec, resolve_backend_name
    from skillbench.behavior.execute import (
        case_environments,
        check_run_inputs,
        executing_backends,
    )
    from skillbench.behavior.options import RunOptions
    from skillbench.behavior.run import real_world_warning, run_cases
    from skillbench.behavior.workspace import (
        Workspace,
        check_config,
        evals_path,
        init_workspace,
        read_evals,
    )
    from skillbench.cost.limit import workflow_budget
    from skillbench.io import check_output

    err = common.stderr_console()
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not configs:
        raise InputError("no configuration given", path="--configs")
    for config in configs:
        check_config(config)
    backend = resolve_backend_name(args.backend)
    evals_file = Path(args.evals) if args.evals else evals_path(args.skill_dir)
    workspace = Workspace.for_skill(args.skill_dir, args.workspace)
    check_output(workspace.root, "--workspace", folder=True)  # before any run or model call
    had_evals = evals_file.exists()
    evals = None
    if had_evals or args.evals:  # validate every input before anything is created
        evals = read_evals(evals_file)
        for warning in evals.warnings:
            err.print(f"warning: {evals_file}: {warning}", style="yellow", markup=False)
        check_run_inputs(
            workspace,
            evals,
            args.skill_dir,
            configs=configs,
            runs=args.runs,
            backend=backend,
            samples_dir=args.samples,
        )
    cap = common.max_cost(args)
    options = RunOptions(
        configs=configs,
        runs=args.runs,
        backend=backend,
        model=args.model,
        workers=args.workers,
        timeout=args.timeout,
        samples_dir=args.samples,
        max_copy=args.max_copy,
        max_output=args.max_output,
        max_cost=cap,
    )
    plan = None if evals is None else _planner(args, workspace, evals, configs, backend)
    real_world = real_world_warning(backend, None if evals is None else case_environments(evals))
    if args.dry_run:
        if plan is None:
            raise InputError("nothing to plan: write the eval cases first", path=evals_file)
        common.check_plan(plan(), cap, dry_run=True)
        if real_world is not None:
            common.print_plan([real_world])
        return EXIT_OK
    budget = workflow_budget(budget=None, max_cost=cap, plan=plan)  # refuses a plan over cap
    cluster = stack.enter_context(common.cluster(args, backend, behavior=True))  # exit 2 first
    workers = args.workers if cluster is None else cluster.workers(args.workers)
    init = init_workspace(args.skill_dir, args.workspace, max_copy=args.max_copy)
    if evals is None:
        err.print(
            f"created {evals_file} with ONE EXAMPLE case: write real cases, then run again",
            style="bold yellow",
            markup=False,
        )
        return EXIT_FAILED
    if init.created:
        err.print(f"initialised workspace {workspace.root}", markup=False)
    if backend_spec(backend).offline:
        err.print(
            "backend local: REPLAYING RECORDED SAMPLE RUNS (hand-written, not model output); "
            f"use --backend {executing_backends()} to execute the skill",
            style="bold yellow",
            markup=False,
        )
    if real_world is not None:
        err.print(real_world, style="bold yellow", markup=False)
    cache = None if args.no_cache or backend_spec(backend).offline else CallCache(args.cache)
    try:
        with common.progress_bar(err, f"run ({backend})") as on_progress:
            batch = run_cases(
                workspace,
                evals,
                options.but(workers=workers),
                skill_dir=args.skill_dir,
                cache=cache,
                progress=on_progress,
                budget=budget,
            )
    finally:
        if cache is not None:
            cache.close()
    for note in batch.notes:
        err.print(common.safe(note), markup=False)
    failed = [r for r in batch if r.status == "error"]
    kind = "replayed sample runs" if batch.replayed_samples else "runs"
    err.print(
        f"{len(batch)} {kind} written under {workspace.runs_dir} "
        f"({len(failed)} failed, {len(batch.missing)} missing; "
        f"{batch.calls} model runs, {batch.hits} from the cache)",
        markup=False,
    )
    for record in failed:
        err.print(
            common.safe(
                f"FAILED {record.config}/{record.case_id}/run-{record.run_number}: {record.error}"
            ),
            style="red",
            markup=False,
        )
    if batch.missing:
        err.print(
            common.safe(f"no recorded sample for: {', '.join(batch.missing)}"),
            style="red",
            markup=False,
        )
    if not batch.replayed_samples:
        common.print_cost(budget)
    if batch.refused:
        err.print(
            notes.stopped(batch.refused, option="--max-cost"),
            style="bold red",
            markup=False,
        )
        return EXIT_COST_CAP
    return EXIT_OK if not failed and not batch.missing else EXIT_FAILED


def _planner(
    args: argparse.Namespace,
    workspace: Any,
    evals: Any,
    configs: list[str],
    backend: str,
) -> Callable[[], CostPlan]:
    """The plan of this run (`behavior.cost.plan_run`), the call cache as it is."""
    from skillbench.backends.registry import backend_spec
    from skillbench.behavior.cost import plan_run
    from skillbench.cost.plan import planning_cache

    use_cache = not args.no_cache and not backend_spec(backend).offline

    def plan() -> CostPlan:
        with planning_cache(args.cache, enabled=use_cache) as cache:
            return plan_run(
                workspace,
                evals,
                skill_dir=args.skill_dir,
                configs=configs,
                runs=args.runs,
                backend=backend,
                model=args.model,
                cache=cache,
            )

    return plan
