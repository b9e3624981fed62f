"""A run's output files kept on disk rather than in memory (`SpooledOutputs`).

An agent session may leave hundreds of megabytes of files. They are copied, streamed and
bounded, into a temporary folder of their own; each file is read only when asked for (one at a
time: redaction, metrics, writing the run folder), so a run's files never sit in memory all at
once. The folder is removed with the object. Pickled (a cluster node's result) the files travel
as a plain dict of bytes, within the run's output cap.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from skillbench.redaction import redact_bytes

CHUNK = 1 << 20


class SpooledOutputs(Mapping[str, bytes]):
    """Output files by relative path, stored under a temporary folder; `self[rel]` reads one."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="skillbench-outputs-")
        self.root = Path(self._folder.name)
        self._names: dict[str, None] = {}

    def add(self, rel: str, source: Path, limit: int) -> int | None:
        """Copy `source` in as `rel`, streamed, links not followed: its size, or None (nothing
        kept) when it holds more than `limit` bytes (a file still growing cannot pass it)."""
        dest = self.root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        copied = 0
        handle = os.open(source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(handle, "rb") as src, dest.open("wb") as out:
            while chunk := src.read(min(CHUNK, limit - copied + 1)):
                copied += len(chunk)
                if copied > limit:
                    break
                out.write(chunk)
        if copied > limit:
            dest.unlink()
            return None
        self._names[rel] = None
        return copied

    def __getitem__(self, rel: str) -> bytes:
        if rel not in self._names:
            raise KeyError(rel)
        return (self.root / rel).read_bytes()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def total(self) -> int:
        """Bytes of every file (from the folder, nothing read)."""
        return sum((self.root / rel).stat().st_size for rel in self._names)

    def scrub(self, secrets: Iterable[str | None] = ()) -> tuple[list[str], list[str]]:
        """Pass each file through the redactor, one at a time and in place: (names redacted,
        names withheld: a binary file holding a secret is removed, see `redact_bytes`)."""
        redacted: list[str] = []
        withheld: list[str] = []
        for rel in list(self._names):
            path = self.root / rel
            data = path.read_bytes()
            clean = redact_bytes(data, secrets)
            if clean is None:
                path.unlink()
                del self._names[rel]
                withheld.append(rel)
            elif clean is not data:
                path.write_bytes(clean)
                redacted.append(rel)
        return redacted, withheld

    def copy_into(self, folder: Path) -> None:
        """Copy every file under `folder` (streamed)."""
        for rel in self._names:
            dest = folder / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.root / rel, dest)

    def close(self) -> None:
        """Remove the folder now (it is removed with the object otherwise)."""
        self._folder.cleanup()
        self._names.clear()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as a dict of bytes: the folder does not travel."""
        return (dict, (dict(self.items()),))

    def __repr__(self) -> str:
        return f"SpooledOutputs({len(self)} files under {self.root})"


def outputs_size(outputs: Mapping[str, bytes]) -> int:
    """Bytes of a run's output files (a spool's from its folder, without reading them)."""
    if isinstance(outputs, SpooledOutputs):
        return outputs.total()
    return sum(len(data) for data in outputs.values())
