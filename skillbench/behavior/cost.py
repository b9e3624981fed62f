"""What behavior evals cost, before they run (`run`, `grade`, `compare` with `--dry-run`).

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


def _key_model(backend: str, model: str | None) -> Any:
    """The backend's text model, built only for its identity (no call; no key needed)."""
    from skillbench.backends.registry import get_text_model

    try:
        return get_text_model(backend, model=model)
    except BackendError:
        if backend != "anthropic":
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


def _planned(
    estimator: Estimator,
    purpose: str,
    requests: Sequence[TextRequest],
    hits: Sequence[bool],
) -> Planned:
    line = Planned(estimator, purpose)
    for request, hit in zip(requests, hits, strict=True):
        if hit:
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
    estimator = get_estimator(backend, model=model, cache=cache, kind="behavior-run")
    if backend == "local":
        line = Planned(estimator, "run")
        line.add(estimator.trigger_calls([]), 0)
        return CostPlan(head, plan_block([line], notes=[LOCAL_NOTE + " (replays samples)"]), [])
    notes: list[str] = []
    executor: Any = None
    try:
        if backend == "claude-code":
            executor = ClaudeCodeExecutor(model)
        else:
            raw = _key_model(backend, model)
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
    from skillbench.behavior.execute import resolve_input_files, skill_source
    from skillbench.behavior.executors import RunTask

    live = skill_source(skill_dir)
    files = [resolve_input_files(evals, i, skill_dir) for i in range(len(evals.evals.cases))]
    return [
        RunTask(
            case_id=str(case.id),
            prompt=case.prompt,
            config=config,
            version=None if config == "baseline" else 0,
            run_number=run,
            skill=None if config == "baseline" else live,
            files=files[index],
        )
        for config in configs
        for index, case in enumerate(evals.evals.cases)
        for run in range(1, runs + 1)
    ]


def plan_grade(
    skill_dir: str | Path,
    *,
    workspace: str | Path | None = None,
    backend: str,
    model: str | None = None,
    cache: CallCache | None = None,
) -> CostPlan:
    """The plan of `grade_workspace`: one grader request per run folder; no model call."""
    from skillbench.behavior.grade import (
        load_cases,
        output_skill_dir,
        run_material,
        validator_conventions,
    )
    from skillbench.behavior.grade_prompt import MAX_TOKENS, SYSTEM, GraderReply, build_prompt
    from skillbench.behavior.structured import json_instruction
    from skillbench.behavior.workspace import Workspace

    space = Workspace.for_skill(skill_dir, workspace)
    cases = load_cases(skill_dir)
    runs = [r for config in space.configs() for r in space.iter_runs(config)]
    head = [f"plan: grade {len(runs)} run folder(s) on backend {backend}"]
    estimator = get_estimator(backend, model=model, cache=cache)
    if backend == "local":
        return CostPlan(head, plan_block([], notes=[LOCAL_NOTE + " (machine checks only)"]), [])
    raw = _key_model(backend, model)
    identity = raw.identity() if raw is not None else None
    native = callable(getattr(raw, "complete_json", None))
    requests: list[TextRequest] = []
    for run in runs:
        case = cases.cases.get(run.record.case_id)
        if case is None:
            continue
        checks = cases.checks.get(run.record.case_id, [])
        wanted = [
            (n, exp.text)
            for n, exp in enumerate(case.expectations, start=1)
            if not (n - 1 < len(checks) and checks[n - 1] is not None)
        ]
        folder = output_skill_dir(run)
        left = validator_conventions(folder)[1] if folder is not None else []
        prompt = build_prompt(case.prompt, wanted, run_material(run), conventions=left)
        if not native:
            prompt = f"{prompt}\n\n{json_instruction(GraderReply)}"
        requests.append(
            TextRequest(
                prompt=prompt,
                system=SYSTEM,
                max_tokens=MAX_TOKENS,
                purpose="grade",
                run_index=run.record.run_number,
            )
        )
    hits = [structured_hit(cache, identity, r, GraderReply) for r in requests]
    line = _planned(estimator, "grade", requests, hits)
    return CostPlan(head, plan_block([line], notes=[RETRY_NOTE]), [line])


def plan_compare(
    skill_dir: str | Path,
    config_a: str,
    config_b: str,
    *,
    workspace: str | Path | None = None,
    backend: str,
    model: str | None = None,
    dialect: str,
    seed: int = 0,
    cache: CallCache | None = None,
) -> CostPlan:
    """The plan of `compare`: two comparator requests per run pair (both orders); the
    analyzer's calls are not counted (named in a note); no model call."""
    from skillbench.behavior.blind import (
        comparison_request,
        judge_output_model,
        read_run_output,
        redaction_pattern,
    )
    from skillbench.behavior.compare import Comparator, _plan, load_cases, seeded_first_is_a
    from skillbench.behavior.workspace import Workspace

    space = Workspace.for_skill(skill_dir, workspace)
    cases = load_cases(skill_dir)
    comparator = Comparator(space, cases, config_a, config_b, None, backend, model, dialect, seed)
    todo, skipped = _plan(comparator)
    head = [
        f"plan: compare {config_a} vs {config_b}: {len(todo)} run pair(s) × 2 orders on backend "
        f"{backend} ({len(skipped)} pair(s) skipped)"
    ]
    estimator = get_estimator(backend, model=model, cache=cache)
    if backend == "local":
        return CostPlan(head, plan_block([], notes=[LOCAL_NOTE + " (proxy comparator)"]), [])
    raw = _key_model(backend, model)
    identity = raw.identity() if raw is not None else None
    output: type[BaseModel] = judge_output_model(dialect)
    pattern = redaction_pattern((config_a, config_b), space.root.resolve())
    requests: list[TextRequest] = []
    for case, run_number, dirs in todo:
        runs = {config: read_run_output(path) for config, path in dirs.items()}
        first_a = seeded_first_is_a(seed, case.case_id, run_number)
        x, y = (config_a, config_b) if first_a else (config_b, config_a)
        for shown_a, shown_b in ((x, y), (y, x)):
            a, b = runs[shown_a], runs[shown_b]
            requests.append(
                comparison_request(
                    task=case.prompt,
                    expectations=case.expectations,
                    shown_a=a,
                    shown_b=b,
                    dialect=dialect,
                    pattern=pattern,
                    run_index=a.run_number,
                )
            )
    hits = [structured_hit(cache, identity, r, output) for r in requests]
    line = _planned(estimator, "compare", requests, hits)
    notes = [RETRY_NOTE, cost_notes.ANALYZER]
    return CostPlan(head, plan_block([line], notes=notes), [line])


def runs_cost(space: Workspace, configs: Sequence[str] | None = None) -> CostBlock:
    """The cost of a workspace's recorded runs, for benchmark.json: per (backend, model), the
    runs executed (calls), those replayed from the call cache (free hits), their tokens by kind,
    and dollars from the price table applied to those tokens ("unknown" without a price).
    Hand-written sample runs cost nothing and are named in a note."""
    from skillbench.behavior.execute import CACHED_NOTE
    from skillbench.cost.actual import actual_block, actual_line
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
        actual_line(
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
