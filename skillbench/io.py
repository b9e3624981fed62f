"""Atomic file writes and JSON helpers: nothing is ever left half-written."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def _umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` via a temporary file in the same folder and an atomic rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp_name, 0o666 & ~_umask())  # mkstemp's 0600 would hide shared reports
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return target


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 text atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def finite(data: Any) -> Any:
    """`data` with every NaN or infinite float replaced by None (JSON has no such numbers)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {key: finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [finite(value) for value in data]
    return data


def dumps_json(data: Any) -> str:
    """Serialise plain data as pretty, stable, strict JSON (no NaN or Infinity: such values are
    written as null; documents that can hold them say why beside them) with a trailing newline."""
    return json.dumps(finite(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: str | Path, data: Any) -> Path:
    """Write plain data or a pydantic model as JSON, atomically."""
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", by_alias=True)
    return atomic_write_text(path, dumps_json(data))


def read_json(path: str | Path) -> Any:
    """Read a JSON file, raising InputError (exit 2) with the file name on any problem."""
    from skillbench.errors import InputError

    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError("file not found", path=source) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a JSON file", path=source) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", path=source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=source) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", path=source
        ) from None
