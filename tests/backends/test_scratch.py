"""scratch: a scratch folder names its owner; the stale folders of dead owners are swept, nothing
else (a live owner's, another program's, a file, a link)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.backends import scratch
from skillbench.backends.scratch import make_scratch, sweep_stale


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_only_dead_owners_folders_are_swept(tmp_path: Path) -> None:
    dead = dead_pid()
    stale = tmp_path / f"skillbench-cc-{dead}-abc"
    (stale / "project" / "loop").parent.mkdir(parents=True)
    (stale / "project" / "loop").symlink_to("..")  # removed as a link, never followed
    outside = tmp_path / "keep-me"
    outside.mkdir()
    (stale / "project" / "out").symlink_to(outside)
    stale_capture = tmp_path / f"skillbench-capture-{dead}-x"
    stale_capture.mkdir()
    live = tmp_path / f"skillbench-cc-{os.getppid()}-abc"
    live.mkdir()
    mine = tmp_path / f"skillbench-cc-{os.getpid()}-abc"
    mine.mkdir()
    kept = tmp_path / "skillbench-cc-sxv7k002"  # keep_workdirs: no owner in the name
    kept.mkdir()
    other = tmp_path / f"other-cc-{dead}-abc"
    other.mkdir()
    a_file = tmp_path / f"skillbench-cc-{dead}-file"
    a_file.write_text("x")
    removed = sweep_stale(tmp_path)
    assert sorted(removed) == sorted([stale, stale_capture])
    assert not stale.exists() and not stale_capture.exists()
    assert live.is_dir() and mine.is_dir() and kept.is_dir() and other.is_dir()
    assert a_file.is_file() and outside.is_dir()


def test_the_first_scratch_folder_sweeps_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setattr(scratch, "_swept", set())
    stale = tmp_path / f"skillbench-cc-{dead_pid()}-abc"
    stale.mkdir()
    first = make_scratch("cc")
    assert first.parent == tmp_path and first.name.startswith(f"skillbench-cc-{os.getpid()}-")
    assert not stale.exists()
    stale.mkdir()
    make_scratch("cc")
    assert stale.exists()  # one sweep per process and temp dir


def test_a_demo_workspace_is_gone_when_its_process_exits(tmp_path: Path) -> None:
    """The grading and benchmark reports replay SAMPLE runs into a temporary workspace: it is a
    scratch folder of the kernel's process, removed when it exits (it stayed in /tmp forever)."""
    root = Path(__file__).resolve().parents[2]
    code = (
        "from skillbench.behavior.demo import sample_workspace\n"
        f"print(sample_workspace({str(root / 'data' / 'skills' / 'csv-cleanup')!r}))\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    workspace = Path(done.stdout.strip())
    assert workspace.name == "workspace" and workspace.parent.parent == tmp_path
    assert workspace.parent.name.startswith("skillbench-report-")
    assert not workspace.parent.exists() and not list(tmp_path.iterdir())
