"""`run_cases`: the behavior workflow's entry — the cost guard, then every case executed (or
the recorded samples replayed)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from skillbench.backends.cache import CallCache
from skillbench.backends.placement import place_executor
from skillbench.behavior.cost import plan_run
from skillbench.behavior.execute import (
    Progress,
    RunBatch,
    check_folder_name,
    execute_tasks,
    folder_name_of,
    plan_tasks,
    replay_samples,
    replays_samples,
    samples_source,
)
from skillbench.behavior.executor_choice import make_executor
from skillbench.behavior.executors import Executor
from skillbench.behavior.options import RunOptions
from skillbench.behavior.workspace import EvalsFile, Workspace
from skillbench.cost.budget import Budget
from skillbench.cost.limit import active_budget, workflow_budget
from skillbench.cost.plan import CostPlan
from skillbench.hermetic.environment import Environment

DEFAULT_RUN_OPTIONS = RunOptions()


def real_world_warning(
    backend: str | None, environments: Sequence[Environment | None] | None = None
) -> str | None:
    """The one line a run on a session backend (`spec.behavior_sessions`: `claude-code`,
    `codex`, `gemini`, `opencode`, a plugin's agent) states before it starts and in its dry run when its agent acts on the real world:
    a case without an `environment` block (real commands on PATH, the network), or one whose
    block says `"network": "allow"`. None when every case runs in a confined world
    (`none`/`api-only`), and for a backend whose runs are API calls or replays."""
    from skillbench.backends.registry import backend_spec

    spec = backend_spec(backend)
    if not spec.behavior_sessions:
        return None
    cases = list(environments or [None])
    open_world = sum(e is None for e in cases)
    allowed = sum(e is not None and not e.confined() for e in cases)
    if not open_world and not allowed:
        return None
    if not allowed:
        return (
            f"warning: {spec.name} runs are real agent sessions acting on the real world: the "
            "commands the agent runs (gh, git, curl, rm…) are the real ones on PATH and it can "
            "reach the network (no `environment` block: no fakes, no network isolation)"
        )
    which = f"{allowed} of {len(cases)} cases" if len(cases) > 1 else "the case"
    return (
        f"warning: {spec.name} runs are real agent sessions acting on the real world: "
        f'{which} set "network": "allow" (the agent can reach the network; unfaked commands on '
        "PATH are the real ones)"
    )


def run_cases(
    workspace: Workspace,
    evals: EvalsFile,
    options: RunOptions = DEFAULT_RUN_OPTIONS,
    *,
    skill_dir: str | Path,
    cache: CallCache | None = None,
    executor: Executor | None = None,
    progress: Progress | None = None,
    budget: Budget | None = None,
) -> RunBatch:
    """Run every case `options.runs` times per configuration; returns the records (a RunBatch).
    `budget` meters the runs and stops starting new ones at its cap (see `execute_tasks`);
    without one, `options.max_cost` caps them — a plan whose estimate exceeds it is refused before any
    run (CostCapError) — else the active `cost_limit` does.
    `options.max_copy` bounds the bytes a claude-code session's project receives (what would pass it
    is left out, named in the batch's notes); `options.max_output` the bytes of files one run keeps
    (past it the run is an error, see `execute_tasks`).

    `executor` overrides the backend's (tests, custom harnesses). With a backend whose spec
    replays samples (`local`), the recorded samples of `options.samples_dir` (default
    `data/runs/<folder name>/`) are replayed.
    Blocking; safe inside a running Jupyter kernel.
    """
    from skillbench.aio import run_sync
    from skillbench.backends.registry import backend_spec

    folder = Path(skill_dir)
    check_folder_name(folder_name_of(folder), folder)
    configs, runs, backend, model = options.configs, options.runs, options.backend, options.model
    workers, timeout = options.workers, options.timeout
    batch = RunBatch()
    tasks = plan_tasks(workspace, evals, folder, list(configs), runs, batch)
    if executor is None and replays_samples(backend):
        source = samples_source(folder, options.samples_dir)
        return replay_samples(workspace, tasks, source, batch, progress)

    def plan() -> CostPlan:
        return plan_run(
            workspace,
            evals,
            skill_dir=folder,
            configs=configs,
            runs=runs,
            backend=backend,
            model=model,
            cache=cache,
        )

    if budget is None and (options.max_cost is not None or active_budget() is not None):
        budget = workflow_budget(budget=None, max_cost=options.max_cost, plan=plan)
    chosen = executor or place_executor(
        make_executor(
            backend,
            model=model,
            timeout=timeout,
            workers=workers,
            max_copy=options.max_copy,
            max_output=options.max_output,
        ),
        backend_spec(backend).behavior_sessions,  # on a cluster under --cluster
    )
    started = time.monotonic()
    result = run_sync(
        lambda: execute_tasks(
            workspace,
            tasks,
            chosen,
            cache=cache,
            workers=workers,
            batch=batch,
            progress=progress,
            budget=budget,
            max_output=options.max_output,
        )
    )
    result.notes.extend(f"warning: {note}" for note in getattr(chosen, "notes", []))
    result.notes.append(f"{len(tasks)} runs in {time.monotonic() - started:.1f} s")
    return result
