"""Whole agentic sessions of another agent's CLI (Codex CLI, Gemini CLI, opencode): what a
behavior run needs of one (`SessionCli`), what a session said (`SessionLog`, folded from the
CLI's JSON events) and the runner that starts it (`AgentSessionRunner`).

A `SessionCli` (one per agent, `backends/<agent>/behavior.py`) knows its CLI's non-interactive
agentic call (the prompt on stdin, JSON events on stdout), the environment (the agent's
allowlist, an isolated HOME, a dummy key and the runner's loopback key forwarder instead of the
provider key), its configuration files (MCP servers included) and how to fold its events.
The runner does what every agent shares: the binary, the key forwarder (`key_forwarder`, one per
runner, holding the real key), bounded concurrency, a scratch folder per session, the process
(its own session, killed with its whole tree at the end, `proctree`) under an optional launch
prefix (a hermetic run's network namespace), the timeout and the stderr tail, and its copy for
another machine (`on_node`: that machine's CLI, the forwarder sent to a cluster node's proxy
instead of the provider); what it shares with Claude Code's runner is `session_runner`'s.
Behavior's `AgentSessionExecutor` builds on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from skillbench.backends.agent_cli import AgentCall, spawn_options
from skillbench.backends.base import CallUsage
from skillbench.backends.key_forwarder import KeyForwarder
from skillbench.backends.proctree import kill_tree, unwatch, watch
from skillbench.backends.replay.agent import Agent
from skillbench.backends.scratch import make_scratch
from skillbench.backends.session_runner import (
    STDERR_TAIL,
    STREAM_LIMIT,
    SessionRunner,
    end_process,
    local_cli,
    read_tail,
    version_in,
    write_stdin,
)
from skillbench.errors import BackendError, InputError
from skillbench.redaction import redact

__all__ = [
    "AgentSessionRunner",
    "McpCommand",
    "ScriptedReply",
    "SessionCli",
    "SessionLog",
    "SessionRun",
    "ToolCall",
    "field_dict",
]

UNREACHABLE = "http://127.0.0.1:9"
"""The API URL of a run that must reach none (`--version`): nothing listens on port 9."""

McpCommand = tuple[str, tuple[str, ...]]
"""A stdio MCP server to load: (command, arguments)."""


def field_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (events are read defensively)."""
    return value if isinstance(value, dict) else {}


@dataclass
class ToolCall:
    """One tool call of a session as its CLI reported it."""

    name: str
    input: Any
    output: str = ""
    error: bool = False
    id: str = ""


@dataclass
class ScriptedReply:
    """A user turn skillbench sent when it resumed the session: a scripted answer to the
    question the previous turn ended with."""

    text: str


