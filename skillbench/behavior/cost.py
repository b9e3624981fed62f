"""What behavior evals cost: the plan of `run` (`--dry-run`, `--max-cost`), the pieces the
grade and compare planners share (`grade.plan_grade`, `compare.plan_compare` live with their
question), and the cost of a workspace's recorded runs (`runs_cost`).

Each plan builds the very requests the command would send — one task per (config, case, run),
one grader request per run folder, two comparator requests per run pair (both orders) — checks
them against the call cache (hits are free) and asks the backend's estimator about the rest.
The local backend replays recorded samples / grades machine checks / uses the proxy comparator:
no model call. Validator retries of an invalid reply (at most one more call) are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from skillbench.backends.base import TextRequest, cache_key
from skillbench.cost import notes as cost_notes
from skillbench.cost.estimate import Estimator, Planned, get_estimator
from skillbench.cost.plan import CostPlan, plan_block
from skillbench.errors import BackendError
from skillbench.schemas.cost import TOKEN_KINDS, CostBlock, TokenCounts

if TYPE_CHECKING:
    from skillbench.backends.cache import CallCache
    from skillbench.behavior.workspace import EvalsFile, Workspace

RETRY_NOTE = cost_notes.RETRY
LOCAL_NOTE = cost_notes.OFFLINE


def key_model(backend: str, model: str | None) -> Any:
    """The backend's text model, built only for its identity (no call; a backend that needs a
    key is given a placeholder one); None when it cannot be built here."""
    from skillbench.backends.registry import backend_spec, get_text_model

    try:
        return get_text_model(backend, model=model)
    except BackendError:
        if backend_spec(backend).key_variable is None:
            return None
        return get_text_model(backend, model=model, api_key="dry-run-no-key")


def structured_hit(
    cache: CallCache | None, identity: dict[str, Any] | None, request: TextRequest, output: Any
) -> bool:
    """Whether the cache holds the answer to a structured request (native or text form)."""
    from skillbench.backends.cache import structured_fields

    if cache is None or identity is None:
        return False
    native = cache_key(identity, structured_fields(request, output))
    return cache.has(native) or cache.has(cache_key(identity, structured_fields(request)))


def planned_text_calls(
    estimator: Estimator,
    purpose: str,
    requests: Sequence[TextRequest],
    raw: Any,
    output: type[BaseModel],
    cache: CallCache | None,
) -> Planned:
    """A planned line of structured text calls: those the cache holds (asked of `raw`, the
    backend's model) free, the rest estimated."""
    identity = raw.identity() if raw is not None else None
    line = Planned(estimator, purpose)
    for request in requests:
        if structured_hit(cache, identity, request, output):
            line.add(TokenCounts(), 0, 1)
        else:
            line.add(estimator.text_call(request), 1)
    return line


def plan_run(
    workspace: Workspace,
    evals: EvalsFile,
    *,
    skill_dir: str | Path,
    configs: Sequence[str],
    runs: int,
    backend: str,
    model: str | None = None,
    cache: CallCache | None = None,
) -> CostPlan:
    """The plan of `run_cases`: tasks, cache hits (free) and the estimate; no model call."""
    from skillbench.backends.registry import backend_spec
    from skillbench.backends.spec import AGENT_CLI_SESSION
    from skillbench.behavior.agent_executor import AgentSessionExecutor
    from skillbench.behavior.execute import RunBatch, plan_tasks
    from skillbench.behavior.executors import ClaudeCodeExecutor, TextModelExecutor

    batch = RunBatch()
    if workspace.history_path.is_file():
        tasks = plan_tasks(workspace, evals, Path(skill_dir), list(configs), runs, batch)
    else:  # not initialised yet: `run` would snapshot the live skill as v0 first
        tasks = _fresh_tasks(evals, Path(skill_dir), configs, runs)
    head = [
        f"plan: run of {len(evals.evals.cases)} case(s) × {runs} run(s) × {len(configs)} "
        f"configuration(s) ({', '.join(configs)}) = {len(tasks)} runs on backend {backend}"
    ]
    spec = backend_spec(backend)
    estimator = get_estimator(backend, model=model, cache=cache, kind="behavior-run")
    if spec.offline:
        line = Planned(estimator, "run")
        line.add(estimator.trigger_calls([]), 0)
        return CostPlan(head, plan_block([line], notes=[LOCAL_NOTE + " (replays samples)"]), [])
    notes: list[str] = []
    executor: Any = None
    try:
        if spec.executor == AGENT_CLI_SESSION:  # for its identity: no key needed to plan
            executor = AgentSessionExecutor(spec.load("session_cli"), model, check_key=False)
        elif spec.sessions:
            executor = ClaudeCodeExecutor(model)
        else:
            raw = key_model(backend, model)
            executor = TextModelExecutor(raw) if raw is not None else None
        identity = executor.identity() if executor is not None else None
    except BackendError as exc:
        identity = None
        notes.append(f"cache hits not counted ({exc})")
    line = Planned(estimator, "run")
    for task in tasks:
        hit = (
            cache is not None
            and identity is not None
            and cache.has(cache_key(identity, task.cache_fields()))
        )
        if hit:
            line.add(TokenCounts(), 0, 1)
        elif isinstance(executor, TextModelExecutor):
            line.add(estimator.text_call(executor.request(task)), 1)
        else:
            line.add(estimator.text_call(TextRequest(task.prompt, purpose="execute")), 1)
    return CostPlan(head, plan_block([line], notes=notes), [line])


def _fresh_tasks(evals: EvalsFile, skill_dir: Path, configs: Sequence[str], runs: int) -> list[Any]:
    """The tasks of a first `run` (before `init`): with_skill and v0 use the live skill."""
    from skillbench.behavior.execute import case_environments, resolve_input_files, skill_source
    from skillbench.behavior.executors import RunTask

    live = skill_source(skill_dir)
    files = [resolve_input_files(evals, i, skill_dir) for i in range(len(evals.evals.cases))]
    environments = case_environments(evals)
    return [
        RunTask(
            case_id=str(case.id),
            prompt=case.prompt,
            config=config,
            version=None if config == "baseline" else 0,
            run_number=run,
            skill=None if config == "baseline" else live,
            files=files[index],
            environment=environments[index],
        )
        for config in configs
        for index, case in enumerate(evals.evals.cases)
        for run in range(1, runs + 1)
    ]


def runs_cost(space: Workspace, configs: Sequence[str] | None = None) -> CostBlock:
    """The cost of a workspace's recorded runs, for benchmark.json: per (backend, model), the
    runs executed (calls), those replayed from the call cache (free hits), their tokens by kind,
    and dollars from the price table applied to those tokens ("unknown" without a price).
    Hand-written sample runs cost nothing and are named in a note."""
    from skillbench.behavior.execute import CACHED_NOTE
    from skillbench.cost.actual import actual_block, cost_line
    from skillbench.schemas.prices import load_prices

    table = load_prices()
    groups: dict[tuple[str, str | None], dict[str, Any]] = {}
    samples = 0
    for config in configs or space.configs():
        for run in space.iter_runs(config):
            record = run.record
            if record.is_sample:
                samples += 1
                continue
            group = groups.setdefault(
                (record.backend, record.model), {"calls": 0, "hits": 0, "tokens": TokenCounts()}
            )
            if record.note == CACHED_NOTE:
                group["hits"] += 1
                continue
            group["calls"] += 1
            usage = {k: int(v) for k, v in (record.usage or {}).items() if k in TOKEN_KINDS}
            group["tokens"] += TokenCounts(**usage)
    lines = [
        cost_line(
            backend,
            model,
            "run",
            calls=g["calls"],
            hits=g["hits"],
            tokens=g["tokens"],
            dollars=table.dollars(model, g["tokens"]) if g["calls"] else 0.0,
            basis="price table applied to the recorded tokens",
        )
        for (backend, model), g in groups.items()
    ]
    note = f"{samples} recorded sample run(s): no model call, no cost"
    return actual_block(lines, notes=[note] if samples else ())
