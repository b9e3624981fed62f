"""The real `claude` CLI as a trigger harness (and a text model), each run fully isolated.

Every run gets a fresh temporary folder holding `project/` (the candidate installed as a REAL
skill at `.claude/skills/<name>/SKILL.md`, the catalog's distractor skills beside it) and
`home/` (an isolated HOME and config dir, so the user's own skills, plugins and settings cannot
interfere). The CLI runs in print mode with `--output-format stream-json`; the WHOLE stream is
read up to the `result` event, and a trigger is a `Skill` call naming the skill, or a `Read` of
its SKILL.md, at ANY point of the session. A timeout, a crash, a missing `result`, an `is_error`
result or a failed login is an error outcome, never "not triggered".

Secrets (API keys, tokens) are passed to the CLI through its environment only: they never reach
a file, an identity, an outcome or an error message (any echo of them is redacted).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypedDict, Unpack

import yaml

from skillbench import redaction
from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
    public_endpoint,
)
from skillbench.backends.stream_json import (
    Session,
    StreamParser,
    metrics,
    skill_invocations,
)
from skillbench.errors import BackendError, InputError

BIN_ENV = "SKILLBENCH_CLAUDE_BIN"
REPO_ROOT = Path(__file__).resolve().parents[2]
REPO_CLAUDE = REPO_ROOT / ".tools" / "node_modules" / ".bin" / "claude"
SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
STREAM_LIMIT = 32 * 1024 * 1024
STDERR_TAIL = 2000
AFTER_RESULT_GRACE = 5.0

#: Variables passed from the caller's environment into an isolated run. Those in SECRET_VARS
#: are redacted from anything skillbench keeps.
PASSTHROUGH_VARS = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "SYSTEMROOT",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_OAUTH_TOKEN",
)
SECRET_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")
FIXED_ENV = {
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


def resolve_claude_bin(claude_bin: str | os.PathLike[str] | None = None) -> Path:
    """The `claude` executable: the argument, then $SKILLBENCH_CLAUDE_BIN, then the repo's
    pinned `.tools/node_modules/.bin/claude`, then PATH. BackendError when none is usable."""
    candidates: list[tuple[str, str | None]] = [
        ("claude_bin argument", os.fspath(claude_bin) if claude_bin else None),
        (f"${BIN_ENV}", os.environ.get(BIN_ENV) or None),
    ]
    for origin, value in candidates:
        if value is None:
            continue
        found = shutil.which(value) if os.sep not in value else value
        if found and os.access(found, os.X_OK) and Path(found).is_file():
            return Path(found)
        raise BackendError(f"claude CLI from {origin} is not an executable file: {value}")
    if REPO_CLAUDE.is_file() and os.access(REPO_CLAUDE, os.X_OK):
        return REPO_CLAUDE
    on_path = shutil.which("claude")
    if on_path:
        return Path(on_path)
    raise BackendError(
        "claude CLI not found: run `make claude` (installs the pinned CLI under .tools/), "
        f"put `claude` on PATH, or set {BIN_ENV}"
    )


def redact(text: str, secrets: Sequence[str]) -> str:
    """`text` with every secret value and key-shaped string redacted (skillbench.redaction)."""
    return redaction.redact(text, secrets)


def skill_markdown(entry: SkillEntry) -> str:
    """SKILL.md text for an entry: YAML frontmatter (name, description) and the body."""
    front = yaml.safe_dump(
        {"name": entry.name, "description": entry.description},
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )
    body = entry.body if entry.body.endswith("\n") or not entry.body else entry.body + "\n"
    return f"---\n{front}---\n\n{body}"


def install_skills(project: Path, target: SkillEntry, catalog: Sequence[SkillEntry]) -> list[str]:
    """Write the target and the distractors as `.claude/skills/<name>/SKILL.md` under
    `project`; a catalog entry with the target's name is skipped (the candidate wins)."""
    installed: list[str] = []
    for index, entry in enumerate((target, *catalog)):
        where = "target.name" if index == 0 else f"catalog[{index - 1}].name"
        if not SKILL_NAME.match(entry.name) or entry.name in {".", ".."}:
            raise InputError(f"not a usable skill folder name: {entry.name!r}", field=where)
        if entry.name in installed:
            continue
        folder = project / ".claude" / "skills" / entry.name
        folder.mkdir(parents=True, exist_ok=False)
        (folder / "SKILL.md").write_text(skill_markdown(entry), encoding="utf-8")
        installed.append(entry.name)
    return installed


