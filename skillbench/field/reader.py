"""Streaming, incremental reading of JSON-lines session files.

A file is read line by line from a remembered byte offset (`FileState`, kept in the import's
state file beside its output), so a second import reads only what was appended. A line that is
not a JSON object is counted and skipped; a last line without its newline (a file still being
written, or cut short) is counted as a truncated tail and left unread for the next import.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from skillbench.field.records import ImportCounts

MAX_LINE_BYTES = 64 * 1024 * 1024
"""A longer line is skipped as malformed (read in bounded pieces, never held whole)."""


class FileState(BaseModel):
    """Where the last import of one file stopped, and what its importer carried over."""

    offset: int = Field(ge=0)
    inode: int
    carry: dict[str, Any] = Field(default_factory=dict)


def _skip_rest_of_line(handle: Any) -> int:
    skipped = 0
    while True:
        piece = handle.readline(1024 * 1024)
        skipped += len(piece)
        if not piece or piece.endswith(b"\n"):
            return skipped


class JsonLines:
    """The complete JSON-object lines of a file from a byte offset, as (start, object).

    `position` is where reading stopped: after the last complete line, malformed ones included.
    """

    def __init__(self, path: Path, offset: int, counts: ImportCounts) -> None:
        self.path = path
        self.position = offset
        self.counts = counts

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        counts = self.counts
        with self.path.open("rb") as handle:
            handle.seek(self.position)
            while True:
                line = handle.readline(MAX_LINE_BYTES)
                if not line:
                    return
                start = self.position
                if not line.endswith(b"\n"):
                    if len(line) >= MAX_LINE_BYTES:  # an oversized line: skip it whole
                        self.position += len(line) + _skip_rest_of_line(handle)
                        counts.malformed_lines += 1
                        counts.bytes += self.position - start
                        continue
                    counts.truncated_tails += 1  # unfinished: read again next time
                    return
                self.position += len(line)
                counts.lines += 1
                counts.bytes += len(line)
                try:
                    data = json.loads(line)
                except (ValueError, RecursionError):
                    counts.malformed_lines += 1
                    continue
                if not isinstance(data, dict):
                    counts.malformed_lines += 1
                    continue
                yield start, data
