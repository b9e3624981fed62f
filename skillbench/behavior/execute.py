"""Run every case prompt N times per configuration and write the run folders.

Configurations: ``with_skill`` (the workspace's current version), ``baseline`` (no skill) or
``v<N>`` (a snapshot). Backends: ``claude-code``, ``codex``, ``gemini`` and ``opencode``
(agentic sessions of their CLIs), ``anthropic`` (one conversation) and ``local``, which replays
the recorded SAMPLE runs of `data/runs/<skill>/` (no model at all).
Executed runs go through the call cache: a re-run of unchanged cases makes zero calls.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from skillbench import limits
from skillbench.backends.base import cache_key
from skillbench.backends.cache import CallCache, assert_no_secrets
from skillbench.backends.spec import AGENT_CLI_SESSION, RECORDED_SAMPLES, SESSION_EXECUTORS
from skillbench.behavior.executors import (
    Executor,
    RunTask,
    SkillSource,
    agent_config_path,
    check_folder_name,
    folder_name_of,
)
from skillbench.behavior.records import SAMPLE_NOTE, RunRecord, read_run_record, write_run_record
from skillbench.behavior.run_files import (
    ExecutionResult,
    cap_outputs,
    scrub_folder,
    write_run_folder,
)
from skillbench.behavior.workspace import (
    EVALS_FOLDER,
    EvalsFile,
    StoredRun,
    Workspace,
    check_config,
    config_version,
    read_history,
)
from skillbench.cost.budget import Budget, backend_priced
from skillbench.errors import InputError
from skillbench.hermetic.agent_wiring import unsupported
from skillbench.hermetic.environment import Environment, parse_environment
from skillbench.hermetic.netns import namespace_problem
from skillbench.schemas.registry import WRITING_SKILLS
from skillbench.timestamps import utc_timestamp


def samples_dir_default() -> Path:
    """`data/runs/` of the project: the checkout's, or the installed wheel's copy."""
    from skillbench.reports.paths import project_root

    return (project_root() or Path.cwd()) / "data" / "runs"


DEFAULT_CONFIGS = ("with_skill", "baseline")
CACHED_NOTE = "replayed from the call cache"
Progress = Callable[[int, int], None]


class RunBatch(list[RunRecord]):
    """The records of one `run_cases` call, with what the cache and the replay saw."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.hits = 0
        self.missing: list[str] = []
        self.replayed_samples = False
        self.notes: list[str] = []
        self.refused = 0  # runs not started because the spend reached the cost cap


def _file_field(evals: EvalsFile, case_index: int, file_index: int) -> str:
    group = "cases" if evals.dialect == WRITING_SKILLS else "evals"
    return f"{group}[{case_index}].files[{file_index}]"


def resolve_input_files(
    evals: EvalsFile, case_index: int, skill_dir: Path
) -> tuple[tuple[str, Path], ...]:
    """The case's input files as (relative path, source); they must stay inside the skill."""
    case = evals.evals.cases[case_index]
    root = skill_dir.resolve()
    found: list[tuple[str, Path]] = []
    for index, raw in enumerate(case.files or []):
        where = _file_field(evals, case_index, index)
        posix, windows = PurePosixPath(raw), PureWindowsPath(raw)
        if not raw.strip() or posix.is_absolute() or windows.is_absolute() or windows.drive:
            raise InputError(
                f"input file {raw!r} must be a relative path inside the skill folder",
                path=evals.path,
                field=where,
                rule="file-inside-skill",
            )
        if ".." in posix.parts or ".." in windows.parts:
            raise InputError(
                f"input file {raw!r} must not contain '..' (paths stay inside the skill folder)",
                path=evals.path,
                field=where,
                rule="file-inside-skill",
            )
        if agent_config_path(posix.as_posix()):
            raise InputError(
                f"input file {raw!r} would configure the agent's session (.claude/, CLAUDE.md, "
                "CLAUDE.local.md and .mcp.json are Claude Code's own files); rename it",
                path=evals.path,
                field=where,
                rule="file-not-agent-config",
            )
        source = (root / posix).resolve()
        if not source.is_relative_to(root):
            raise InputError(
                f"input file {raw!r} resolves outside the skill folder",
                path=evals.path,
                field=where,
                rule="file-inside-skill",
            )
        if not source.is_file():
            raise InputError(
                f"input file {raw!r} not found in {root}",
                path=evals.path,
                field=where,
                rule="file-exists",
            )
        found.append((posix.as_posix(), source))
    return tuple(found)