@dataclass
class RunResult:
    """What one CLI process produced."""

    session: Session
    exit_code: int | None
    timed_out: bool
    duration_seconds: float
    stderr_tail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class RunnerOptions(TypedDict, total=False):
    """The keyword options every `claude` runner accepts (see `_ClaudeRunner.__init__`)."""

    claude_bin: str | os.PathLike[str] | None
    timeout: float | None
    max_concurrency: int | None
    isolate_home: bool
    keep_workdirs: bool
    extra_args: Sequence[str]
    env: Mapping[str, str] | None


class _ClaudeRunner:
    """Shared machinery: binary, isolated environment, bounded concurrency, process control.

    Subclasses set `name`, `mode` (part of the identity when not None) and the defaults of
    `timeout` and `max_concurrency`; they implement `flags()`."""

    name: str = "claude-code"
    mode: ClassVar[str | None] = None
    default_timeout: ClassVar[float] = 120.0
    default_max_concurrency: ClassVar[int] = 2

    def __init__(
        self,
        model: str | None = None,
        *,
        claude_bin: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        max_concurrency: int | None = None,
        isolate_home: bool = True,
        keep_workdirs: bool = False,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        """`timeout` and `max_concurrency` default to the class's `default_*` values."""
        timeout = self.default_timeout if timeout is None else timeout
        max_concurrency = (
            self.default_max_concurrency if max_concurrency is None else max_concurrency
        )
        if timeout <= 0:
            raise InputError("must be positive", field="timeout")
        if max_concurrency < 1:
            raise InputError("must be at least 1", field="max_concurrency")
        self.model = model
        self.claude_bin = resolve_claude_bin(claude_bin)
        self.timeout = float(timeout)
        self.max_concurrency = int(max_concurrency)
        self.isolate_home = isolate_home
        self.keep_workdirs = keep_workdirs
        self.extra_args = tuple(extra_args)
        self.extra_env = dict(env or {})
        self._version: str | None = None
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        self._procs: set[asyncio.subprocess.Process] = set()
        self._workdirs: set[Path] = set()

    # -- environment -------------------------------------------------------------------------

    def secrets(self) -> list[str]:
        """Secret values currently in reach (for redaction only)."""
        values = [os.environ.get(name, "") for name in SECRET_VARS]
        values += [self.extra_env.get(name, "") for name in SECRET_VARS]
        return [v for v in values if v]

    def base_url(self) -> str | None:
        """ANTHROPIC_BASE_URL as the CLI will see it (credentials stripped)."""
        url = self.extra_env.get("ANTHROPIC_BASE_URL") or os.environ.get("ANTHROPIC_BASE_URL")
        return public_endpoint(url)

    def build_env(self, home: Path | None) -> dict[str, str]:
        """The CLI's environment: minimal and isolated (or inherited when isolate_home=False)."""
        if self.isolate_home and home is not None:
            env = {k: os.environ[k] for k in PASSTHROUGH_VARS if k in os.environ}
            config = home / ".claude"
            env.update(
                HOME=str(home),
                USERPROFILE=str(home),
                CLAUDE_CONFIG_DIR=str(config),
                XDG_CONFIG_HOME=str(home / ".config"),
                XDG_CACHE_HOME=str(home / ".cache"),
                XDG_DATA_HOME=str(home / ".local" / "share"),
                XDG_STATE_HOME=str(home / ".local" / "state"),
            )
            config.mkdir(parents=True, exist_ok=True)
        else:
            env = dict(os.environ)
        env.update(FIXED_ENV)
        env.update(self.extra_env)
        return env

    # -- workdirs ----------------------------------------------------------------------------

    def new_workdir(self) -> tuple[Path, Path, Path | None]:
        """A fresh (root, project, home) triple; home is None when not isolating."""
        root = Path(tempfile.mkdtemp(prefix="skillbench-cc-"))
        self._workdirs.add(root)
        project = root / "project"
        project.mkdir()
        home: Path | None = None
        if self.isolate_home:
            home = root / "home"
            home.mkdir()
        return root, project, home

    def drop_workdir(self, root: Path) -> None:
        """Remove a run's folder (unless keep_workdirs)."""
        self._workdirs.discard(root)
        if not self.keep_workdirs:
            shutil.rmtree(root, ignore_errors=True)

    @contextlib.contextmanager
    def workdir(self) -> Iterator[tuple[Path, Path, Path | None]]:
        """`new_workdir()` for the duration of a `with` block, then `drop_workdir()`."""
        root, project, home = self.new_workdir()
        try:
            yield root, project, home
        finally:
            self.drop_workdir(root)

    # -- identity ----------------------------------------------------------------------------

    def flags(self) -> list[str]:
        """The CLI flags of a run (the prompt goes after `-p`)."""
        raise NotImplementedError

    def with_model_and_extra_args(self, args: list[str]) -> list[str]:
        """`args`, then `--model <model>` when a model is set, then the caller's extra_args."""
        if self.model:
            args = [*args, "--model", self.model]
        return [*args, *self.extra_args]

    def identity(self) -> dict[str, Any]:
        """Backend, mode, model, CLI version and flags (no secrets: the base URL without
        credentials)."""
        mode = {"mode": self.mode} if self.mode is not None else {}
        return {
            "backend": self.name,
            **mode,
            "model": self.model,
            "cli_version": self.version(),
            "flags": self.flags(),
            "isolate_home": self.isolate_home,
            "base_url": self.base_url(),
        }

    # -- version -----------------------------------------------------------------------------

    def version(self) -> str:
        """`claude --version` (run once, in an isolated HOME), e.g. `2.1.197`."""
        if self._version is None:
            with tempfile.TemporaryDirectory(prefix="skillbench-cc-v-") as tmp:
                home = Path(tmp) if self.isolate_home else None
                try:
                    done = subprocess.run(
                        [str(self.claude_bin), "--version"],
                        capture_output=True,
                        text=True,
                        timeout=60,
                        env=self.build_env(home),
                        cwd=tmp,
                        stdin=subprocess.DEVNULL,
                        check=False,
                    )
                except (OSError, subprocess.TimeoutExpired) as exc:
                    raise BackendError(f"`claude --version` failed: {type(exc).__name__}") from None
            out = redact(done.stdout.strip(), self.secrets())
            if done.returncode != 0 or not out:
                raise BackendError(f"`claude --version` exited with code {done.returncode}")
            match = re.search(r"\d+\.\d+\.\d+\S*", out)
            self._version = match.group(0) if match else out.splitlines()[0][:80]
        return self._version

    # -- processes ---------------------------------------------------------------------------

    def _semaphore(self) -> asyncio.Semaphore:
        loop_id = id(asyncio.get_running_loop())
        if loop_id not in self._semaphores:
            self._semaphores[loop_id] = asyncio.Semaphore(self.max_concurrency)
        return self._semaphores[loop_id]

    @staticmethod
    def _kill(proc: asyncio.subprocess.Process) -> None:
        """Kill the process and its whole group (the CLI spawns children)."""
        if proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()

    async def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: dict[str, str],
        parser: StreamParser | None = None,
    ) -> RunResult:
        """Run the CLI once (bounded concurrency), parsing stdout as stream-json until EOF,
        killing its process group on timeout. `parser` lets a caller keep the raw lines."""
        async with self._semaphore():
            parser = parser if parser is not None else StreamParser()
            started = time.monotonic()
            stderr_chunks: list[bytes] = []
            try:
                proc = await asyncio.create_subprocess_exec(
                    str(self.claude_bin),
                    *args,
                    cwd=str(cwd),
                    env=env,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    start_new_session=True,
                    limit=STREAM_LIMIT,
                )
            except OSError as exc:
                return RunResult(
                    parser.session, None, False, time.monotonic() - started, f"cannot start: {exc}"
                )
            self._procs.add(proc)

            async def read_stdout() -> None:
                assert proc.stdout is not None
                while not parser.done:
                    try:
                        line = await proc.stdout.readline()
                    except ValueError:  # a line beyond STREAM_LIMIT: count it, keep reading
                        parser.session.bad_lines += 1
                        continue
                    if not line:
                        return
                    parser.feed(line)

            async def read_stderr() -> None:
                assert proc.stderr is not None
                while chunk := await proc.stderr.read(65536):
                    stderr_chunks.append(chunk)
                    while sum(map(len, stderr_chunks)) > 4 * STDERR_TAIL and len(stderr_chunks) > 1:
                        stderr_chunks.pop(0)

            timed_out = False
            stderr_task = asyncio.ensure_future(read_stderr())
            try:
                try:
                    async with asyncio.timeout(self.timeout):
                        await read_stdout()
                except TimeoutError:
                    timed_out = True
                if not timed_out:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(AFTER_RESULT_GRACE):
                            await proc.wait()
            finally:
                self._kill(proc)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(proc.wait(), AFTER_RESULT_GRACE)
                await asyncio.wait({stderr_task}, timeout=1.0)  # drain stderr after the exit
                stderr_task.cancel()
                with contextlib.suppress(BaseException):
                    await stderr_task
                self._procs.discard(proc)
            tail = b"".join(stderr_chunks).decode("utf-8", errors="replace")[-STDERR_TAIL:]
            return RunResult(
                session=parser.session,
                exit_code=proc.returncode,
                timed_out=timed_out,
                duration_seconds=time.monotonic() - started,
                stderr_tail=redact(tail, self.secrets()),
            )

    async def run_prompt(
        self,
        prompt: str,
        flags: Sequence[str],
        project: Path,
        home: Path | None,
        parser: StreamParser | None = None,
    ) -> RunResult:
        """`claude -p <prompt> <flags>` in `project`, with the environment of `home`."""
        return await self.run(["-p", prompt, *flags], project, self.build_env(home), parser)

    async def aclose(self) -> None:
        """Kill any process still running and remove leftover folders."""
        for proc in list(self._procs):
            self._kill(proc)
        self._procs.clear()
        for root in list(self._workdirs):
            self.drop_workdir(root)


