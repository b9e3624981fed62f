"""What every runner of whole CLI sessions shares (`claude_cli.session.ClaudeRunner`,
`agent_session.AgentSessionRunner`): `SessionRunner`, the state that belongs to one process
(the concurrency slots of each event loop, the running processes, the key forwarder and its
lock), left out when the runner is pickled for a Ray task or copied, the bounded-concurrency
slot, the key forwarder started once and stopped, and `on_node`, the runner's copy for the
machine it arrived on; and the helpers of one CLI process: ending its whole tree
(`kill_process`, `end_process`), writing its prompt (`write_stdin`), keeping the end of its
stderr (`read_tail`), the version in its `--version` (`version_in`).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import os
import re
import signal
import threading
from collections.abc import AsyncIterator, Callable, MutableMapping
from pathlib import Path
from typing import Any, Generic, Self, TypeVar

from skillbench.backends.key_forwarder import KeyForwarder
from skillbench.backends.placement import node_version
from skillbench.backends.proctree import kill_tree
from skillbench.errors import BackendError

__all__ = [
    "EXIT_GRACE",
    "STDERR_TAIL",
    "STREAM_LIMIT",
    "SessionRunner",
    "end_process",
    "kill_process",
    "local_cli",
    "read_tail",
    "version_in",
    "write_stdin",
]

STREAM_LIMIT = 32 * 1024 * 1024
"""The longest stdout line a session's reader takes (a longer one is counted as bad)."""
STDERR_TAIL = 2000
"""How many characters of a session's stderr are kept."""
EXIT_GRACE = 5.0
"""How long a killed session's process is waited for."""

P = TypeVar("P")
"""What a runner keeps of a running process (a pid, a `Process`)."""


class SessionRunner(Generic[P]):
    """The base of a runner of CLI sessions (see the module docstring). Subclasses call
    `__init__`, set `max_concurrency` and implement `version` and `_relocate`."""

    max_concurrency: int | None

    def __init__(self) -> None:
        self._version: str | None = None
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        self._procs: set[P] = set()
        self._forwarder: KeyForwarder | None = None
        self._forwarder_lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a Ray task gets a copy): no processes, no forwarder, no lock."""
        state = dict(self.__dict__)
        state.update(_forwarder=None, _forwarder_lock=None, _semaphores={}, _procs=set())
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._forwarder_lock = threading.Lock()

    def version(self) -> str:
        """*runner* the CLI's version (asked once)."""
        raise NotImplementedError

    def _relocate(self, api_url: str) -> Path:
        """*runner* point this copy at this machine: its CLI (returned) and `api_url`, where
        its key forwarder forwards instead of the provider."""
        raise NotImplementedError

    def on_node(self, api_url: str, versions: MutableMapping[str, str]) -> Self:
        """A copy running its sessions on this machine (`placement.NodeSessions`): none of the
        sender's processes or forwarder (copied through `__getstate__`), this machine's CLI and
        `api_url` (`_relocate`), the CLI's version asked once per process (`node_version`)."""
        local = copy.copy(self)
        binary = local._relocate(api_url)

        def ask() -> str:
            local._version = None
            return local.version()

        local._version = node_version(versions, binary, ask)
        return local

    def _shared_forwarder(self, start: Callable[[], KeyForwarder]) -> KeyForwarder:
        """The runner's key forwarder: `start()`ed on first use (in this process, under the
        lock), the same one after, until `stop_forwarder`."""
        with self._forwarder_lock:
            if self._forwarder is None:
                self._forwarder = start()
            return self._forwarder

    def stop_forwarder(self) -> None:
        """Stop the key forwarder (a later session starts a new one)."""
        with self._forwarder_lock:
            forwarder, self._forwarder = self._forwarder, None
        if forwarder is not None:
            forwarder.stop()

    @contextlib.asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        """A concurrency slot (no cap when max_concurrency is None), one semaphore per loop."""
        if self.max_concurrency is None:
            yield
            return
        loop = id(asyncio.get_running_loop())
        if loop not in self._semaphores:
            self._semaphores[loop] = asyncio.Semaphore(self.max_concurrency)
        async with self._semaphores[loop]:
            yield


def local_cli(given: Path, locate: Callable[[], Path], name: str) -> Path:
    """`given` when it is an executable file on this machine, else `locate()`; BackendError
    `no <name> CLI` (one line) when this machine has none."""
    if given.is_file() and os.access(given, os.X_OK):
        return given
    try:
        return locate()
    except BackendError:
        raise BackendError(f"no {name} CLI") from None


def version_in(output: str) -> str:
    """The version a CLI's `--version` printed: its first `x.y.z…`, else its first line."""
    match = re.search(r"\d+\.\d+\.\d+\S*", output)
    return match.group(0) if match else output.splitlines()[0][:80]


def kill_process(proc: asyncio.subprocess.Process) -> None:
    """Kill the process's whole group and every descendant (the CLI spawns children, some may
    detach: `proctree.kill_tree`), then the process itself by pid. Not `proc.kill()`:
    Popen.send_signal polls first, reaping the just-killed child behind asyncio's child watcher,
    which then logs "Unknown child process" and reports exit code 255."""
    kill_tree(proc.pid)
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(proc.pid, signal.SIGKILL)


async def end_process(
    proc: asyncio.subprocess.Process,
    stderr_task: asyncio.Future[None],
    *tasks: asyncio.Future[None],
) -> None:
    """End a session's process: its tree killed, its exit awaited (at most EXIT_GRACE s), its
    stderr drained (at most 1 s), then its reader and writer tasks cancelled."""
    kill_process(proc)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(proc.wait(), EXIT_GRACE)
    await asyncio.wait({stderr_task}, timeout=1.0)
    for task in (stderr_task, *tasks):
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


async def write_stdin(proc: asyncio.subprocess.Process, data: bytes) -> None:
    """The prompt, then EOF (a CLI that exits without reading it is no error)."""
    assert proc.stdin is not None
    with contextlib.suppress(ConnectionError, BrokenPipeError, OSError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(ConnectionError, BrokenPipeError, OSError):
        proc.stdin.close()


async def read_tail(proc: asyncio.subprocess.Process, tail: list[bytes]) -> None:
    """Keep the last few KiB of stderr in `tail`."""
    assert proc.stderr is not None
    while chunk := await proc.stderr.read(65536):
        tail.append(chunk)
        while sum(map(len, tail)) > 4 * STDERR_TAIL and len(tail) > 1:
            tail.pop(0)