def skill_source(folder: Path, folder_name: str = "") -> SkillSource:
    """Load a skill folder as what an executor installs, under `folder_name` (a snapshot's is
    the live folder's) or its own folder name; InputError, before any copy, when that name
    cannot be a skill folder."""
    from skillbench.skill import Skill

    skill = Skill.load(folder)
    source = SkillSource(
        skill.name, skill.path, skill.text, skill.body, skill.content_hash, folder_name
    )
    check_folder_name(source.cli_name, folder)
    return source


def skill_change_hash(folder: Path) -> str:
    """What counts as a change of the skill since a snapshot: every file but ``evals/`` (the
    eval set lives in the skill folder and is edited between runs)."""
    from skillbench.skill import Skill, content_hash_without

    return content_hash_without(Skill.load(folder), EVALS_FOLDER)


def config_skill(
    workspace: Workspace, config: str, skill_dir: Path
) -> tuple[SkillSource | None, int | None, str | None]:
    """(skill, version, note) of a configuration; with_skill uses the current version's snapshot."""
    check_config(config)
    if config == "baseline":
        return None, None, None
    number = config_version(config)
    note = None
    if number is None:
        number = read_history(workspace).current_number()
        live = skill_source(skill_dir)
        folder = workspace.version_dir(number)
        if folder.is_dir():
            snap = skill_source(folder, live.cli_name)
            if skill_change_hash(folder) != skill_change_hash(skill_dir):
                note = (
                    f"the skill folder has changed since snapshot v{number}; with_skill runs use "
                    f"v{number} (run `skillbench snapshot` to test the changes)"
                )
            return snap, number, note
        return live, number, note
    folder = workspace.version_dir(number)
    if not folder.is_dir():
        raise InputError(
            f"no snapshot v{number} in the workspace",
            path=folder,
            field="--configs",
            rule="version",
        )
    return skill_source(folder, folder_name_of(skill_dir)), number, None


def samples_source(skill_dir: Path, samples_dir: str | Path | None = None) -> Path:
    """The recorded sample runs the local backend replays (default `data/runs/<folder name>/`:
    the skill's folder name, one path component, never its frontmatter `name`)."""
    if samples_dir:
        return Path(samples_dir)
    folder = Path(skill_dir)
    return samples_dir_default() / check_folder_name(folder_name_of(folder), folder)


def executing_backends() -> str:
    """The backends that execute a case (an executor other than the samples' replay), for
    messages: `anthropic or claude-code`."""
    from skillbench.backends.registry import backends_where

    able = backends_where(lambda s: s.executor not in (None, RECORDED_SAMPLES))
    return " or ".join(able) or "none installed"


def _missing_samples(source: Path) -> InputError:
    return InputError(
        "no recorded sample runs for this skill (the local backend only replays samples; "
        f"use --backend {executing_backends()} to execute)",
        path=source,
        field="--backend",
        rule="samples",
    )


def replays_samples(backend: str | None) -> bool:
    """True when the backend's spec runs no model for a case but replays the recorded sample
    runs (`executor = recorded-samples`: the `local` backend)."""
    from skillbench.backends.registry import backend_spec

    return backend_spec(backend).executor == RECORDED_SAMPLES


def case_environments(evals: EvalsFile) -> list[Environment | None]:
    """Each case's `environment` block (None where a case has none); InputError names the
    file and the case of a malformed one."""
    found: list[Environment | None] = []
    for index, case in enumerate(evals.evals.cases):
        raw = case.extra.get("environment")
        where = f"cases[{index}].environment"
        found.append(None if raw is None else parse_environment(raw, path=evals.path, field=where))
    return found


UNSUPPORTED_WHY = {
    "answers": "its sessions are not resumed to answer a question written in a reply (its "
    "CLI's `SessionCli.resumable` is false; claude-code, codex, gemini and opencode sessions "
    "answer from `answers`)",
    "mcp": "its CLI loads no MCP servers",
}
"""Why an agent CLI session cannot take a part of the block (`agent_wiring.unsupported`)."""


