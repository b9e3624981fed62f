"""Ending a CLI run completely: its process group, and every descendant that left the group.

The CLI runs in a session of its own, so killing its process group ends it and every child that
stayed in the group. A child that detached (`setsid`, Node's `detached: true`) is in a group of
its own and would survive that; on Linux its pid is still found by walking `/proc` from the CLI's
pid (parent links) — before anything is killed, since children are re-parented once their parent
dies — and its group is killed too. Elsewhere only the group kill applies.

A CLI must also end when skillbench itself is killed (`kill -9` leaves no chance to clean up):
`child_options` starts it in a session of its own with `PR_SET_PDEATHSIG` = SIGKILL (Linux),
so the kernel kills it the moment its parent goes. The signal follows the death of the parent
THREAD that forked it, so spawn from a thread that outlives the child: the event loop's own
thread (asyncio forks there) or the thread blocked in `subprocess.run`. The signal reaches the
CLI only, not the tools it started (a Bash command, an MCP server): those are in the CLI's group,
which `watch` hands to a small reaper process (one per skillbench process, in a session of its
own) that kills every watched group when skillbench's end of its pipe closes — on any exit,
`kill -9` included.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROC = Path("/proc")
PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    """libc's prctl, looked up once in the parent (the forked child must not load anything)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


_PRCTL = _load_prctl()


def _die_with_parent(parent: int) -> None:
    """In the forked child, before exec: SIGKILL me when my parent dies; if it already died
    (between the fork and now), die at once."""
    if _PRCTL is None or _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def die_with_parent() -> Callable[[], None] | None:
    """A `preexec_fn` that ties the child's life to this process (None where prctl is absent)."""
    if _PRCTL is None:
        return None
    return functools.partial(_die_with_parent, os.getpid())


def child_options() -> dict[str, Any]:
    """Popen keyword arguments of an agent CLI: a session of its own (its group is killed at the
    end of a run) and, on Linux, death with this process."""
    options: dict[str, Any] = {"start_new_session": True}
    hook = die_with_parent()
    if hook is not None:
        options["preexec_fn"] = hook
    return options


def _stat(pid: str) -> tuple[int, int] | None:
    """(parent pid, process group) of a /proc entry, None when it is gone or unreadable."""
    try:  # plain strings, not pathlib: every process on the machine is read at each session's end
        with open(f"{PROC}/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()
    try:
        return int(fields[1]), int(fields[2])
    except (IndexError, ValueError):
        return None


def descendants(root: int) -> dict[int, int]:
    """Every live descendant of `root` with its process group (empty without /proc)."""
    if not PROC.is_dir():
        return {}
    children: dict[int, list[tuple[int, int]]] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir(PROC):
            if entry.name.isdigit():
                info = _stat(entry.name)
                if info is not None:
                    children.setdefault(info[0], []).append((int(entry.name), info[1]))
    found: dict[int, int] = {}
    pending = [root]
    while pending:
        for pid, group in children.get(pending.pop(), []):
            if pid not in found:
                found[pid] = group
                pending.append(pid)
    return found


def kill_tree(root: int) -> None:
    """SIGKILL the group led by `root`, every descendant of `root`, and their groups (never the
    caller's own group). Processes already gone are ignored."""
    tree = descendants(root)
    own = os.getpgrp()
    groups = {root} | {group for group in tree.values() if group > 1}
    for group in groups - {own}:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    for pid in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


REAPER_EXIT_WAIT = 5.0
"""Seconds the exit waits for the reaper to finish its kills (it only sends signals)."""

_REAPER_CODE = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    sign, number = line[:1], line[1:].strip()
    if number.isdigit():
        (groups.add if sign == "+" else groups.discard)(int(number))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""


class _Reaper:
    """The reaper process of this skillbench process: started on the first `watch`, fed
    `+<group>` / `-<group>` lines, it kills the groups still watched when the pipe closes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner = 0

    def _send(self, line: str) -> None:
        with self._lock:
            if self._proc is None or self._owner != os.getpid() or self._proc.poll() is not None:
                if line.startswith("-"):
                    return
                if self._proc is not None and self._owner == os.getpid() and self._proc.stdin:
                    self._proc.stdin.close()  # a reaper that died: its pipe is not left open
                try:
                    self._proc = subprocess.Popen(
                        [sys.executable, "-I", "-c", _REAPER_CODE],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        start_new_session=True,  # no terminal signal ends it before its work
                    )
                except OSError:
                    self._proc = None
                    return
                if not self._owner:
                    atexit.register(self.close)
                self._owner = os.getpid()
            assert self._proc.stdin is not None
            with contextlib.suppress(OSError, ValueError):
                self._proc.stdin.write(line.encode() + b"\n")
                self._proc.stdin.flush()

    def close(self) -> None:
        """At exit: close the pipe (the reaper kills the groups still watched, as it would when
        the pipe closes with the process) and reap it, so no running `Popen` and no open pipe
        are left for the interpreter to warn about (`ResourceWarning` at exit)."""
        with self._lock:
            if self._owner != os.getpid():
                return  # a forked child's copy: the reaper is its parent's
            proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=REAPER_EXIT_WAIT)


_REAPER = _Reaper()


def watch(group: int) -> None:
    """Kill process group `group` if this process dies before `unwatch(group)` (any death)."""
    if sys.platform != "win32":
        _REAPER._send(f"+{group}")


def unwatch(group: int) -> None:
    """The group has been dealt with; the reaper forgets it."""
    if sys.platform != "win32":
        _REAPER._send(f"-{group}")
