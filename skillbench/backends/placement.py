"""Where a session backend's sessions run: on this machine (the default) or wherever a placer
installed by a package above (`skillbench.cluster`) sends them.

The seam keeps the arrows pointing down: the question packages build their judges and executors
as always (`registry.get_judge`, `behavior.execute.run_cases`), and those two hand each one of a
backend whose sessions are whole agent sessions (a judge: the spec's `sessions`; an executor: its
`behavior_sessions`) to `place_judge` / `place_executor`. Without a placer (no
`--cluster`) both return their argument unchanged, so single-machine behaviour is untouched.

What a placed judge or executor offers the placer is `NodeSessions`: its CLI's version, the
provider base URL its sessions call, and a copy of itself for the machine it arrived on
(`on_node`). The agent-specific part (which binary, which variable or configuration file points
the session at the provider) stays with the backend; the placer names no agent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Placer(Protocol):
    """Wraps a session backend's judge or executor so its sessions run elsewhere."""

    def judge(self, judge: Any) -> Any:
        """A judge with the same identity whose `judge()` runs the session elsewhere."""
        ...

    def executor(self, executor: Any) -> Any:
        """An executor with the same identity whose `execute()` runs the session elsewhere."""
        ...


class NodeSessions(Protocol):
    """A judge or executor whose sessions can run on another machine (a Ray node)."""

    name: str

    def version(self) -> str:
        """Its CLI's version on this machine (the driver's: every node must run the same)."""
        ...

    def api_upstream(self) -> str | None:
        """The provider base URL its sessions call (None: the provider's default); a node's
        proxy forwards there."""
        ...

    def on_node(self, api_url: str, versions: MutableMapping[str, str]) -> Any:
        """A copy that runs its sessions on the machine it arrived on: that machine's CLI (the
        one it was given when that is there, else the one it finds the usual way), no process,
        folder or key forwarder of the sender's, its provider calls sent to `api_url` (the
        node's proxy) through a key forwarder of its own that holds this machine's key.
        `versions`: the CLI versions this process already asked, by executable (see
        `node_version`). BackendError (one line, no install hint: the placer names the fix) when
        the machine has no such CLI or it does not answer."""
        ...


def node_version(versions: MutableMapping[str, str], binary: Path, ask: Callable[[], str]) -> str:
    """The version of the CLI at `binary`: from `versions` (this process asked it already), else
    `ask()`, kept there (a node process asks each CLI once, not once per session)."""
    key = str(binary)
    if key not in versions:
        versions[key] = ask()
    return versions[key]


_placer: list[Placer] = []


def active() -> Placer | None:
    """The placer in force (None: sessions run on this machine)."""
    return _placer[-1] if _placer else None


@contextlib.contextmanager
def placed(placer: Placer) -> Iterator[Placer]:
    """Send session backends' sessions through `placer` for the duration of the block."""
    _placer.append(placer)
    try:
        yield placer
    finally:
        _placer.remove(placer)


def place_judge(judge: T, sessions: bool) -> T:
    """`judge`, wrapped by the active placer when its backend runs `sessions` (its spec says)."""
    placer = active()
    if placer is None or not sessions:
        return judge
    wrapped: T = placer.judge(judge)
    return wrapped


def place_executor(executor: T, sessions: bool) -> T:
    """`executor`, wrapped by the active placer when its backend runs `sessions`."""
    placer = active()
    if placer is None or not sessions:
        return executor
    wrapped: T = placer.executor(executor)
    return wrapped
