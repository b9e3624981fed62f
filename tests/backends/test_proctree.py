"""proctree: a process tree is found through /proc and killed, detached members included."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillbench.backends.proctree import descendants, kill_tree

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")

SPAWNER = """
import subprocess, sys, time
a = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
b = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
print(a.pid, b.pid, flush=True)
time.sleep(60)
"""


def _gone(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(") ")[1].startswith("Z")


def test_tree_found_and_killed_without_touching_the_caller() -> None:
    root = subprocess.Popen(
        [sys.executable, "-c", SPAWNER], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert root.stdout is not None
    in_group, detached = map(int, root.stdout.readline().split())
    tree = descendants(root.pid)
    assert set(tree) == {in_group, detached}
    assert tree[in_group] == root.pid and tree[detached] == detached
    kill_tree(root.pid)
    root.wait(timeout=10)
    deadline = time.monotonic() + 10
    while not (_gone(in_group) and _gone(detached)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(in_group) and _gone(detached)
    assert os.getpgrp() > 0  # still alive: our own group was spared


def test_a_childless_process_has_no_descendants() -> None:
    lone = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert descendants(lone.pid) == {}
        assert lone.pid in descendants(os.getpid())
    finally:
        lone.kill()
        lone.wait()
