"""The real `claude` CLI as a trigger harness (and a text model), each run fully isolated.

Every run gets a fresh temporary folder holding `project/` (the candidate installed as a REAL
skill: its whole folder at `.claude/skills/<name>/`, only the description replaced; the catalog's
distractor skills beside it) and `home/` (an isolated HOME and config dir, so the user's own
skills, plugins and settings cannot interfere). The CLI gets an allowlisted environment
(`skillbench.backends.claude_cli.env`): the agent's own settings and model pins, never the
caller's other secrets. The provider key never enters a session: the session gets a random dummy
key and a loopback base URL, and the runner's key forwarder (`backends.key_forwarder`) adds the
real key and forwards only to the configured base URL. Bedrock, Vertex and Foundry are the
exception (their own variables pass); `auth="login"` copies a subscription login into the
isolated HOME (`skillbench.backends.claude_cli.login`).

The CLI runs in print mode with `--output-format stream-json`. A trigger is a `Skill` call naming
the skill, or a `Read` of its SKILL.md, at ANY point of the session. The stream is read until
the outcome is decided: as soon as the target fires, the session's whole process group is killed
(the turns after it cost time and tokens and change nothing; usage then comes from the streamed
messages). A session in which the target has not fired runs to its `result` event, since the
target may still fire later (after a Bash call, another skill, …). A timeout, a crash, a missing
`result` without a decision, an `is_error` result or a failed login is an error outcome, never
"not triggered".

Secrets (API keys, tokens) never reach a session, a file, an identity, an outcome or an error
message (any echo of them is redacted all the same).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypedDict, Unpack

from skillbench import redaction
from skillbench.backends.agent_cli import print_call, spawn_options
from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
    public_endpoint,
)
from skillbench.backends.claude_cli.env import (
    FIXED_ENV,
    KEY_VARS,
    SECRET_VARS,
    build_env,
    provider_of,
    request_settings,
    secret_values,
)
from skillbench.backends.claude_cli.login import (
    LOGIN_DROPS,
    Login,
    check_auth,
    find_login,
    install_login,
)
from skillbench.backends.claude_cli.resume import (
    FollowUp,
    answer_event,
    merge_results,
    resume_args,
    stored_args,
)
from skillbench.backends.claude_cli.spec import CLAUDE_INSTALL_HINT
from skillbench.backends.claude_cli.stream_json import (
    ResultEvent,
    Session,
    StreamParser,
    invoked_skill,
    metrics,
)
from skillbench.backends.key_forwarder import KeyForwarder, custom_headers
from skillbench.backends.proctree import unwatch, watch
from skillbench.backends.scratch import make_scratch, private_root
from skillbench.backends.session_runner import (
    STDERR_TAIL,
    STREAM_LIMIT,
    SessionRunner,
    end_process,
    kill_process,
    local_cli,
    read_tail,
    version_in,
    write_stdin,
)
from skillbench.backends.skill_install import (
    CliSkill,
    cli_skills,
    install_skills,
    resolve_call,
    skill_markdown,
)
from skillbench.errors import BackendError, InputError
from skillbench.limits import ROUTING_CALL_TIMEOUT, TEXT_CALL_TIMEOUT

__all__ = [
    "BIN_ENV",
    "FIXED_ENV",
    "REPO_CLAUDE",
    "SECRET_VARS",
    "ClaudeCodeJudge",
    "ClaudeCodeTextModel",
    "install_skills",
    "resolve_claude_bin",
    "skill_markdown",
]

BIN_ENV = "SKILLBENCH_CLAUDE_BIN"
REPO_ROOT = Path(__file__).resolve().parents[3]
REPO_CLAUDE = REPO_ROOT / ".tools" / "node_modules" / ".bin" / "claude"
AFTER_RESULT_GRACE = 5.0
DECIDED_GRACE = 2.0


def resolve_claude_bin(claude_bin: str | os.PathLike[str] | None = None) -> Path:
    """The `claude` executable: the argument, then $SKILLBENCH_CLAUDE_BIN, then the `claude`
    on PATH (the CLI the user runs), then the checkout's pinned `.tools/node_modules/.bin/claude`
    (issue 32). BackendError when none is usable."""
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
    on_path = shutil.which("claude")
    if on_path:
        return Path(on_path)
    if REPO_CLAUDE.is_file() and os.access(REPO_CLAUDE, os.X_OK):
        return REPO_CLAUDE
    raise BackendError(f"claude CLI not found: {CLAUDE_INSTALL_HINT}")


def redact(text: str, secrets: Sequence[str]) -> str:
    """`text` with every secret value and key-shaped string redacted (skillbench.redaction)."""
    return redaction.redact(text, secrets)


@dataclass
class RunResult:
    """What one CLI process produced. `decided` is True when the reading stopped early because
    the outcome was decided (the process group was then killed on purpose)."""

    session: Session
    exit_code: int | None
    timed_out: bool
    duration_seconds: float
    stderr_tail: str = ""
    decided: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


StopRule = Callable[[Session], bool]
"""Called after every stream line; True ends the session (its process group is killed)."""


class RunnerOptions(TypedDict, total=False):
    """The keyword options every `claude` runner accepts (see `ClaudeRunner.__init__`)."""

    claude_bin: str | os.PathLike[str] | None
    timeout: float | None
    max_concurrency: int | None
    workers: int | None
    isolate_home: bool
    keep_workdirs: bool
    extra_args: Sequence[str]
    env: Mapping[str, str] | None
    pass_env: bool
    auth: str | None


class JudgeOptions(RunnerOptions, total=False):
    """The keyword options of a `claude` trigger judge, either mode (`ClaudeCodeJudge`)."""

    max_turns: int
    stop_on_trigger: bool


class ClaudeRunner(SessionRunner[asyncio.subprocess.Process]):
    """The public runner of `claude` sessions: binary, isolated environment, bounded
    concurrency, process control (what every session runner shares: `session_runner`). The
    trigger judge and text model here, and behavior's agentic executor
    (`skillbench.behavior.executors.ClaudeCodeExecutor`), build on it.

    Subclasses set `name`, `mode` (part of the identity when not None) and the defaults of
    `timeout` and `max_concurrency` (None: no cap of the backend's own, the caller's `workers`
    bound it); they implement `flags()`."""

    name: str = "claude-code"
    mode: ClassVar[str | None] = None
    default_timeout: ClassVar[float] = ROUTING_CALL_TIMEOUT
    default_max_concurrency: ClassVar[int | None] = 2

    def __init__(
        self,
        model: str | None = None,
        *,
        claude_bin: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        max_concurrency: int | None = None,
        workers: int | None = None,
        isolate_home: bool = True,
        keep_workdirs: bool = False,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        pass_env: bool = True,
        auth: str | None = None,
    ) -> None:
        """`timeout` and `max_concurrency` default to the class's `default_*` values; `workers`
        is the same setting under the name the trigger eval uses (`--workers`). `pass_env`
        False passes only a minimal whitelist of the caller's variables. `auth="login"` copies
        the caller's Claude Code login into each isolated HOME (and leaves API keys out);
        None reads `$SKILLBENCH_CLAUDE_AUTH` (default `env`)."""
        super().__init__()
        timeout = self.default_timeout if timeout is None else timeout
        if workers is not None and max_concurrency is not None and workers != max_concurrency:
            raise InputError("give workers or max_concurrency, not both", field="workers")
        cap = workers if workers is not None else max_concurrency
        cap = self.default_max_concurrency if cap is None else cap
        if timeout <= 0:
            raise InputError("must be positive", field="timeout")
        if cap is not None and cap < 1:
            raise InputError(
                "must be at least 1", field="workers" if workers is not None else "max_concurrency"
            )
        self.model = model
        self.auth = check_auth(auth)
        self.login: Login | None = None
        if self.auth == "login":
            if not isolate_home:
                raise InputError(
                    "--auth login needs an isolated HOME (the caller's own HOME already holds it)",
                    path="--auth",
                )
            self.login = find_login()
        self.claude_bin = resolve_claude_bin(claude_bin)
        self.timeout = float(timeout)
        self.max_concurrency = None if cap is None else int(cap)
        self.isolate_home = isolate_home
        self.keep_workdirs = keep_workdirs
        self.extra_args = tuple(extra_args)
        self.extra_env = dict(env or {})
        self.pass_env = pass_env
        self._workdirs: set[Path] = set()
        self._private: dict[Path, list[Path]] = {}

    def _relocate(self, api_url: str) -> Path:
        """`on_node`'s copy: this machine's `claude` (the one given when it is here, else
        `resolve_claude_bin`), none of the sender's folders, `ANTHROPIC_BASE_URL` = `api_url`
        (its key forwarder, started by its first session here, forwards there)."""
        self.extra_env = {**self.extra_env, "ANTHROPIC_BASE_URL": api_url}
        self._workdirs, self._private = set(), {}
        given = Path(self.claude_bin)
        self.claude_bin = local_cli(given, resolve_claude_bin, given.name)
        return self.claude_bin

    def api_upstream(self) -> str | None:
        """The base URL its sessions call: `ANTHROPIC_BASE_URL` (None: the Anthropic API)."""
        return self.extra_env.get("ANTHROPIC_BASE_URL") or os.environ.get("ANTHROPIC_BASE_URL")

    # -- environment -------------------------------------------------------------------------

    def secrets(self) -> list[str]:
        """Secret values currently in reach (for redaction only)."""
        return secret_values(dict(os.environ), self.extra_env)

    def base_url(self) -> str | None:
        """ANTHROPIC_BASE_URL as the CLI will see it (credentials stripped)."""
        url = self.extra_env.get("ANTHROPIC_BASE_URL") or os.environ.get("ANTHROPIC_BASE_URL")
        return public_endpoint(url)

    def provider(self) -> str:
        """Which API the CLI calls: `bedrock`, `vertex`, `foundry` or `anthropic`."""
        return provider_of({**os.environ, **self.extra_env})

    def route(self) -> dict[str, str] | None:
        """The dummy keys and the key forwarder's loopback base URL for a session (the
        forwarder is started on first use, in this process, and stopped by `aclose`); None
        when the CLI reaches its provider itself (Bedrock, Vertex, Foundry, a login, no key)."""
        env = {**os.environ, **self.extra_env}
        keys = {name: env[name] for name in KEY_VARS if env.get(name)}
        if self.provider() != "anthropic" or self.login is not None or not keys:
            return None

        def start() -> KeyForwarder:
            upstream = env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
            headers = custom_headers(env.get("ANTHROPIC_CUSTOM_HEADERS"))
            return KeyForwarder(upstream, keys, extra_headers=headers).start()

        forwarder = self._shared_forwarder(start)
        return {**forwarder.session_keys(), "ANTHROPIC_BASE_URL": forwarder.url}

    def build_env(self, home: Path | None) -> dict[str, str]:
        """A session's environment: the allowlisted variables, an isolated HOME (or the caller's
        HOME when isolate_home=False) and dummy keys pointing at the key forwarder (`route`);
        see `claude_cli.env`."""
        return build_env(
            home if self.isolate_home else None,
            pass_env=self.pass_env,
            extra=self.extra_env,
            drop=LOGIN_DROPS if self.login is not None else frozenset(),
            route=self.route(),
        )

    # -- workdirs ----------------------------------------------------------------------------

    def new_workdir(self) -> tuple[Path, Path, Path | None]:
        """A fresh (root, project, home) triple; home is None when not isolating. Under
        `auth="login"` the login is copied into the home's config dir. The folder names this
        process (`scratch`), so a later start removes it if this process is killed; a kept
        folder (keep_workdirs) is not named so and is never swept."""
        if self.keep_workdirs:
            root = Path(tempfile.mkdtemp(prefix="skillbench-cc-", dir=private_root()))
        else:
            root = make_scratch("cc")
        self._workdirs.add(root)
        project = root / "project"
        project.mkdir()
        home: Path | None = None
        if self.isolate_home:
            home = root / "home"
            home.mkdir()
            if self.login is not None:
                self._private[root] = install_login(self.login, home / ".claude")
        return root, project, home

    def drop_workdir(self, root: Path) -> None:
        """Remove a run's folder (unless keep_workdirs; copied login files are always removed)."""
        self._workdirs.discard(root)
        for path in self._private.pop(root, []):
            with contextlib.suppress(OSError):
                path.unlink()
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
        """The CLI flags of a run (the prompt goes to stdin)."""
        raise NotImplementedError

    def with_model_and_extra_args(self, args: list[str]) -> list[str]:
        """`args`, then `--model <model>` when a model is set, then the caller's extra_args."""
        if self.model:
            args = [*args, "--model", self.model]
        return [*args, *self.extra_args]

    def identity(self) -> dict[str, Any]:
        """Backend, mode, model, CLI version, flags, provider and auth (no secrets: the base
        URL without credentials). The model pins of the environment are part of it, since they
        change which model answers."""
        mode = {"mode": self.mode} if self.mode is not None else {}
        env = {**os.environ, **self.extra_env}
        pins = {
            k: env[k]
            for k in sorted(env)
            if k == "ANTHROPIC_MODEL" or re.match(r"^ANTHROPIC_DEFAULT_[A-Z0-9_]+_MODEL$", k)
        }
        budget = env.get("SLASH_COMMAND_TOOL_CHAR_BUDGET")
        return {
            "backend": self.name,
            **mode,
            "model": self.model,
            "cli_version": self.version(),
            "flags": self.flags(),
            "isolate_home": self.isolate_home,
            "base_url": self.base_url(),
            **({"provider": self.provider()} if self.provider() != "anthropic" else {}),
            **({"model_env": pins} if pins else {}),
            **({"listing_budget": budget} if budget else {}),
            **({"auth": self.auth} if self.auth != "env" else {}),
            "settings": self.request_settings(),
        }

    def request_settings(self) -> dict[str, str]:
        """The request-changing settings (`claude_env.REQUEST_SETTINGS`) of the environment the
        CLI actually gets (`build_env`; the home is not created: HOME changes no setting)."""
        env = build_env(
            Path(tempfile.gettempdir()) / "skillbench-cc-home" if self.isolate_home else None,
            pass_env=self.pass_env,
            extra=self.extra_env,
            drop=LOGIN_DROPS if self.login is not None else frozenset(),
            create_home=False,
        )
        return dict(sorted(request_settings(env).items()))

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
                        env=build_env(home, pass_env=self.pass_env, extra=self.extra_env),
                        cwd=tmp,
                        stdin=subprocess.DEVNULL,
                        check=False,
                        **spawn_options(),
                    )
                except (OSError, subprocess.TimeoutExpired) as exc:
                    raise BackendError(f"`claude --version` failed: {type(exc).__name__}") from None
            out = redact(done.stdout.strip(), self.secrets())
            if done.returncode != 0 or not out:
                raise BackendError(f"`claude --version` exited with code {done.returncode}")
            self._version = version_in(out)
        return self._version

    # -- processes ---------------------------------------------------------------------------

    async def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: dict[str, str],
        parser: StreamParser | None = None,
        stop: StopRule | None = None,
        stdin: bytes | None = None,
        prefix: Sequence[str] = (),
        timeout: float | None = None,
    ) -> RunResult:
        """Run the CLI once (bounded concurrency), parsing stdout as stream-json until the
        `result` event, or until `stop(session)` is True (the outcome is decided). The process
        runs in a session of its own and dies with this process (`agent_cli.spawn_options`);
        its whole group is killed at the end in every case (an early stop, a timeout, or
        leftover children after a normal exit), so nothing outlives a run. `stdin` (the prompt)
        is written to the CLI's stdin, then closed; None gives it no stdin. `parser` lets a
        caller keep the raw lines. `prefix` runs the CLI under a launcher (a hermetic run's
        network namespace: `skillbench.hermetic.netns`). `timeout` (default: the runner's)
        bounds this run."""
        async with self._slot():
            parser = parser if parser is not None else StreamParser()
            started = time.monotonic()
            stderr_chunks: list[bytes] = []
            decided = False
            try:
                proc = await asyncio.create_subprocess_exec(
                    *prefix,
                    str(self.claude_bin),
                    *args,
                    cwd=str(cwd),
                    env=env,
                    stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    limit=STREAM_LIMIT,
                    **spawn_options(),
                )
            except OSError as exc:
                return RunResult(
                    parser.session, None, False, time.monotonic() - started, f"cannot start: {exc}"
                )
            self._procs.add(proc)
            watch(proc.pid)  # its group dies with skillbench, whatever kills skillbench

            async def read_line() -> bool:
                """Feed one line to the parser; False at the end of the stream."""
                assert proc.stdout is not None
                try:
                    line = await proc.stdout.readline()
                except ValueError:  # a line beyond STREAM_LIMIT: count it, keep reading
                    parser.session.bad_lines += 1
                    return True
                if not line:
                    return False
                parser.feed(line)
                return True

            async def read_stdout() -> bool:
                """True when stopped because the outcome was decided. After the decision the
                streamed message that made it is read to its end (at most DECIDED_GRACE s), so
                its output tokens are counted."""
                while not parser.done:
                    if not await read_line():
                        return False
                    if stop is not None and not parser.done and stop(parser.session):
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(DECIDED_GRACE):
                                while parser.session.streaming and not parser.done:
                                    if not await read_line():
                                        break
                        return True
                return False

            timed_out = False
            stderr_task = asyncio.ensure_future(read_tail(proc, stderr_chunks))
            writing = [asyncio.ensure_future(write_stdin(proc, stdin))] if stdin is not None else []
            try:
                try:
                    async with asyncio.timeout(self.timeout if timeout is None else timeout):
                        decided = await read_stdout()
                except TimeoutError:
                    timed_out = True
                if not timed_out and not decided:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(AFTER_RESULT_GRACE):
                            await proc.wait()
            finally:
                await end_process(proc, stderr_task, *writing)
                self._procs.discard(proc)
                unwatch(proc.pid)
            tail = b"".join(stderr_chunks).decode("utf-8", errors="replace")[-STDERR_TAIL:]
            return RunResult(
                session=parser.session,
                exit_code=proc.returncode,
                timed_out=timed_out,
                duration_seconds=time.monotonic() - started,
                stderr_tail=redact(tail, self.secrets()),
                decided=decided,
            )

    async def run_prompt(
        self,
        prompt: str,
        flags: Sequence[str],
        project: Path,
        home: Path | None,
        parser: StreamParser | None = None,
        stop: StopRule | None = None,
    ) -> RunResult:
        """`claude -p <flags>` in `project`, with the environment of `home`; the prompt goes to
        stdin (`agent_cli.print_call`), so no prompt can be parsed as an option."""
        call = print_call(self.claude_bin, flags, prompt)
        env = self.build_env(home)
        return await self.run(call.argv[1:], project, env, parser, stop, stdin=call.stdin)

    async def run_with_follow_ups(
        self,
        args: Sequence[str],
        cwd: Path,
        env: dict[str, str],
        parser: StreamParser,
        follow_up: FollowUp,
        stdin: bytes,
        prefix: Sequence[str] = (),
    ) -> RunResult:
        """`run` with the session stored, then, while its turn ended without error and
        `follow_up` gives a next prompt for the final reply, the same session resumed with it
        (`claude_cli.resume`), all within the runner's timeout. The parser sees every
        invocation's events, each next prompt as a marked `user` event (`answer_event`); the
        session's result is the merged one (`merge_results`). Sessions are stored in the
        session's HOME: an isolated one goes with the run's folder."""
        started = time.monotonic()
        args = stored_args(args)
        results: list[ResultEvent] = []
        run = await self.run(args, cwd, env, parser, stdin=stdin, prefix=prefix)
        while (result := parser.session.result) is not None:
            results.append(result)
            if run_error(run, self.timeout, self.secrets()) is not None:
                break
            init = parser.session.init
            session_id = result.session_id or (init.session_id if init else None)
            left = self.timeout - (time.monotonic() - started)
            resumable = session_id is not None and left > 0
            prompt = follow_up(result.result or "", resumable)
            if prompt is None or not resumable or session_id is None:
                break
            parser.feed(json.dumps(answer_event(prompt)))
            parser.session.result = None
            again = resume_args(args, session_id)
            run = await self.run(
                again, cwd, env, parser, stdin=prompt.encode(), prefix=prefix, timeout=left
            )
        if parser.session.result is not None:
            parser.session.result = merge_results(results)
        return RunResult(
            session=parser.session,
            exit_code=run.exit_code,
            timed_out=run.timed_out,
            duration_seconds=time.monotonic() - started,
            stderr_tail=run.stderr_tail,
            decided=run.decided,
        )

    async def aclose(self) -> None:
        """Kill any process still running and remove leftover folders."""
        for proc in list(self._procs):
            kill_process(proc)
        self._procs.clear()
        for root in list(self._workdirs):
            self.drop_workdir(root)
        self.stop_forwarder()


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