def run_error(run: RunResult, timeout: float, secrets: Sequence[str]) -> str | None:
    """Why a run did not complete (None when it did). Order: timeout, failed login, missing
    result, is_error result, non-zero exit."""
    session = run.session
    result = session.result
    if run.timed_out:
        return f"timeout: no result event within {timeout:g} s (process group killed)"
    if "authentication_failed" in session.assistant_errors:
        return "authentication_failed: the CLI is not logged in or the API key was rejected"
    if result is None:
        detail = run.stderr_tail.strip().splitlines()[-1:] if run.stderr_tail.strip() else []
        why = f": {detail[0][:300]}" if detail else ""
        return f"no result event (exit code {run.exit_code}){why}"
    if result.is_error:
        status = f" (HTTP {result.api_error_status})" if result.api_error_status else ""
        errors = f" [{', '.join(session.assistant_errors)}]" if session.assistant_errors else ""
        text = redact((result.result or "").strip(), secrets)[:300]
        return f"is_error result {result.subtype or '?'}{status}{errors}: {text}"
    if run.exit_code not in (0, None):
        return f"exit code {run.exit_code} after a result event"
    return None


def _usage(session: Session) -> CallUsage:
    result = session.result
    if result is None:
        return CallUsage()
    return CallUsage(
        input_tokens=result.usage.input_tokens,
        output_tokens=result.usage.output_tokens,
        cache_read_input_tokens=result.usage.cache_read_input_tokens,
        cache_creation_input_tokens=result.usage.cache_creation_input_tokens,
        cost_usd=float(result.total_cost_usd or 0.0),
    )


