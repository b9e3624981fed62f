"""Running an agent's CLI for a capture, until its own request has arrived (or, for a CLI that
must finish its run, until it exits).

The prompt goes on stdin (`agent_cli` rules), the CLI's process group dies with skillbench
(`proctree`), and once the run is over its whole process tree is ended: the turns after the
first request are not needed, and a CLI that left children behind leaves none.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from pathlib import Path
from typing import Protocol

from skillbench.backends.agent_cli import AgentCall, spawn_options
from skillbench.backends.proctree import kill_tree, unwatch, watch
from skillbench.errors import BackendError

POLL_SECONDS = 0.2
"""How often the run checks whether the agent's request has arrived."""


class Runnable(Protocol):
    """What a capture run says of its agent."""

    @property
    def title(self) -> str:
        """How messages name the agent (`Codex CLI`)."""
        ...

    def install_hint(self) -> str:
        """What to run when the CLI is missing."""
        ...


class Arrivals(Protocol):
    """The capture server as the run watches it."""

    def wait_for_agent_request(self, seconds: float) -> bool:
        """Wait up to `seconds` for the agent's own request; whether it came."""
        ...


def run_until_captured(
    agent: Runnable,
    call: AgentCall,
    cwd: Path,
    env: dict[str, str],
    server: Arrivals,
    timeout: float,
    *,
    to_exit: bool = False,
) -> tuple[int | None, str]:
    """Run the capture CLI until the agent's own request has arrived at `server` (or, with
    `to_exit`, until the CLI exits) or it exits; then end its whole process tree. Returns the
    exit code (None: ended by skillbench) and the tail of what it wrote (stdout and stderr).
    BackendError when it cannot start or the run does not end within `timeout`."""
    with tempfile.TemporaryFile() as output:
        try:
            proc = subprocess.Popen(
                call.argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=output,
                stderr=subprocess.STDOUT,
                **spawn_options(),
            )
        except OSError as exc:
            raise BackendError(
                f"cannot run {call.argv[0]}: {exc}; {agent.install_hint()}"
            ) from None
        watch(proc.pid)
        try:
            assert proc.stdin is not None
            try:
                proc.stdin.write(call.stdin)
                proc.stdin.close()
            except OSError:
                pass  # it exited before reading: its exit code says why
            waited = 0.0
            while proc.poll() is None:
                if to_exit:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(POLL_SECONDS)
                elif server.wait_for_agent_request(POLL_SECONDS):
                    break
                waited += POLL_SECONDS
                if waited >= timeout:
                    raise BackendError(
                        f"capturing {agent.title}'s request timed out after {timeout:g} s"
                    )
            code = proc.poll()
        finally:
            kill_tree(proc.pid)
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            unwatch(proc.pid)
        output.seek(0)
        tail = output.read()[-2000:].decode("utf-8", "replace")
    return code, tail