@dataclass
class SessionLog:
    """What a session's JSON events said: its events in order, what the assistant said and
    the tool calls it made (`items`, in order: texts, `ToolCall`s and the `ScriptedReply`s of a
    resumed session), its usage (`reported_cost`: the dollars the CLI stated, None when it
    states none), the model it named, its steps (model turns), whether its last invocation
    reached its end event, the error it reported (None: none) and the id it is stored under
    (None: not said)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    items: list[str | ToolCall | ScriptedReply] = field(default_factory=list)
    usage: CallUsage = field(default_factory=CallUsage)
    reported_cost: float | None = None
    model: str | None = None
    steps: int = 0
    ended: bool = False
    error: str | None = None
    bad_lines: int = 0
    session_id: str | None = None

    def say(self, text: str, *, more: bool = False) -> None:
        """An assistant text (`more`: the next piece of the last one)."""
        if more and self.items and isinstance(self.items[-1], str):
            self.items[-1] += text
        elif text:
            self.items.append(text)

    def tool(self, call: ToolCall) -> None:
        """A tool call."""
        self.items.append(call)

    def reply(self, text: str) -> None:
        """The scripted answer the session is resumed with (its next invocation must reach
        its own end event)."""
        self.items.append(ScriptedReply(text))
        self.ended = False

    @property
    def texts(self) -> list[str]:
        """The assistant's texts, in order."""
        return [item for item in self.items if isinstance(item, str)]

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls, in order."""
        return [item for item in self.items if isinstance(item, ToolCall)]


class SessionCli:
    """One agent CLI as a behavior session runs it. Subclasses set `agent` (the replay's
    `Agent`: binary, allowlist, skill folder, default model, key variable, prices) and implement
    the methods marked *agent*."""

    agent: ClassVar[Agent]
    supports_mcp: ClassVar[bool] = True
    resumable: ClassVar[bool] = False
    """Whether a stored session can be continued with a next prompt (`resume_call`): a turn
    that ends with a question then gets the case's scripted answer."""
    config_names: ClassVar[frozenset[str]] = frozenset()
    """Project files (any folder, any case) the agent reads as its own configuration: an input
    file of that name is left out of the project."""
    config_dirs: ClassVar[frozenset[str]] = frozenset({".agents"})
    """Project folders the agent reads as configuration (left out of inputs and outputs)."""

    @property
    def name(self) -> str:
        """The backend name."""
        return self.agent.name

    @property
    def skills_dir(self) -> str:
        """Where the skill is installed, relative to the project."""
        return self.agent.skills_dir

    def call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        """*agent* the agentic non-interactive run (JSON events on stdout, prompt on stdin)."""
        raise NotImplementedError

    def resume_call(self, binary: Path, model: str, prompt: str, session_id: str) -> AgentCall:
        """*agent*, when `resumable`: the run continuing stored session `session_id` with
        `prompt` (JSON events on stdout, prompt on stdin)."""
        raise NotImplementedError

    def upstream(self) -> str:
        """*agent* the provider's base URL the key forwarder forwards to."""
        raise NotImplementedError

    def keys(self) -> dict[str, str]:
        """*agent* session variable → the real key it stands for (the forwarder's keys);
        BackendError naming the caller's variable when it is not set."""
        raise NotImplementedError

    def session_env(self, home: Path, api_url: str) -> dict[str, str]:
        """*agent* the CLI's environment (without the dummy keys): isolated `home`, the
        forwarder's `api_url`, nothing that could reach another host."""
        raise NotImplementedError

    def configure(
        self, project: Path, home: Path, api_url: str, model: str, mcp: Mapping[str, McpCommand]
    ) -> None:
        """*agent* write the configuration the run needs (MCP servers `mcp` included)."""
        raise NotImplementedError

    def fold(self, event: dict[str, Any], log: SessionLog) -> None:
        """*agent* fold one JSON event into `log`."""
        raise NotImplementedError

    def settings(self) -> dict[str, str]:
        """The settings that change a session (part of the executor's identity)."""
        return {}

    def config_path(self, rel: str) -> bool:
        """Whether a project-relative path is the agent's configuration."""
        parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
        if not parts:
            return False
        return parts[0].lower() in self.config_dirs or parts[-1].lower() in self.config_names

    def require_key(self, variable: str) -> str:
        """The caller's `variable`; BackendError naming it when unset."""
        value = os.environ.get(variable)
        if not value:
            raise BackendError(
                f"a {self.name} behavior session needs {variable} (the key stays in skillbench: "
                "the session gets a dummy and a loopback forwarder)"
            )
        return value


@dataclass
class SessionRun:
    """One finished CLI process: its log, exit code, whether it timed out, how long it ran and
    the end of its stderr (redacted)."""

    log: SessionLog
    exit_code: int | None
    timed_out: bool
    duration_s: float
    stderr_tail: str = ""

    def error(self, timeout: float) -> str | None:
        """Why the session did not complete (None: it did): timeout, an error it reported, no
        end event, a non-zero exit."""
        if self.timed_out:
            return f"timeout: the session did not end within {timeout:g} s (process tree killed)"
        if self.log.error:
            return f"the session reported an error: {self.log.error[:300]}"
        if not self.log.ended:
            tail = self.stderr_tail.strip().splitlines()[-1:]
            why = f": {tail[0][:300]}" if tail else ""
            return f"no end event (exit code {self.exit_code}){why}"
        if self.exit_code not in (0, None):
            return f"exit code {self.exit_code} after the end event"
        return None