class ClaudeCodeJudge(_ClaudeRunner):
    """TriggerJudge running the real `claude` CLI, one isolated temporary project per run.

    `fired` is the target when it was invoked, else the first other skill invoked (catalog or
    built-in), else None. A session that hit `--max-turns` after some skill fired is a valid
    outcome (the routing decision was made); without any skill it is an error.
    """

    is_proxy = False
    default_timeout = 120.0
    default_max_concurrency = 4

    def __init__(
        self, model: str | None = None, *, max_turns: int = 4, **options: Unpack[RunnerOptions]
    ) -> None:
        super().__init__(model, **options)
        if max_turns < 1:
            raise InputError("must be at least 1", field="max_turns")
        self.max_turns = int(max_turns)

    def flags(self) -> list[str]:
        """The CLI flags every run uses (the query goes after `-p`)."""
        args = [
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--setting-sources",
            "project",
            "--max-turns",
            str(self.max_turns),
            "--no-session-persistence",
        ]
        return self.with_model_and_extra_args(args)

    def versions(self) -> dict[str, str]:
        """The CLI version for the report."""
        return {"claude_code": self.version()}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """Run the query once in a fresh isolated project and read the whole session."""
        with self.workdir() as (root, project, home):
            install_skills(project, request.target, request.catalog)
            run = await self.run_prompt(request.query, self.flags(), project, home)
            return self._outcome(request, run, root)

    def _outcome(self, request: TriggerRequest, run: RunResult, root: Path) -> TriggerOutcome:
        session = run.session
        invoked = skill_invocations(session)
        target = request.target.name
        triggered = target in invoked
        others = [name for name in invoked if name != target]
        fired = target if triggered else (others[0] if others else None)
        stats = metrics(session)
        detail: dict[str, Any] = {
            "skills_invoked": invoked,
            "first_tool": session.tool_uses[0].name if session.tool_uses else None,
            "tool_calls": stats.tool_calls,
            "tool_errors": stats.tool_errors,
            "num_turns": stats.num_turns,
            "duration_ms": stats.duration_ms,
            "result_subtype": session.result.subtype if session.result else None,
            "exit_code": run.exit_code,
            "session_id": session.init.session_id if session.init else None,
            "skills_available": session.init.skills if session.init else [],
            "bad_lines": session.bad_lines,
        }
        if self.keep_workdirs:
            detail["workdir"] = str(root)
        error = run_error(run, self.timeout, self.secrets())
        result = session.result
        if (
            error is not None
            and result is not None
            and result.subtype == "error_max_turns"
            and invoked
            and not run.timed_out
        ):
            error = None  # the routing decision was made before the turn limit
        if error is not None:
            detail["stderr_tail"] = run.stderr_tail
            return TriggerOutcome(
                triggered=False,
                fired=None,
                error=error,
                usage=_usage(session),
                duration_seconds=run.duration_seconds,
                detail=detail,
            )
        return TriggerOutcome(
            triggered=triggered,
            fired=fired,
            usage=_usage(session),
            duration_seconds=run.duration_seconds,
            detail=detail,
        )

    async def aclose(self) -> None:
        """Kill running sessions and remove leftover temporary projects."""
        await super().aclose()