def check_environments(environments: Sequence[Environment | None], backend: str) -> None:
    """Environment blocks the backend cannot honour are refused (exit 2), never dropped: a
    session backend whose sessions take no world (a plugin's), a part another agent's session
    cannot take (`answers`: no question hook; `mcp` where its CLI has no MCP configuration), a
    confined network where no namespace can be made. A backend without sessions (one text
    turn, replays) has no world to confine."""
    from skillbench.backends.registry import backend_spec

    spec = backend_spec(backend)
    blocks = [e for e in environments if e is not None]
    if not blocks or not spec.behavior_sessions:
        return
    if spec.executor not in SESSION_EXECUTORS:
        raise InputError(
            f"backend {spec.name!r} does not run cases in an `environment` (fakes, network "
            "confinement): claude-code, codex, gemini and opencode sessions do",
            path="--backend",
            rule="environment",
        )
    if spec.executor == AGENT_CLI_SESSION:
        cli = spec.load("session_cli")
        for index, environment in enumerate(environments):
            field = (
                None
                if environment is None
                else unsupported(environment, mcp=cli.supports_mcp, answers=cli.resumable)
            )
            if field is not None:
                raise InputError(
                    f"backend {spec.name!r} cannot honour `{field}`: {UNSUPPORTED_WHY[field]}",
                    path="--backend",
                    field=f"cases[{index}].environment.{field}",
                    rule="environment",
                )
    if any(e.mcp for e in blocks) and importlib.util.find_spec("mcp") is None:
        raise InputError(
            "a case's fake MCP servers need the `mcp` package: pip install 'skillbench[hermetic]'",
            field="environment.mcp",
            rule="environment",
        )
    if any(e.confined() for e in blocks):
        problem = namespace_problem()
        if problem is not None:
            raise InputError(
                f"network confinement (none/api-only) is impossible here: {problem}; "
                'set "network": "allow" to run without it',
                field="environment.network",
                rule="environment",
            )


def check_agent_inputs(evals: EvalsFile, backend: str) -> None:
    """An input file another agent's session would read as its configuration (`AGENTS.md`,
    `GEMINI.md`, `opencode.json`, `.agents/`, …: `SessionCli.config_path`) is refused for
    that backend (exit 2, naming the case's file), as Claude Code's are for every backend."""
    from skillbench.backends.registry import backend_spec

    spec = backend_spec(backend)
    if spec.executor != AGENT_CLI_SESSION:
        return
    cli = spec.load("session_cli")
    for case_index, case in enumerate(evals.evals.cases):
        for file_index, raw in enumerate(case.files or []):
            if cli.config_path(PurePosixPath(raw).as_posix()):
                raise InputError(
                    f"input file {raw!r} would configure the {spec.name} session (its own "
                    "configuration files and folders); rename it",
                    path=evals.path,
                    field=_file_field(evals, case_index, file_index),
                    rule="file-not-agent-config",
                )


def check_run_inputs(
    workspace: Workspace,
    evals: EvalsFile,
    skill_dir: str | Path,
    *,
    configs: Sequence[str],
    runs: int = 1,
    backend: str = "local",
    samples_dir: str | Path | None = None,
) -> None:
    """Every input of a `run` checked BEFORE anything is created (the CLI calls it before
    initialising the workspace): run count, configuration names, each case's input files and
    machine checks, the snapshots `v<N>` configurations need (only v0 exists before `init`) and,
    for a backend replaying samples (`local`), the recorded samples. InputError names the file
    and the field."""
    from skillbench.behavior.records import expectation_checks

    folder = Path(skill_dir)
    check_folder_name(folder_name_of(folder), folder)
    limits.check_int(runs, "--runs", 1, limits.MAX_RUNS)
    for config in configs:
        check_config(config)
    for index in range(len(evals.evals.cases)):
        resolve_input_files(evals, index, folder)
    expectation_checks(evals.model, path=evals.path)
    check_environments(case_environments(evals), backend)
    check_agent_inputs(evals, backend)
    initialised = workspace.history_path.is_file()
    for config in configs:
        number = config_version(config)
        if number is None:
            continue
        exists = workspace.version_dir(number).is_dir() if initialised else number == 0
        if not exists:
            raise InputError(
                f"no snapshot v{number} in the workspace",
                path=workspace.version_dir(number),
                field="--configs",
                rule="version",
            )
    if replays_samples(backend):
        source = samples_source(folder, samples_dir)
        if not source.is_dir():
            raise _missing_samples(source)