def session_usage(session: Session) -> CallUsage:
    """The tokens and dollars of a session, from its `result` event (zero without one)."""
    result = session.result
    if result is None:
        return CallUsage()
    usage = CallUsage.from_wire(result.usage)
    usage.cost_usd = float(result.total_cost_usd or 0.0)
    return usage


def resolved_invocations(
    session: Session, target: str, skills: Sequence[CliSkill] = ()
) -> tuple[list[str], list[str]]:
    """(skills the session ran, in order, the target under the name `target`; skills it tried
    to run that Claude Code refused). A name is resolved as the CLI's Skill tool resolves it
    (`claude_install.resolve_call`: folder or frontmatter name); a `Skill` call to a
    `disable-model-invocation` skill gets a `tool_use_error` and runs nothing. Without `skills`
    names are taken as called."""
    ran: list[str] = []
    refused: list[str] = []
    for tool in session.tool_uses:
        called = invoked_skill(tool)
        if not called:
            continue
        skill = resolve_call(called, skills) if skills else None
        if skill is not None and skill.disabled and tool.name == "Skill":
            name = target if skill.target else skill.name
            if name not in refused:
                refused.append(name)
            continue
        name = target if skill is not None and skill.target else (skill.name if skill else called)
        if name not in ran:
            ran.append(name)
    return ran, refused


