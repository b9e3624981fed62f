"""One importer per agent behind a small protocol, looked up by name (`field import AGENT`).

An importer knows where its agent keeps sessions, which files are sessions, and how to fold one
file (from a remembered offset) into `FieldRecord`s. Parts are named `"module:attribute"` and
imported only when used, as `backends/spec.py` does for backends.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from skillbench.errors import InputError
from skillbench.field.reader import FileState
from skillbench.field.records import FieldRecord, ImportCounts


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


IMPORTERS: dict[str, str] = {"claude": "skillbench.field.claude:CLAUDE_IMPORTER"}
"""Agents whose session files `field import` reads, each its importer as "module:attribute"."""


def importer(agent: str) -> Importer:
    """The importer of `agent` (InputError naming the choices for an unknown one)."""
    target = IMPORTERS.get(agent)
    if target is None:
        choices = ", ".join(sorted(IMPORTERS))
        raise InputError(f"no importer for agent {agent!r} (choose {choices})", field="AGENT")
    module, _, name = target.partition(":")
    found: Importer = getattr(importlib.import_module(module), name)
    return found
