"""scratch: a scratch folder names its owner; the stale folders of dead owners are swept, nothing
else (a live owner's, another program's, a file, a link)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.backends import scratch
from skillbench.backends.scratch import make_scratch, sweep_stale
from skillbench.errors import BackendError


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
    private = tmp_path / f"skillbench-{os.getuid()}"
    stale = private / f"skillbench-cc-{dead_pid()}-abc"
    stale.mkdir(parents=True)
    first = make_scratch("cc")
    assert first.parent == private and first.name.startswith(f"skillbench-cc-{os.getpid()}-")
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
    private = tmp_path / f"skillbench-{os.getuid()}"
    assert workspace.name == "workspace" and workspace.parent.parent == private
    assert workspace.parent.name.startswith("skillbench-report-")
    assert not workspace.parent.exists() and not list(private.iterdir())


@pytest.fixture
def bases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """$TMPDIR is `tmp_path/tmp` (inside `tmp_path/parent`); the fallback bases are
    `tmp_path/fallback` only (never the machine's shared /tmp)."""
    parent = tmp_path / "parent"
    tmpdir = parent / "tmp"
    fallback = tmp_path / "fallback"
    tmpdir.mkdir(parents=True)
    fallback.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    monkeypatch.delenv("SKILLBENCH_SCRATCH_DIR", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setattr(scratch, "FALLBACK_BASES", (str(fallback),))
    return tmpdir, fallback


def test_scratch_folders_are_private_and_under_a_clean_temp_dir(bases: tuple[Path, Path]) -> None:
    tmpdir, _ = bases
    folder = make_scratch("capture")
    root = folder.parent
    assert root == tmpdir / f"skillbench-{os.getuid()}"
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    root.chmod(0o755)  # a root made open by someone: closed again
    make_scratch("cc")
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    "where", ["tmpdir/CLAUDE.md", "tmpdir/.claude/skills/x/SKILL.md", "parent/CLAUDE.md",
              "parent/AGENTS.md", "parent/.agents/skills/x/SKILL.md", "tmpdir/GEMINI.md"],
)  # fmt: skip
def test_a_temp_dir_with_agent_configuration_in_its_parents_is_not_used(
    bases: tuple[Path, Path], where: str
) -> None:
    tmpdir, fallback = bases
    place, rel = where.split("/", 1)
    planted = (tmpdir if place == "tmpdir" else tmpdir.parent) / rel
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text("PLANTED")
    folder = make_scratch("cc")
    assert folder.parent == fallback / f"skillbench-{os.getuid()}"
    assert scratch.planted(folder) == []


def test_no_clean_temp_dir_is_an_error_naming_the_files(bases: tuple[Path, Path]) -> None:
    tmpdir, fallback = bases
    (tmpdir / "CLAUDE.md").write_text("PLANTED")
    (fallback / ".claude").mkdir()
    with pytest.raises(BackendError) as info:
        make_scratch("cc")
    assert str(tmpdir / "CLAUDE.md") in str(info.value)
    assert str(fallback / ".claude") in str(info.value)
    assert "SKILLBENCH_SCRATCH_DIR" in str(info.value)


def test_a_root_of_another_user_or_a_link_is_not_used(bases: tuple[Path, Path]) -> None:
    tmpdir, fallback = bases
    elsewhere = fallback / "elsewhere"
    elsewhere.mkdir()
    (tmpdir / f"skillbench-{os.getuid()}").symlink_to(elsewhere)
    folder = make_scratch("cc")
    assert folder.parent == fallback / f"skillbench-{os.getuid()}"