def target_fired(target: str, skills: Sequence[CliSkill] = ()) -> StopRule:
    """The stop rule of a trigger run: True once a tool call invokes `target` (a `Skill` call
    naming it — by folder or frontmatter name — unless Claude Code refuses it, or a `Read` of
    its SKILL.md). The tool call is complete by then: a streamed block is taken at its
    `content_block_stop`, an `assistant` message whole."""

    def decided(session: Session) -> bool:
        return target in resolved_invocations(session, target, skills)[0]

    return decided


def session_detail(
    session: Session,
    invoked: list[str],
    turns: Mapping[str, Any],
    exit_code: int | None,
    decided: bool,
) -> dict[str, Any]:
    """What a judged session's outcome records in either CLI mode, in order; `turns`: how the
    mode counts its turns and tells its end (print: the `result` event; interactive: the
    transcript)."""
    stats = metrics(session)
    init = session.init
    return {
        "skills_invoked": invoked,
        "first_tool": session.tool_uses[0].name if session.tool_uses else None,
        "tool_calls": stats.tool_calls,
        "tool_errors": stats.tool_errors,
        **turns,
        "exit_code": exit_code,
        "session_id": init.session_id if init else None,
        "skills_available": init.skills if init else [],
        "bad_lines": session.bad_lines,
        "model": init.model if init else None,
        "cli_version": init.claude_code_version if init else None,
        "ended_early": decided,
    }


