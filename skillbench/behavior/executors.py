"""Executors: run one case prompt once, with a skill or without, as the backend's spec says
(`executor_choice.make_executor`; another agent's CLI session: `agent_executor`).

- `ClaudeCodeExecutor` (a spec's `claude-session` executor, built on the public runner
  `backends.claude_cli.session.ClaudeRunner`): a real agentic `claude` session in an isolated
  temporary project with the skill folder installed at `.claude/skills/<folder name>/` (nothing
  for a baseline); the raw stream is kept, files the agent created are collected, metrics come
  from the stream events.
- `TextModelExecutor` (a spec's `conversation` executor: the `anthropic` backend): one
  conversation, the skill's SKILL.md in the system prompt (none for a baseline), no tools; the
  reply is saved as `outputs/response.md`.
- A plugin's spec may name its own factory (`ExecutorFactory`).

Output files pass the redactor before they are cached or written (`run_files.scrub_outputs`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Unpack, runtime_checkable

from skillbench.backends.agent_cli import print_call
from skillbench.backends.base import CallUsage, TextModel, TextRequest
from skillbench.backends.claude_cli.session import (
    ClaudeRunner,
    RunnerOptions,
    RunResult,
    redact,
    run_error,
    session_usage,
)
from skillbench.backends.claude_cli.stream_json import StreamParser
from skillbench.backends.skill_copy import DEFAULT_MAX_COPY, copy_tree, human_size
from skillbench.backends.skill_install import usable_folder_name
from skillbench.behavior.run_files import (
    ExecutionResult,
    make_timing,
    output_chars,
    over_output_cap,
    render_conversation,
    render_stream_transcript,
    scrub_outputs,
    session_metrics,
)
from skillbench.behavior.spool import SpooledOutputs
from skillbench.behavior.workspace import EVALS_FOLDER, SNAPSHOT_IGNORE
from skillbench.errors import BackendError, InputError, SkillbenchError
from skillbench.hermetic.claude_wiring import claude_env, claude_flags
from skillbench.hermetic.environment import Environment
from skillbench.hermetic.world import World
from skillbench.limits import AGENT_SESSION_TIMEOUT, DEFAULT_MAX_OUTPUT
from skillbench.schemas.skill_creator import SCMetrics
from skillbench.timestamps import utc_timestamp

DEFAULT_AGENT_TOOLS = ("Read", "Write", "Edit", "Glob", "Grep", "Bash")
CLAUDE_SKILLS_DIR = ".claude/skills"
CLAUDE_DIRS = frozenset({".claude"})
MAX_INPUT_CHARS = 100_000
MAX_OUTPUT_FILE_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class SkillSource:
    """The skill a run installs: its name, folder and SKILL.md text, and a content hash.

    `name` is the frontmatter's (any string: shown, never a path); Claude Code calls a skill by
    its FOLDER name (`cli_name`), which is also where a session installs it: `folder_name` when
    given (a snapshot `v<N>/skill/` keeps the live folder's name), else the folder's own name."""

    name: str
    folder: Path
    skill_md: str
    body: str
    content_hash: str
    folder_name: str = ""

    @property
    def cli_name(self) -> str:
        """The folder name the skill is installed and called under."""
        return self.folder_name or folder_name_of(self.folder)


#: Files Claude Code reads as its own configuration in a project: an input file there would
#: configure the session (a `.claude/settings.json` hook runs a shell command).
AGENT_CONFIG_NAMES = frozenset({"claude.md", "claude.local.md", ".mcp.json"})


def agent_config_path(rel: str) -> bool:
    """True when the project-relative path is Claude Code configuration: anything under
    `.claude/`, or `CLAUDE.md`, `CLAUDE.local.md`, `.mcp.json` (any case, any folder for the
    CLAUDE files, which Claude Code reads in subfolders too)."""
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        return False
    return parts[0].lower() == ".claude" or parts[-1].lower() in AGENT_CONFIG_NAMES


def folder_name_of(folder: Path) -> str:
    """The name Claude Code calls a skill folder by: its last path component."""
    return os.path.basename(os.path.abspath(folder))


def check_folder_name(name: str, folder: Path) -> str:
    """`name` when it can be a skill folder (one path component); InputError naming it else."""
    if not usable_folder_name(name):
        raise InputError(
            f"not a usable skill folder name: {name!r} (Claude Code names a skill by its folder)",
            path=folder,
            field="folder name",
        )
    return name


def skill_install_dir(
    project: Path, skill: SkillSource, skills_dir: str = CLAUDE_SKILLS_DIR
) -> Path:
    """`project/<skills_dir>/<folder name>/` (Claude Code's `.claude/skills` by default);
    InputError when that name is not one path component or the folder would land anywhere
    else."""
    base = Path(os.path.abspath(project / skills_dir))
    target = Path(os.path.abspath(base / check_folder_name(skill.cli_name, skill.folder)))
    if target.parent != base:
        raise InputError(
            f"the skill would be installed outside {base}", path=skill.folder, field="folder name"
        )
    return target


@dataclass(frozen=True)
class RunTask:
    """One run of one case under one configuration."""

    case_id: str
    prompt: str
    config: str
    version: int | None
    run_number: int
    skill: SkillSource | None
    files: tuple[tuple[str, Path], ...] = ()
    environment: Environment | None = None
    """The case's hermetic world (`environment` block); None: the session meets the real one."""

    def cache_fields(self) -> dict[str, Any]:
        """Everything that determines the run (input file contents by digest; the environment
        block when there is one)."""
        world = {} if self.environment is None else {"environment": self.environment.model_dump()}
        return {
            **world,
            "kind": "behavior-run",
            "case_id": self.case_id,
            "prompt": self.prompt,
            "config": self.config,
            "run_number": self.run_number,
            "skill": None if self.skill is None else self._skill_key(),
            "files": [
                [rel, hashlib.sha256(source.read_bytes()).hexdigest()] for rel, source in self.files
            ],
        }

    def _skill_key(self) -> list[str]:
        """Name and hash; the folder name too when it differs (where the session installs it)."""
        assert self.skill is not None
        key = [self.skill.name, self.skill.content_hash]
        return key if self.skill.cli_name == self.skill.name else [*key, self.skill.cli_name]


@runtime_checkable
class Executor(Protocol):
    """Runs one task; model-side failures come back as an error result, never raised."""

    name: str
    model: str | None

    def identity(self) -> dict[str, Any]:
        """Backend, model and answer-changing settings (part of every cache key)."""
        ...

    async def execute(self, task: RunTask) -> ExecutionResult:
        """Run the task once."""
        ...

    async def aclose(self) -> None:
        """Release clients, processes and folders."""
        ...


def failed_result(error: str, prompt: str, duration_s: float = 0.0) -> ExecutionResult:
    """An error result with an empty transcript and zero metrics."""
    md = render_conversation("", prompt, f"(run failed: {error})")
    now = utc_timestamp()
    return ExecutionResult(
        status="error",
        final_text="",
        events=[],
        transcript_md=md,
        outputs={},
        metrics=SCMetrics(
            tool_calls={},
            total_tool_calls=0,
            total_steps=0,
            files_created=[],
            errors_encountered=1,
            output_chars=0,
            transcript_chars=len(md),
        ),
        timing=make_timing(CallUsage(), duration_s, now, now),
        duration_s=duration_s,
        error=error,
    )


# ----- anthropic: one conversation ------------------------------------------------------------


def skill_system_prompt(skill: SkillSource) -> str:
    """The system prompt of a with-skill conversation: the whole SKILL.md."""
    return (
        f"You have the Agent Skill `{skill.name}` available and it applies to this task. "
        "Follow its instructions.\n\n"
        f"<skill name={json.dumps(skill.name)}>\n{skill.skill_md.strip()}\n</skill>"
    )


def prompt_with_files(prompt: str, files: Sequence[tuple[str, Path]]) -> str:
    """The case prompt followed by the text of its input files (binary files named only)."""
    parts = [prompt.rstrip()]
    for rel, source in files:
        data = source.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            parts.append(f"\n\nAttached file `{rel}` ({len(data)} bytes, binary; not shown).")
            continue
        if len(text) > MAX_INPUT_CHARS:
            text = text[:MAX_INPUT_CHARS] + f"\n… ({len(text) - MAX_INPUT_CHARS} more chars)"
        parts.append(f"\n\nAttached file `{rel}`:\n````\n{text}\n````")
    return "".join(parts)


class TextModelExecutor:
    """Executor over a TextModel: a single conversation, no tools."""

    def __init__(self, text_model: TextModel, *, max_tokens: int = 4096) -> None:
        self.inner = text_model
        self.name = text_model.name
        self.model = text_model.model
        self.max_tokens = max_tokens

    def identity(self) -> dict[str, Any]:
        """The text model's identity plus the executor mode."""
        return {
            **self.inner.identity(),
            "mode": "behavior-conversation",
            "max_tokens": self.max_tokens,
        }

    def request(self, task: RunTask) -> TextRequest:
        """The text request of a task."""
        system = skill_system_prompt(task.skill) if task.skill is not None else ""
        return TextRequest(
            prompt=prompt_with_files(task.prompt, task.files),
            system=system,
            max_tokens=self.max_tokens,
            purpose="execute",
            run_index=task.run_number,
        )

    async def execute(self, task: RunTask) -> ExecutionResult:
        """Ask once; the reply becomes `outputs/response.md`."""
        request = self.request(task)
        started_at = utc_timestamp()
        started = time.monotonic()
        try:
            response = await self.inner.complete(request)
        except SkillbenchError as exc:
            return failed_result(str(exc), task.prompt, time.monotonic() - started)
        duration = time.monotonic() - started
        outputs, redacted, _ = scrub_outputs({"response.md": response.text.encode("utf-8")})
        md = render_conversation(request.system, request.prompt, response.text)
        events: list[dict[str, Any]] = []
        if request.system:
            events.append({"role": "system", "content": request.system})
        events.append({"role": "user", "content": request.prompt})
        events.append({"role": "assistant", "content": response.text})
        return ExecutionResult(
            status="ok",
            final_text=response.text,
            events=events,
            transcript_md=md,
            outputs=outputs,
            metrics=SCMetrics(
                tool_calls={},
                total_tool_calls=0,
                total_steps=1,
                files_created=["response.md"],
                errors_encountered=0,
                output_chars=output_chars(outputs),
                transcript_chars=len(md),
            ),
            timing=make_timing(response.usage, duration, started_at, utc_timestamp()),
            usage=response.usage,
            duration_s=duration,
            redacted_outputs=redacted,
        )

    async def aclose(self) -> None:
        """Close the text model."""
        await self.inner.aclose()


# ----- claude-code: a real agentic session ----------------------------------------------------


class RecordingParser(StreamParser):
    """A stream parser that also keeps every JSON event, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict[str, Any]] = []

    def feed(self, line: str | bytes) -> None:
        """Parse one line and keep its event."""
        super().feed(line)
        text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
        try:
            event = json.loads(text)
        except json.JSONDecodeError:
            return
        if isinstance(event, dict):
            self.events.append(event)


def _digest_tree(root: Path, skip: frozenset[str] = CLAUDE_DIRS) -> dict[str, str]:
    """sha256 of every regular file outside the agent's own folders `skip` (`.claude/`; links
    never followed); a file too big to be collected (MAX_OUTPUT_FILE_BYTES) is marked by its
    size and time, never read."""
    found: dict[str, str] = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts[0] in skip or not path.is_file() or path.is_symlink():
            continue
        info = path.stat()
        if info.st_size > MAX_OUTPUT_FILE_BYTES:
            found[rel.as_posix()] = f"big:{info.st_size}:{info.st_mtime_ns}"
            continue
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        found[rel.as_posix()] = digest.hexdigest()
    return found


def install_project(
    task: RunTask,
    project: Path,
    *,
    max_copy: int,
    note: Callable[[Sequence[str]], None],
    skills_dir: str = CLAUDE_SKILLS_DIR,
    is_config: Callable[[str], bool] = agent_config_path,
    own_dirs: frozenset[str] = CLAUDE_DIRS,
) -> dict[str, str]:
    """Install the task's skill under `skills_dir` (links kept as links, none leading out of the
    skill folder; its `evals/` left out, so the agent cannot read the expectations it is graded
    on) and its input files, within `max_copy` bytes in all (what would pass it is left out,
    `note`d); the digests of what the project holds. An input file the agent would read as its
    configuration (`is_config`) is refused."""
    room = max_copy
    if task.skill is not None:
        target = skill_install_dir(project, task.skill, skills_dir)
        plan = copy_tree(
            task.skill.folder,
            target,
            max_bytes=room,
            ignore=SNAPSHOT_IGNORE,
            skip={"SKILL.md", EVALS_FOLDER},
            label=task.skill.cli_name,
        )
        note(plan.warnings)
        room -= plan.total
        (target / "SKILL.md").write_text(task.skill.skill_md, encoding="utf-8")
    for rel, source in task.files:
        if is_config(rel):  # Claude Code's refused up front (`resolve_input_files`)
            raise InputError(
                "an input file may not be the agent's configuration", path=rel, field="files"
            )
        size = source.stat().st_size
        if size > room:
            note(
                [
                    f"input file {rel} ({human_size(size)}) would pass the copy limit of "
                    f"{human_size(max_copy)} (--max-copy); left out"
                ]
            )
            continue
        room -= size
        dest = project / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)
    return _digest_tree(project, own_dirs)


def collect_outputs(
    project: Path, before: dict[str, str], max_output: int, own_dirs: frozenset[str] = CLAUDE_DIRS
) -> tuple[SpooledOutputs, str | None]:
    """Files created or changed since `before` (each up to MAX_OUTPUT_FILE_BYTES; the agent's
    own folders `own_dirs` left alone), copied (streamed, never read whole) to a spool while
    their total stays within `max_output`; the error naming the cap when the session wrote
    more (None otherwise)."""
    outputs = SpooledOutputs()
    left_out: list[str] = []
    written = 0
    room = max_output
    for rel, digest in sorted(_digest_tree(project, own_dirs).items()):
        if before.get(rel) == digest:
            continue
        path = project / rel
        size = path.stat().st_size
        written += size
        if size > room:
            left_out.append(rel)
            continue
        if size > MAX_OUTPUT_FILE_BYTES:
            continue
        copied = outputs.add(rel, path, room)
        if copied is None:  # it grew past the cap after it was measured
            left_out.append(rel)
            continue
        room -= copied
    if not left_out:
        return outputs, None
    return outputs, over_output_cap(written, max_output, outputs, left_out)


def _redact_events(events: list[dict[str, Any]], secrets: Sequence[str]) -> list[dict[str, Any]]:
    if not secrets:
        return events
    text = redact(json.dumps(events, ensure_ascii=False), secrets)
    redacted: list[dict[str, Any]] = json.loads(text)
    return redacted


class CopyLimits:
    """What every session executor shares (this module's `ClaudeCodeExecutor`,
    `agent_executor.AgentSessionExecutor`): the bytes a session's project may receive
    (`max_copy`) and leave (`max_output`), set by the executor, and the copy warnings kept once
    (`notes`)."""

    max_copy: int
    max_output: int
    notes: list[str]

    def limit_fields(self) -> dict[str, int]:
        """The limits that are not the defaults (part of the identity: a raised copy limit may
        install files a default run left out)."""
        found: dict[str, int] = {}
        if self.max_copy != DEFAULT_MAX_COPY:
            found["max_copy"] = self.max_copy
        if self.max_output != DEFAULT_MAX_OUTPUT:
            found["max_output"] = self.max_output
        return found

    def _note(self, warnings: Sequence[str]) -> None:
        """Keep each copy warning once (a run_cases batch prints them)."""
        self.notes.extend(w for w in warnings if w not in self.notes)


class ClaudeCodeExecutor(ClaudeRunner, CopyLimits):
    """Executor running the `claude` CLI agentically, one isolated temporary project per run."""

    mode = "behavior-agent"
    default_timeout = AGENT_SESSION_TIMEOUT
    default_max_concurrency = 2

    def __init__(
        self,
        model: str | None = None,
        *,
        max_turns: int = 30,
        tools: Sequence[str] = DEFAULT_AGENT_TOOLS,
        max_copy: int = DEFAULT_MAX_COPY,
        max_output: int = DEFAULT_MAX_OUTPUT,
        **options: Unpack[RunnerOptions],
    ) -> None:
        """`max_copy`: bytes a session's project may receive (skill folder and input files);
        what would pass it is left out, with a note (`notes`). `max_output`: bytes of files a
        session may leave (`--max-output`); past it the run is an error and only the files that
        fit are copied (streamed, see `_collect`), so the run folder stays within it."""
        super().__init__(model, **options)
        self.max_turns = max_turns
        self.tools = tuple(tools)
        self.max_copy = max_copy
        self.max_output = max_output
        self.notes: list[str] = []

    def flags(self) -> list[str]:
        """CLI flags of an agentic run (the prompt goes after `-p`).

        `--tools` limits what the model is offered (the listed tools plus Skill, in both
        configurations so they differ only by the installed skill); `--allowedTools`
        pre-approves the same list so no permission prompt stalls a print-mode run.
        """
        args = [
            "--output-format",
            "stream-json",
            "--verbose",
            "--setting-sources",
            "project",
            "--max-turns",
            str(self.max_turns),
            "--no-session-persistence",
            "--permission-mode",
            "acceptEdits",
            "--tools",
            ",".join([*self.tools, "Skill"]),
            "--allowedTools",
            ",".join(self.tools),
        ]
        return self.with_model_and_extra_args(args)

    def _prepare(self, task: RunTask, project: Path) -> dict[str, str]:
        """The skill and input files installed (`install_project`); the project's digests."""
        return install_project(task, project, max_copy=self.max_copy, note=self._note)

    def identity(self) -> dict[str, Any]:
        """The runner's identity, plus the limits that are not the defaults (`limit_fields`)."""
        return {**super().identity(), "skill_install": "without-evals", **self.limit_fields()}

    def _collect(self, project: Path, before: dict[str, str]) -> tuple[SpooledOutputs, str | None]:
        """Files created or changed since `before`, within `max_output` (`collect_outputs`)."""
        return collect_outputs(project, before, self.max_output)

    async def execute(self, task: RunTask) -> ExecutionResult:
        """One agentic session; files created or changed in the project become outputs."""
        started_at = utc_timestamp()
        calls: list[dict[str, Any]] = []
        answers: list[dict[str, Any]] = []
        hermetic: dict[str, Any] | None = None
        with self.workdir() as (root, project, home):
            before = self._prepare(task, project)
            parser = RecordingParser()
            if task.environment is None:
                run = await self.run_prompt(task.prompt, self.flags(), project, home, parser)
                spooled, over_cap = self._collect(project, before)
            else:
                with World(task.environment, root) as world:
                    try:
                        run = await self._run_in(world, task.prompt, project, home, parser)
                    except BackendError as exc:
                        return failed_result(str(exc), task.prompt)
                    spooled, over_cap = self._collect(project, before)
                    deleted = [rel for rel in before if not (project / rel).exists()]
                    calls, answers, hermetic = world.run_logs(deleted, self.secrets())
        secrets = self.secrets()
        outputs, redacted, withheld = scrub_outputs(spooled, secrets)
        session = run.session
        events = _redact_events(parser.events, secrets)
        md = render_stream_transcript(task.prompt, events)
        usage = session_usage(session)
        error = run_error(run, self.timeout, secrets)
        if over_cap is not None:
            error = f"{error}; {over_cap}" if error else over_cap
        result = session.result
        # the session's own duration (the `result` event), else the measured wall clock
        duration = (
            result.duration_ms / 1000
            if result is not None and result.duration_ms is not None
            else run.duration_seconds
        )
        final = (result.result if result and result.result else None) or (
            session.assistant_texts[-1] if session.assistant_texts else ""
        )
        return ExecutionResult(
            status="error" if error else "ok",
            final_text=redact(final, secrets),
            events=events,
            transcript_md=md,
            outputs=outputs,
            metrics=session_metrics(session, outputs, md),
            timing=make_timing(usage, duration, started_at, utc_timestamp()),
            usage=usage,
            duration_s=duration,
            error=error,
            redacted_outputs=redacted,
            withheld_outputs=withheld,
            calls=calls,
            answers=answers,
            hermetic=hermetic,
        )

    async def _run_in(
        self, world: World, prompt: str, project: Path, home: Path | None, parser: StreamParser
    ) -> RunResult:
        """The session inside a hermetic world: its environment, flags and network namespace;
        with scripted answers (and an isolated HOME to store it in) a turn ending with a
        question the answers fit is answered by resuming the session."""
        env = claude_env(world, self.build_env(home))
        call = print_call(self.claude_bin, claude_flags(world, self.flags()), prompt)
        prefix = world.launch_prefix(env.get("ANTHROPIC_BASE_URL"))
        args = call.argv[1:]
        if world.environment.answers and self.isolate_home:
            follow_up = world.reply_answerer()
            return await self.run_with_follow_ups(
                args, project, env, parser, follow_up, stdin=call.stdin, prefix=prefix
            )
        return await self.run(args, project, env, parser, stdin=call.stdin, prefix=prefix)
