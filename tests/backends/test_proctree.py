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
    root.stdout.close()
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


WATCHER = """
import subprocess, sys
from skillbench.backends.proctree import watch
sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                           start_new_session=True)
watch(sleeper.pid)
print(sleeper.pid, flush=True)
sleeper.returncode = 0  # this script's own handle: no warning of its own at exit
"""


def test_the_reaper_kills_what_is_watched_at_exit_and_leaves_no_resource_warning() -> None:
    """A normal exit with a group still watched: the reaper ends it, as before, and the
    interpreter has no running reaper `Popen` nor open pipe to warn about (`-X dev`)."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-c", WATCHER],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    sleeper = int(done.stdout.split()[0])
    deadline = time.monotonic() + 10
    while not _gone(sleeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(sleeper), "the watched group outlived the process"
    assert "ResourceWarning" not in done.stderr, done.stderr