def plan_tasks(
    workspace: Workspace,
    evals: EvalsFile,
    skill_dir: Path,
    configs: Sequence[str],
    runs: int,
    batch: RunBatch,
) -> list[RunTask]:
    """Every (config, case, run) task, validated before anything runs."""
    if runs < 1:
        raise InputError("must be at least 1", path="--runs")
    files = [resolve_input_files(evals, i, skill_dir) for i in range(len(evals.evals.cases))]
    environments = case_environments(evals)
    tasks: list[RunTask] = []
    for config in configs:
        skill, version, note = config_skill(workspace, config, skill_dir)
        if note:
            batch.notes.append(note)
        for index, case in enumerate(evals.evals.cases):
            for run in range(1, runs + 1):
                tasks.append(
                    RunTask(
                        case_id=str(case.id),
                        prompt=case.prompt,
                        config=config,
                        version=version,
                        run_number=run,
                        skill=skill,
                        files=files[index],
                        environment=environments[index],
                    )
                )
    return tasks


def world_line(task: RunTask, result: ExecutionResult) -> str:
    """One line on a hermetic run's world: network, calls, refusals (the first few named)."""
    world = result.hermetic or {}
    refused = [c for c in result.calls if c.get("refused")]
    named = "; ".join(
        " ".join([str(c.get("command")), *map(str, c.get("argv") or [])])[:80] for c in refused[:3]
    )
    where = f"{task.config}/{task.case_id}/run-{task.run_number}"
    line = f"{where}: network {world.get('network')}, {len(result.calls)} fake calls, "
    line += f"{len(refused)} refused" + (f" ({named})" if named else "")
    if result.answers:
        line += "; " + questions_line(result.answers)
    if world.get("path_failures"):
        line += f"; a fake was not first on PATH: {', '.join(world['path_failures'])}"
    return line


def questions_line(answers: Sequence[dict[str, Any]]) -> str:
    """`2 questions, 1 unanswered (…)`: each question clipped, with its answer or why none."""

    def one(item: dict[str, Any]) -> str:
        question = " ".join(str(item.get("question") or "").split())
        question = question if len(question) <= 60 else "…" + question[-59:]
        said = item.get("answer") if item.get("answered") else None
        return f"{question!r} → {said!r}" if said else f"{question!r}: {item.get('reason')}"

    unanswered = sum(not a.get("answered") for a in answers)
    shown = "; ".join(one(a) for a in answers[:3])
    more = f" (+{len(answers) - 3} more)" if len(answers) > 3 else ""
    count = f"{len(answers)} question{'s' if len(answers) != 1 else ''}"
    return f"{count}, {unanswered} unanswered ({shown}{more})"


def _record(task: RunTask, result: ExecutionResult, executor: Executor, started: str) -> RunRecord:
    usage = result.usage
    return RunRecord(
        case_id=task.case_id,
        config=task.config,
        version=task.version,
        run_number=task.run_number,
        prompt=task.prompt,
        backend=executor.name,
        model=executor.model,
        status=result.status,
        error=result.error,
        final_text=result.final_text,
        started_at=started,
        duration_s=round(result.duration_s, 3),
        is_sample=False,
        skill_name=task.skill.name if task.skill else None,
        usage={
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        },
        note=CACHED_NOTE if result.cached else None,
        calls=len(result.calls) if result.hermetic is not None else None,
        refusals=(
            sum(bool(c.get("refused")) for c in result.calls)
            if result.hermetic is not None
            else None
        ),
        questions=len(result.answers) if result.hermetic is not None else None,
        unanswered=(
            sum(not a.get("answered") for a in result.answers)
            if result.hermetic is not None
            else None
        ),
    )


