"""One importer per agent behind a small protocol, looked up by name (`field import AGENT`).

An importer knows where its agent keeps sessions, which files are sessions, and how to fold one
file (from a remembered offset) into `FieldRecord`s. Parts are named `"module:attribute"` and
imported only when used, as `backends/spec.py` does for backends.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from skillbench.errors import InputError
from skillbench.field.reader import FileState
from skillbench.field.records import FieldRecord, ImportCounts, fill_late_slashes

SETTLED_SECONDS = 600
"""A session file not written for this long is taken as finished (its last turn is emitted)."""


@dataclass(frozen=True)
class ImportOptions:
    """What every importer is told."""

    with_text: bool = False
    since: datetime | None = None
    now: datetime | None = None


class Importer(Protocol):
    """How one agent's session files become field records."""

    agent: str

    def default_root(self) -> Path:
        """Where the agent keeps its sessions for this user."""
        ...

    def session_files(self, root: Path) -> Iterator[Path]:
        """Every session file under `root`, in a stable order."""
        ...

    def read(
        self, path: Path, state: FileState, options: ImportOptions, counts: ImportCounts
    ) -> Iterator[FieldRecord]:
        """The records of `path` from `state.offset`; advances `state` to where it stopped."""
        ...


def importer_names() -> dict[str, str]:
    """Agents whose session files `field import` reads (each agent's name and aliases), each
    its importer as "module:attribute": declared by the agent's `BackendSpec.transcripts`, so a
    fifth agent brings its own."""
    from skillbench.backends.spec import all_specs

    names: dict[str, str] = {}
    for spec in all_specs().values():
        if spec.agent is not None and isinstance(spec.transcripts, str):
            for name in (spec.agent, *spec.agent_aliases):
                names[name] = spec.transcripts
    return names


def importer(agent: str) -> Importer:
    """The importer of `agent` (InputError naming the choices for an unknown one)."""
    known = importer_names()
    target = known.get(agent)
    if target is None:
        choices = ", ".join(sorted(known))
        raise InputError(f"no importer for agent {agent!r} (choose {choices})", field="AGENT")
    module, _, name = target.partition(":")
    found: Importer = getattr(importlib.import_module(module), name)
    return found


def settled(path: Path) -> bool:
    """Whether `path` has not been written for `SETTLED_SECONDS`."""
    return time.time() - path.stat().st_mtime >= SETTLED_SECONDS


def finished(
    turns: list[FieldRecord], options: ImportOptions, counts: ImportCounts
) -> Iterator[FieldRecord]:
    """One session's finished turns, late slashes filled, those before `--since` left out."""
    fill_late_slashes(turns)
    for record in turns:
        when = _parse_time(record.time) if record.time else None
        if options.since is not None and when is not None and when < options.since:
            counts.turns_before_since += 1
            continue
        counts.turns += 1
        yield record


def _parse_time(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
