"""`calls.jsonl`: one line per call a fake answered or refused (fake commands and fake MCP
tools), in the order the calls were made."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field, ValidationError

from skillbench.schemas.base import Document

__all__ = ["CALLS_FILE", "CallRecord", "read_calls"]

CALLS_FILE = "calls.jsonl"


class CallRecord(Document):
    """One call of a fake: `command` is the fake's name (`mcp:<server>` for an MCP tool, whose
    first argument is the tool's name), `route` the index of the route that answered (None: no
    route matched, refused)."""

    sequence: int = Field(ge=1)
    command: str
    argv: list[str]
    route: int | None = None
    exit: int = 0
    refused: bool = False
    reason: str | None = None

    def line(self) -> str:
        """`gh pr create --title x` (the command and its arguments, shell-like)."""
        return " ".join([self.command, *self.argv])


def read_calls(path: Path) -> list[CallRecord]:
    """The calls of a `calls.jsonl` in sequence order (lines that do not parse are skipped;
    a missing file is no call)."""
    if not path.is_file():
        return []
    found: list[CallRecord] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            found.append(CallRecord.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError):
            continue
    return sorted(found, key=lambda c: c.sequence)
