"""Ending a CLI run completely: its process group, and every descendant that left the group.

The CLI runs in a session of its own, so killing its process group ends it and every child that
stayed in the group. A child that detached (`setsid`, Node's `detached: true`) is in a group of
its own and would survive that; on Linux its pid is still found by walking `/proc` from the CLI's
pid (parent links) — before anything is killed, since children are re-parented once their parent
dies — and its group is killed too. Elsewhere only the group kill applies.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: str) -> tuple[int, int] | None:
    """(parent pid, process group) of a /proc entry, None when it is gone or unreadable."""
    try:
        text = (PROC / pid / "stat").read_text()
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
