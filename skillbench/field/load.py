"""Read a `FIELD.jsonl` back, one record at a time (bad lines counted, never fatal)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from skillbench.errors import InputError
from skillbench.field.records import FieldRecord


@dataclass
class LoadCounts:
    """Lines of a field file that were not records."""

    records: int = 0
    skipped: int = 0


def field_records(path: str | Path, counts: LoadCounts | None = None) -> Iterator[FieldRecord]:
    """Every valid record of `path`, streamed (InputError when it is not a readable file)."""
    counts = counts if counts is not None else LoadCounts()
    path = Path(path)
    if not path.is_file():
        raise InputError("is not a field file (make one with `skillbench field import`)", path=path)
    with path.open("rb") as handle:
        for line in handle:
            try:
                record = FieldRecord.model_validate(json.loads(line))
            except (ValueError, ValidationError, RecursionError):
                counts.skipped += 1
                continue
            counts.records += 1
            yield record
