"""`field import`: every session file of one agent, read incrementally into `FIELD.jsonl`.

New records are appended to the output; where each file stopped is kept in the state file
beside it (`<out>.state.json`, written atomically after the records), so the next import reads
only what was appended since. A file that shrank or was replaced is read again from the start.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from skillbench.errors import InputError
from skillbench.field.importers import ImportOptions, importer
from skillbench.field.reader import FileState
from skillbench.field.records import ImportCounts
from skillbench.io import check_output, read_json, write_json

_SINCE = re.compile(r"^(\d+)([dhm])$")


class ImportState(BaseModel):
    """What earlier imports into one output read (`<out>.state.json`)."""

    agent: str
    files: dict[str, FileState] = Field(default_factory=dict)
    counts: ImportCounts = Field(default_factory=ImportCounts)


def state_path(out: Path) -> Path:
    """Where the import state of `out` is kept."""
    return out.with_name(out.name + ".state.json")


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """`30d` / `12h` / `90m` → the UTC time that long ago (InputError naming `--since`)."""
    match = _SINCE.match(value.strip())
    if not match:
        raise InputError(f"{value!r} is not a duration like 30d, 12h or 90m", field="--since")
    amount, unit = int(match.group(1)), match.group(2)
    delta = {"d": timedelta(days=amount), "h": timedelta(hours=amount)}.get(
        unit, timedelta(minutes=amount)
    )
    return (now or datetime.now(UTC)) - delta


def _load_state(path: Path, agent: str) -> ImportState:
    if not path.exists():
        return ImportState(agent=agent)
    try:
        state = ImportState.model_validate(read_json(path))
    except ValidationError as exc:
        raise InputError(f"not an import state file: {exc.errors()[0]['msg']}", path=path) from exc
    if state.agent != agent:
        raise InputError(
            f"holds an import of {state.agent!r}, not {agent!r}: use another --out", path=path
        )
    return state


def import_sessions(
    agent: str, out: Path, *, root: Path | None = None, options: ImportOptions | None = None
) -> ImportCounts:
    """Append the new turns of `agent`'s sessions under `root` to `out`; the counts of this run."""
    options = options or ImportOptions()
    source = importer(agent)
    folder = root if root is not None else source.default_root()
    if not folder.is_dir():
        raise InputError("is not a folder of sessions (--projects)", path=folder)
    check_output(out, "--out")
    check_output(state_path(out), "--out")
    state = _load_state(state_path(out), agent)
    counts = ImportCounts()
    cutoff = options.since.timestamp() if options.since is not None else None
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as sink:
        for path in source.session_files(folder):
            info = path.stat()
            key = str(path.resolve())
            known = state.files.get(key)
            if known is None or known.inode != info.st_ino or known.offset > info.st_size:
                known = FileState(offset=0, inode=info.st_ino)
            if known.offset == info.st_size or (cutoff is not None and info.st_mtime < cutoff):
                counts.files_unchanged += 1
                continue
            counts.files += 1
            for record in source.read(path, known, options, counts):
                sink.write(json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n")
            state.files[key] = known
        sink.flush()
        os.fsync(sink.fileno())
    total = state.counts.model_dump()
    for name, value in counts.model_dump().items():
        total[name] += value
    state.counts = ImportCounts.model_validate(total)
    write_json(state_path(out), state)
    return counts