async def execute_tasks(
    workspace: Workspace,
    tasks: Sequence[RunTask],
    executor: Executor,
    *,
    cache: CallCache | None,
    workers: int,
    batch: RunBatch,
    progress: Progress | None = None,
    budget: Budget | None = None,
    max_output: int = limits.DEFAULT_MAX_OUTPUT,
) -> RunBatch:
    """Run the tasks (bounded concurrency) through the cache and write every run folder.

    A run whose files pass `max_output` bytes (executed or cached) is an error and keeps only
    the files that fit (`run_files.cap_outputs`); such a run is never cached.

    With `budget`, every answer is metered, and once the spend reaches its cap no new run
    starts (runs in flight finish and are written; the others are counted in
    `batch.refused`, not written, and a re-run resumes from the cache)."""
    identity = executor.identity()
    assert_no_secrets(identity)
    priced = backend_priced(executor.name, executor.model) if budget is not None else None
    limit = asyncio.Semaphore(max(1, workers))
    done = 0

    async def one(task: RunTask) -> RunRecord | None:
        nonlocal done
        async with limit:
            started = utc_timestamp()
            key = cache_key(identity, task.cache_fields())
            cached = cache.get(key) if cache is not None else None
            if cached is not None:
                result = cap_outputs(ExecutionResult.from_cache(cached), max_output)
                batch.hits += 1
            elif budget is not None and not budget.allows():
                budget.refuse()
                batch.refused += 1
                done += 1
                if progress is not None:
                    progress(done, len(tasks))
                return None
            else:
                batch.calls += 1
                result = cap_outputs(await executor.execute(task), max_output)
                data = result.to_cache()
                if cache is not None and data is not None:
                    earlier = cache.put(
                        key, data, backend=executor.name, kind="behavior-run", model=executor.model
                    )
                    if earlier is not None:  # a concurrent run stored this key first
                        result = cap_outputs(ExecutionResult.from_cache(earlier), max_output)
            if budget is not None:
                budget.meter.record(
                    executor.name,
                    executor.model,
                    "run",
                    result.usage,
                    cached=cached is not None,
                    priced=priced,
                )
            record = _record(task, result, executor, started)
            if result.hermetic is not None:
                batch.notes.append(world_line(task, result))
            write_run_folder(
                workspace.run_dir(task.config, task.case_id, task.run_number), record, result
            )
            done += 1
            if progress is not None:
                progress(done, len(tasks))
            return record

    try:
        done_records = await asyncio.gather(*(one(t) for t in tasks))
        batch.extend(r for r in done_records if r is not None)
    finally:
        await executor.aclose()
    return batch


def replay_samples(
    workspace: Workspace,
    tasks: Sequence[RunTask],
    source: Path,
    batch: RunBatch,
    progress: Progress | None = None,
) -> RunBatch:
    """Copy recorded sample run folders into the workspace (`is_sample: true`); no model runs."""
    if not source.is_dir():
        raise _missing_samples(source)
    recorded = Workspace(source)
    batch.replayed_samples = True
    for done, task in enumerate(tasks, start=1):
        origin = recorded.run_dir(task.config, task.case_id, task.run_number)
        if not (origin / "run.json").is_file():
            batch.missing.append(f"{task.config}/{task.case_id}/run-{task.run_number}")
        else:
            record = read_run_record(origin / "run.json")
            record.is_sample = True
            record.note = record.note or SAMPLE_NOTE
            target = workspace.run_dir(task.config, task.case_id, task.run_number)
            staging = target.with_name(f".{target.name}.replay")
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(origin, staging)
            redacted, withheld = scrub_folder(staging)  # recorded elsewhere: trust no secret
            record.redacted_outputs = sorted({*(record.redacted_outputs or []), *redacted}) or None
            record.withheld_outputs = sorted({*(record.withheld_outputs or []), *withheld}) or None
            write_run_record(record, staging / "run.json")
            shutil.rmtree(target, ignore_errors=True)
            staging.rename(target)
            batch.append(record)
        if progress is not None:
            progress(done, len(tasks))
    return batch


def load_runs(workspace: Workspace, config: str | None = None) -> list[StoredRun]:
    """The run folders of a workspace (re-exported for notebooks)."""
    return workspace.iter_runs(config)