class AgentSessionRunner(SessionRunner[int]):
    """Runs sessions of one `SessionCli`: the binary, the key forwarder, bounded concurrency,
    scratch folders and the processes, kept by pid (see the module docstring)."""

    def __init__(
        self,
        cli: SessionCli,
        model: str | None = None,
        *,
        binary: str | os.PathLike[str] | None = None,
        timeout: float,
        max_concurrency: int | None = 2,
    ) -> None:
        if timeout <= 0:
            raise InputError("must be positive", field="timeout")
        if max_concurrency is not None and max_concurrency < 1:
            raise InputError("must be at least 1", field="max_concurrency")
        super().__init__()
        self.cli = cli
        self.model = model or cli.agent.default_model
        self.binary = cli.agent.locate(binary)
        self.timeout = float(timeout)
        self.max_concurrency = max_concurrency
        self.api_url: str | None = None
        """Where the key forwarder forwards instead of the provider (`on_node`: a cluster
        node's proxy, which forwards to the provider); None: the provider (`cli.upstream()`)."""

    def _relocate(self, api_url: str) -> Path:
        """`on_node`'s copy: this machine's CLI (the one given when it is here, else
        `Agent.locate`), its key forwarder (this machine's key) forwarding to `api_url`."""
        self.binary = local_cli(self.binary, self.cli.agent.locate, self.cli.agent.binary)
        self.api_url = api_url
        return self.binary

    # -- the key forwarder -------------------------------------------------------------------

    def forwarder(self) -> KeyForwarder:
        """The loopback forwarder holding the real key (started on first use, in this process;
        stopped by `aclose`), forwarding to the provider (or to `api_url` when set)."""
        return self._shared_forwarder(
            lambda: KeyForwarder(self.api_url or self.cli.upstream(), self.cli.keys()).start()
        )

    def secrets(self) -> list[str]:
        """The real keys in reach (for redaction only)."""
        found: list[str] = []
        with contextlib.suppress(BackendError):
            found = list(self.cli.keys().values())
        return found

    # -- the CLI -----------------------------------------------------------------------------

    def version(self) -> str:
        """The CLI's version (`--version`, run once in an empty isolated HOME, with the session's
        switches that stop update checks and fetches, and an unreachable API URL)."""
        if self._version is None:
            root = make_scratch(f"{self.cli.name}-version")
            try:
                env = self.cli.session_env(root, UNREACHABLE)
                done = subprocess.run(
                    self.cli.agent.version_call(self.binary),
                    capture_output=True,
                    text=True,
                    timeout=60,
                    env=env,
                    cwd=root,
                    stdin=subprocess.DEVNULL,
                    check=False,
                    **spawn_options(),
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise BackendError(f"`{self.binary.name} --version` failed: {exc}") from None
            finally:
                shutil.rmtree(root, ignore_errors=True)
            out = done.stdout.strip()
            if done.returncode != 0 or not out:
                raise BackendError(f"`{self.binary.name} --version` exited {done.returncode}")
            self._version = version_in(out)
        return self._version

    def flags(self) -> list[str]:
        """The CLI's flags for a session (the prompt is never among them)."""
        return list(self.cli.call(self.binary, self.model, "").argv[1:])

    @contextlib.contextmanager
    def workdir(self) -> Iterator[tuple[Path, Path, Path]]:
        """A fresh (root, project, home) scratch triple for one session, removed after."""
        root = make_scratch(f"{self.cli.name}-behavior")
        try:
            project, home = root / "project", root / "home"
            project.mkdir()
            home.mkdir()
            yield root, project, home
        finally:
            shutil.rmtree(root, ignore_errors=True)

    async def run(
        self,
        prompt: str,
        cwd: Path,
        env: dict[str, str],
        prefix: Sequence[str] = (),
        *,
        resume: SessionLog | None = None,
        timeout: float | None = None,
    ) -> SessionRun:
        """One session in `cwd` with `env`, the prompt on stdin, its JSON events folded as they
        come, until it exits or the timeout (the runner's, or `timeout`); its whole process tree
        is ended in every case. `resume`: the log of a stored session to continue (its
        `session_id`), folded on."""
        if resume is not None and resume.session_id is not None:
            call = self.cli.resume_call(self.binary, self.model, prompt, resume.session_id)
            log = resume
        else:
            call = self.cli.call(self.binary, self.model, prompt)
            log = SessionLog()
        limit = self.timeout if timeout is None else timeout
        async with self._slot():
            started = time.monotonic()
            try:
                proc = await asyncio.create_subprocess_exec(
                    *prefix,
                    *call.argv,
                    cwd=str(cwd),
                    env=env,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    limit=STREAM_LIMIT,
                    **spawn_options(),
                )
            except OSError as exc:
                return SessionRun(log, None, False, 0.0, f"cannot start {call.argv[0]}: {exc}")
            self._procs.add(proc.pid)
            watch(proc.pid)
            tail: list[bytes] = []
            timed_out = False
            stderr_task = asyncio.ensure_future(read_tail(proc, tail))
            stdin_task = asyncio.ensure_future(write_stdin(proc, call.stdin))
            try:
                try:
                    async with asyncio.timeout(limit):
                        await self._read_events(proc, log)
                        await proc.wait()
                except TimeoutError:
                    timed_out = True
            finally:
                await end_process(proc, stderr_task, stdin_task)
                self._procs.discard(proc.pid)
                unwatch(proc.pid)
            text = b"".join(tail).decode("utf-8", errors="replace")[-STDERR_TAIL:]
            return SessionRun(
                log,
                proc.returncode,
                timed_out,
                time.monotonic() - started,
                redact(text, self.secrets()),
            )

    async def _read_events(self, proc: asyncio.subprocess.Process, log: SessionLog) -> None:
        assert proc.stdout is not None
        while True:
            try:
                line = await proc.stdout.readline()
            except ValueError:  # a line past STREAM_LIMIT
                log.bad_lines += 1
                continue
            if not line:
                return
            try:
                event = json.loads(line)
            except ValueError:
                if line.strip():
                    log.bad_lines += 1
                continue
            if isinstance(event, dict):
                log.events.append(event)
                self.cli.fold(event, log)

    async def aclose(self) -> None:
        """End any session still running; stop the key forwarder."""
        for pid in list(self._procs):
            kill_tree(pid)
        self._procs.clear()
        self.stop_forwarder()