def routing_outcome(
    target: str,
    invoked: Sequence[str],
    usage: CallUsage,
    duration: float,
    detail: dict[str, Any],
    error: str | None = None,
) -> TriggerOutcome:
    """A judged session's outcome: the `error` when it failed (never "not triggered"), else
    `fired` the target when it was invoked, else the first other skill invoked, else None."""
    if error is not None:
        return TriggerOutcome(
            triggered=False,
            fired=None,
            error=error,
            usage=usage,
            duration_seconds=duration,
            detail=detail,
        )
    others = [name for name in invoked if name != target]
    triggered = target in invoked
    return TriggerOutcome(
        triggered=triggered,
        fired=target if triggered else (others[0] if others else None),
        usage=usage,
        duration_seconds=duration,
        detail=detail,
    )


def streamed_usage(session: Session, model: str | None) -> tuple[CallUsage, bool]:
    """Usage of a session ended before its `result` event, from the streamed messages, priced
    with the shipped table when the model is known. Returns (usage, cost known)."""
    from skillbench.schemas.prices import cost

    usage = CallUsage.from_wire(session.stream_usage)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        price = cost(model, usage) if model else None
    usage.cost_usd = price or 0.0
    return usage, price is not None


class ClaudeCodeJudge(ClaudeRunner):
    """TriggerJudge running the real `claude` CLI, one isolated temporary project per run.

    `fired` is the target when it was invoked, else the first other skill invoked (catalog or
    built-in), else None. The session ends as soon as the target fires (`stop_on_trigger`,
    on by default; its process group is killed); otherwise it runs to its `result` event. A
    session that hit `--max-turns` after some skill fired is a valid outcome (the routing
    decision was made); without any skill it is an error.

    Concurrency: `workers=` (`max_concurrency=`) CLI sessions at once — a trigger eval passes its
    `--workers`; without either, 4 (the spec's `default_workers`: each session is a Node process
    of a few hundred MB).
    The model the CLI reports in its init event is recorded per run (`detail["model"]`) and in
    `versions()` (`claude_code_model`).
    """

    is_proxy = False
    default_timeout = ROUTING_CALL_TIMEOUT
    default_max_concurrency = 4

    def __init__(
        self,
        model: str | None = None,
        *,
        max_turns: int = 4,
        stop_on_trigger: bool = True,
        **options: Unpack[RunnerOptions],
    ) -> None:
        super().__init__(model, **options)
        if max_turns < 1:
            raise InputError("must be at least 1", field="max_turns")
        self.max_turns = int(max_turns)
        self.stop_on_trigger = bool(stop_on_trigger)
        self.reported_models: list[str] = []
        self.ended_early = 0
        self._skill_sets: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], tuple[CliSkill, ...]] = {}

    def flags(self) -> list[str]:
        """The CLI flags every run uses (the query goes to stdin)."""
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
        """The CLI version, and the model(s) the CLI reported in its init events so far."""
        found = {"claude_code": self.version()}
        if self.reported_models:
            found["claude_code_model"] = ", ".join(self.reported_models)
        if self.provider() != "anthropic":
            found["claude_code_provider"] = self.provider()
        return found

    def _note_model(self, model: object) -> None:
        if isinstance(model, str) and model and model not in self.reported_models:
            self.reported_models.append(model)

    def _noted(self, detail: dict[str, Any], refused: list[str], root: Path) -> dict[str, Any]:
        """`detail` (`session_detail`) with the Skill calls Claude Code refused and the kept
        folder; the model it names noted (`versions`)."""
        self._note_model(detail["model"])
        if refused:  # Skill calls Claude Code answered with a tool_use_error: nothing ran
            detail["disabled_skill_calls"] = refused
        if self.keep_workdirs:
            detail["workdir"] = str(root)
        return detail

    def observe_cached(self, outcome: TriggerOutcome) -> None:
        """Note the model a cached session reported (a fully cached re-run still names it)."""
        self._note_model(outcome.detail.get("model"))

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """Run the query once in a fresh isolated project, until the target fires or the
        session ends."""
        skills, stop = self.skills_and_stop(request)
        with self.workdir() as (root, project, home):
            install_skills(project, request.target, request.catalog)
            run = await self.run_prompt(request.query, self.flags(), project, home, stop=stop)
            return self._outcome(request, run, root, skills)

    def skills_for(self, request: TriggerRequest) -> tuple[CliSkill, ...]:
        """The request's skills as the CLI resolves them (read once per skill set)."""
        key = (request.target, request.catalog)
        skills = self._skill_sets.get(key)
        if skills is None:
            skills = self._skill_sets[key] = tuple(cli_skills(request.target, request.catalog))
        return skills

    def skills_and_stop(
        self, request: TriggerRequest
    ) -> tuple[tuple[CliSkill, ...], StopRule | None]:
        """The request's skills (`skills_for`) and the stop rule of its run (None: the run goes
        to its end)."""
        skills = self.skills_for(request)
        return skills, target_fired(request.target.name, skills) if self.stop_on_trigger else None

    def _outcome(
        self,
        request: TriggerRequest,
        run: RunResult,
        root: Path,
        skills: Sequence[CliSkill] = (),
    ) -> TriggerOutcome:
        session = run.session
        result = session.result
        target = request.target.name
        invoked, refused = resolved_invocations(session, target, skills)
        stats = metrics(session)
        turns = {
            "num_turns": stats.num_turns,
            "duration_ms": stats.duration_ms,
            "result_subtype": result.subtype if result else None,
        }
        detail = session_detail(session, invoked, turns, run.exit_code, run.decided)
        detail = self._noted(detail, refused, root)
        if run.decided and target in invoked:
            self.ended_early += 1
            usage, known = streamed_usage(session, detail["model"] or self.model)
            detail["cost_known"] = known
            return routing_outcome(target, invoked, usage, run.duration_seconds, detail)
        error = run_error(run, self.timeout, self.secrets())
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
        usage = session_usage(session)
        return routing_outcome(target, invoked, usage, run.duration_seconds, detail, error)

    async def aclose(self) -> None:
        """Kill running sessions and remove leftover temporary projects."""
        await super().aclose()


class ClaudeCodeTextModel(ClaudeRunner):
    """TextModel answering through `claude -p --output-format json` (prompt on stdin), no tools, one turn,
    in an empty isolated project. `max_tokens` and `temperature` cannot be set through the CLI
    and are ignored (they are still part of the request's cache fields)."""

    mode = "text"
    default_timeout = TEXT_CALL_TIMEOUT
    default_max_concurrency = 2  # improvement and grading calls: a few at a time

    def flags(self, system: str = "") -> list[str]:
        """The CLI flags of a text call (the prompt goes to stdin)."""
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
        return TextResponse(text=result.result or "", usage=session_usage(run.session))