class ClaudeCodeTextModel(_ClaudeRunner):
    """TextModel answering through `claude -p <prompt> --output-format json`, no tools, one turn,
    in an empty isolated project. `max_tokens` and `temperature` cannot be set through the CLI
    and are ignored (they are still part of the request's cache fields)."""

    mode = "text"
    default_timeout = 300.0
    default_max_concurrency = 2

    def flags(self, system: str = "") -> list[str]:
        """The CLI flags of a text call (the prompt goes after `-p`)."""
        args = [
            "--output-format",
            "json",
            "--setting-sources",
            "project",
            "--max-turns",
            "1",
            "--tools",
            "",
            "--no-session-persistence",
        ]
        if system:
            args += ["--system-prompt", system]
        return self.with_model_and_extra_args(args)

    async def complete(self, request: TextRequest) -> TextResponse:
        """The CLI's answer to the prompt. BackendError when the run fails."""
        with self.workdir() as (_, project, home):
            run = await self.run_prompt(request.prompt, self.flags(request.system), project, home)
        error = run_error(run, self.timeout, self.secrets())
        result = run.session.result
        if error is not None or result is None:
            raise BackendError(f"claude CLI text call failed: {error or 'no result'}")
        return TextResponse(text=result.result or "", usage=_usage(run.session))
