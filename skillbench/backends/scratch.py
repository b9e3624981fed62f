"""Scratch folders of agent CLI runs, named after the skillbench process that owns them.

A run's folder (`<tmp>/skillbench-<kind>-<pid>-<random>`) is removed when the run ends. A
`kill -9` of skillbench gives no chance to do that, so the next skillbench process to make a
scratch folder first removes the ones whose owner is dead (`sweep_stale`): only folders of this
user, with the owner pid in their name, whose process no longer exists. A live process — another
skillbench working now — keeps its folders.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

__all__ = ["make_scratch", "owner_alive", "scratch_until_exit", "sweep_stale"]

_NAME = re.compile(r"^skillbench-(?:cc|capture|report)-(\d+)-")
_swept: set[str] = set()
_lock = threading.Lock()


def owner_alive(pid: int) -> bool:
    """Whether process `pid` exists (a process of another user counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(folder: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove the scratch folders under `folder` (default: the temp dir) left by dead skillbench
    processes; returns what was removed. Links inside are removed, never followed."""
    root = Path(folder if folder is not None else tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    me = os.getuid() if hasattr(os, "getuid") else None
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not entry.is_dir(follow_symlinks=False) or (me is not None and info.st_uid != me):
            continue
        if owner_alive(int(match.group(1))):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def make_scratch(kind: str) -> Path:
    """A fresh scratch folder `skillbench-<kind>-<pid>-*` in the temp dir; the first one a
    process makes sweeps the stale folders of dead owners first."""
    base = tempfile.gettempdir()
    with _lock:
        if base not in _swept:
            _swept.add(base)
            sweep_stale(base)
    return Path(tempfile.mkdtemp(prefix=f"skillbench-{kind}-{os.getpid()}-"))


def scratch_until_exit(kind: str) -> Path:
    """`make_scratch(kind)`, removed when this process exits (and, if it is killed, swept by
    the next skillbench process that makes a scratch folder): for what is computed and not
    kept, such as a report's replayed demo workspace."""
    import atexit
    import shutil

    folder = make_scratch(kind)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
