"""Atomic file writes and bounded reads: nothing half-written, nothing unbounded read.

Inputs are read only from regular files (never a FIFO, a device such as /dev/zero or a
folder) of at most `MAX_INPUT_BYTES`; JSON is nested at most `MAX_NESTING` levels deep and
holds no lone surrogate (text that cannot be written back as UTF-8). Every problem is an
InputError naming the file and, where known, the JSON path.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from skillbench.redaction import redact

#: Largest input file read (eval sets, documents, summaries): 64 MiB.
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted in a JSON or YAML input.
MAX_NESTING = 100

_SURROGATE = re.compile("[\ud800-\udfff]")
#: What a terminal must never receive raw: C0 controls but tab and newline (ESC starts escape
#: sequences), DEL, C1 controls (U+009B is a one-byte CSI), bidi overrides, lone surrogates.
_TERMINAL_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
#: Characters JSON leaves raw with ensure_ascii=False that a terminal would act on.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` via a temporary file in the same folder and an atomic rename.

    An OSError that names no file (a full disk fails `write` or `fsync` with ENOSPC and no
    name) is given `path`, so the message says which file could not be written."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        _naming(exc, target)
        raise
    try:
        os.chmod(tmp_name, 0o666 & ~_umask())  # mkstemp's 0600 would hide shared reports
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            _naming(exc, target)
        raise
    return target


def _naming(exc: OSError, target: Path) -> None:
    """Give `exc` `target` as its file name when it names none."""
    if exc.filename is None:
        exc.filename = str(target)


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 text atomically, secrets redacted (a lone surrogate becomes `\\uXXXX`)."""
    return atomic_write_bytes(path, redact(escape_surrogates(text)).encode("utf-8"))


def escape_surrogates(text: str) -> str:
    """`text` with every lone surrogate replaced by its `\\uXXXX` escape (valid JSON and UTF-8)."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: object) -> str:
    """`text` fit for a terminal: control characters, bidi overrides and lone surrogates shown
    as escapes (``\\x1b``), secrets redacted. Every CLI line built from input or model text
    goes through it."""
    return redact(_TERMINAL_UNSAFE.sub(_escape_char, str(text)))


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
    written as null; documents that can hold them say why beside them) with a trailing newline.

    Never fails on a lone surrogate: it is kept as a `\\uXXXX` escape, which reads back the same
    (so are C1 controls and bidi overrides, so the text is also safe to print on a terminal).
    Secrets (key-shaped strings, secret environment values) are redacted: nothing skillbench
    writes as JSON carries a credential.
    """
    try:
        text = _indented(data)
    except ValueError:  # a NaN or an infinity somewhere: only then the copy without them
        text = _indented(finite(data))
    text = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return redact(text) + "\n"


def _indented(data: Any) -> str:
    """`json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)`, the same text, written
    chunk by chunk into one buffer: `json.dumps` with an indent lists every chunk first (millions
    of small strings, several times the text, for a report of 10,000 skills)."""
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=False)
    buffer = io.StringIO()
    for chunk in encoder.iterencode(data):
        buffer.write(chunk)
    return buffer.getvalue()


def write_json(path: str | Path, data: Any) -> Path:
    """Write plain data or a pydantic model as JSON, atomically."""
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", by_alias=True)
    return atomic_write_text(path, dumps_json(data))


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_input_bytes(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; InputError naming the file otherwise.

    The file is opened without blocking (a FIFO with no writer cannot hang) and checked with
    fstat before a byte is read; at most `limit` + 1 bytes are ever read.
    """
    from skillbench.errors import InputError

    source = Path(path)
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError("file not found", path=source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=source) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"is {_kind(info.st_mode)}, expected a regular file", path=source)
        raise InputError(f"is {info.st_size} bytes, over the {limit} byte input limit", path=source)
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", path=source) from None
    if len(data) > limit:
        raise InputError(f"is over the {limit} byte input limit", path=source)
    return data


def read_input_text(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> str:
    """UTF-8 text (a BOM dropped) of a bounded regular file; InputError naming the file."""
    from skillbench.errors import InputError

    data = read_input_bytes(path, limit=limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", path=path) from None


def _path_text(parts: tuple[str | int, ...]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "<root>"


def check_plain_data(data: Any, *, max_depth: int = MAX_NESTING) -> tuple[str, str] | None:
    """(JSON path, problem) for the first nesting past `max_depth` or lone surrogate, else None.

    Iterative, so it cannot itself hit Python's recursion limit.
    """
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(data, 0, ())]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return _path_text(where), "contains a lone surrogate (not valid Unicode text)"
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= max_depth:
            return _path_text(where), f"nested deeper than {max_depth} levels"
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return (
                        _path_text(where),
                        "has a key with a lone surrogate (not valid Unicode text)",
                    )
                stack.append((item, depth + 1, (*where, str(key))))
        else:
            stack.extend((item, depth + 1, (*where, i)) for i, item in enumerate(value))
    return None


def loads_json(text: str, *, path: str | Path | None = None) -> Any:
    """Parse JSON text with the input bounds; InputError naming `path` and the JSON path."""
    from skillbench.errors import InputError

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", path=path
        ) from None
    except RecursionError:
        raise InputError(f"JSON nested deeper than {MAX_NESTING} levels", path=path) from None
    except ValueError:  # an integer over Python's digit limit
        raise InputError(
            f"invalid JSON number: an integer has more than {sys.get_int_max_str_digits()} digits",
            path=path,
        ) from None
    problem = check_plain_data(data)
    if problem is not None:
        raise InputError(problem[1], path=path, field=problem[0])
    return data


def read_json(path: str | Path) -> Any:
    """Read a bounded JSON file, raising InputError (exit 2) with the file name on any problem."""
    return loads_json(read_input_text(path), path=path)


def output_problem(path: str | Path, *, folder: bool = False) -> str | None:
    """Why `path` cannot be written (as a file, or as a folder with `folder`), else None.

    Checked before any expensive work so that a bad output path fails in a second, not after a
    run of hours: the path must not be the wrong kind, its nearest existing ancestor must be a
    writable folder.
    """
    target = Path(path)
    try:
        os.stat(target)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link loop (or a chain of more than 40 links)"
        if folder and target.is_symlink():
            return "is a broken symbolic link"
    if target.exists():
        if folder and not target.is_dir():
            return "exists and is not a folder"
        if not folder and target.is_dir():
            return "is a directory, expected a file path"
        if not folder and not target.is_file():
            return "exists and is not a regular file"
    ancestor = target.parent if not target.exists() or not folder else target
    while not ancestor.exists() and ancestor != ancestor.parent:
        if ancestor.is_symlink():
            return f"{ancestor} is a broken symbolic link"
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot create it: {ancestor} is a file, not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot create it: {ancestor} is not writable"
    return None


def check_output(path: str | Path, option: str, *, folder: bool = False) -> Path:
    """`path` when it can be written, else InputError naming the option and the path."""
    from skillbench.errors import InputError

    problem = output_problem(path, folder=folder)
    if problem is not None:
        raise InputError(f"{problem} ({option})", path=path)
    return Path(path)


def redact_file(path: str | Path) -> bool:
    """Rewrite a UTF-8 text file written by another tool (papermill's executed notebook) with
    its secrets redacted, atomically; True when something was redacted."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    clean = redact(text)
    if clean == text:
        return False
    atomic_write_text(source, clean)
    return True
