"""Scratch folders of agent CLI runs: in a private folder, named after the skillbench process
that owns them.

**Private.** An agent CLI reads configuration in every parent of its working folder (Claude Code
reads `CLAUDE.md` and `.claude/` of each ancestor; opencode, Codex and Gemini read theirs), so a
`CLAUDE.md` someone planted in a shared `/tmp` would reach every capture and every session,
baselines included. Scratch folders are therefore made under `private_root()`: a per-user folder
`skillbench-<uid>` (mode 0700, owned by this user, not a link) under the first temp base
(`$SKILLBENCH_SCRATCH_DIR` alone when set; else the temp dir, `/tmp`, `/var/tmp`, `/dev/shm`,
`$XDG_RUNTIME_DIR`) none of whose ancestors holds a name in `AGENT_CONFIG` (`planted`). When
every base holds one, BackendError names the files.

**Owned.** A run's folder (`<root>/skillbench-<kind>-<pid>-<random>`) is removed when the run ends. A
`kill -9` of skillbench gives no chance to do that, so the next skillbench process to make a
scratch folder first removes the ones whose owner is dead (`sweep_stale`): only folders of this
user, with the owner pid in their name, whose process no longer exists. A live process — another
skillbench working now — keeps its folders.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path

from skillbench.errors import BackendError

__all__ = [
    "AGENT_CONFIG",
    "make_scratch",
    "owner_alive",
    "planted",
    "private_root",
    "scratch_until_exit",
    "sweep_stale",
]

_NAME = re.compile(r"^skillbench-[a-z]+(?:-[a-z]+)*-(\d+)-")
#: Names an agent CLI reads in the parents of its working folder (Claude Code, Codex, Gemini,
#: opencode; MCP servers).
AGENT_CONFIG = (
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".claude",
    "AGENTS.md",
    "AGENTS.override.md",
    "AGENT.md",
    "GEMINI.md",
    ".gemini",
    ".codex",
    ".agents",
    ".opencode",
    "opencode.json",
    "opencode.jsonc",
    ".mcp.json",
)
SCRATCH_VARIABLE = "SKILLBENCH_SCRATCH_DIR"
FALLBACK_BASES = ("/tmp", "/var/tmp", "/dev/shm")
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


def planted(folder: Path) -> list[Path]:
    """The agent configuration (`AGENT_CONFIG`) in `folder` and every one of its ancestors."""
    found: list[Path] = []
    for place in (folder, *folder.parents):
        found.extend(place / name for name in AGENT_CONFIG if os.path.lexists(place / name))
    return found


def _bases() -> list[str]:
    named = os.environ.get(SCRATCH_VARIABLE, "").strip()
    if named:
        return [named]
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    bases = [tempfile.gettempdir(), *FALLBACK_BASES, *([runtime] if runtime else [])]
    return list(dict.fromkeys(bases))


def _own_private(root: Path) -> bool:
    """Make `root` (mode 0700) or accept it when it is this user's folder, not a link; its
    mode is set back to 0700. False when it belongs to another user or is not a folder."""
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(root)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
        return False
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(root, 0o700)
    return True


def private_root() -> Path:
    """The private folder scratch folders are made in (see the module docstring).
    BackendError when no temp base is free of agent configuration."""
    user = os.getuid() if hasattr(os, "getuid") else os.getlogin()
    refused: list[str] = []
    for base in _bases():
        folder = Path(base).resolve()
        if not folder.is_dir():
            continue
        root = folder / f"skillbench-{user}"
        found = planted(root)
        if found:
            refused.extend(str(path) for path in found)
            continue
        if _own_private(root):
            return root
        refused.append(f"{root} (not this user's folder)")
    raise BackendError(
        "no private temp folder for agent runs: an agent CLI reads configuration in every "
        f"parent of its working folder, and these would reach it: {', '.join(refused[:6])}; "
        f"remove them, or set ${SCRATCH_VARIABLE} to a folder with none in its parents"
    )


def make_scratch(kind: str) -> Path:
    """A fresh scratch folder `skillbench-<kind>-<pid>-*` (mode 0700) in `private_root()`; the
    first one a process makes there sweeps the stale folders of dead owners first."""
    base = str(private_root())
    with _lock:
        if base not in _swept:
            _swept.add(base)
            sweep_stale(base)
    return Path(tempfile.mkdtemp(prefix=f"skillbench-{kind}-{os.getpid()}-", dir=base))


def scratch_until_exit(kind: str) -> Path:
    """`make_scratch(kind)`, removed when this process exits (and, if it is killed, swept by
    the next skillbench process that makes a scratch folder): for what is computed and not
    kept, such as a report's replayed demo workspace."""
    import atexit
    import shutil

    folder = make_scratch(kind)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
