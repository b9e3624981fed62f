"""What a session needs from the driver's disk travels with it: folders and files packed once
into the object store, unpacked once per node process into a scratch folder keyed by content.

A node shares no file system with the driver. `Shipper` (driver side) turns a folder into a
`Packed` reference (a tar of the folder: links kept as links, as `skill_copy` keeps them, nothing
outside it followed) and a file into one of its bytes, each `ray.put` once however many tasks
use it. `unpack` (node side) materialises it under this process's scratch folder, named by the
content digest, so a skill used by a hundred sessions on a node is unpacked once.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillbench.errors import InputError

# what never travels with a skill: version control and caches (the session never reads them)
SKIPPED = frozenset({".git", "__pycache__", "node_modules", ".venv", ".mypy_cache"})
MAX_PACKED = 512 * 1024 * 1024


@dataclass(frozen=True)
class Packed:
    """A folder (`is_dir`) or a file in the object store, with the digest naming it on a node."""

    ref: Any
    digest: str
    name: str
    is_dir: bool


def pack_folder(folder: Path) -> bytes:
    """The folder as an uncompressed tar (links as links; `SKIPPED` left out)."""
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            for name in sorted([*dirs, *files]):
                path = Path(root) / name
                if path.is_dir() and not path.is_symlink():
                    tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
                    continue
                total += path.lstat().st_size
                if total > MAX_PACKED:
                    raise InputError(
                        f"the folder holds more than {MAX_PACKED >> 20} MiB: too much to send "
                        "to the cluster's nodes",
                        path=folder,
                    )
                tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return buffer.getvalue()


class Shipper:
    """Driver side: each folder and file put into the object store once."""

    def __init__(self) -> None:
        self._packed: dict[tuple[str, bool], Packed] = {}

    def folder(self, folder: Path) -> Packed:
        """The folder packed (once per path)."""
        return self._pack(Path(folder), True)

    def file(self, path: Path) -> Packed:
        """The file's bytes (once per path)."""
        return self._pack(Path(path), False)

    def _pack(self, path: Path, is_dir: bool) -> Packed:
        key = (str(path.resolve()), is_dir)
        found = self._packed.get(key)
        if found is None:
            import ray

            data = pack_folder(path) if is_dir else path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()[:32]
            found = Packed(ray.put(data), digest, path.name, is_dir)
            self._packed[key] = found
        return found


_unpacked: dict[str, Path] = {}
_lock = threading.Lock()


def unpack(packed: Packed, data: bytes, root: Path) -> Path:
    """Node side: the folder or file materialised under `root` (once per digest and process)."""
    with _lock:
        found = _unpacked.get(packed.digest)
        if found is not None and found.exists():
            return found
        place = root / packed.digest
        target = place / packed.name
        if not target.exists():
            staging = root / f".{packed.digest}.tmp-{os.getpid()}"
            (staging / packed.name).parent.mkdir(parents=True, exist_ok=True)
            if packed.is_dir:
                with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
                    tar.extractall(staging / packed.name, filter="data")
            else:
                (staging / packed.name).write_bytes(data)
            os.replace(staging, place)
        _unpacked[packed.digest] = target
        return target
