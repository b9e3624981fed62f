"""`skillbench demo --jobs N`: notebooks run N at a time, reported in order, failures counted."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skillbench.cli import main
from skillbench.cli.report_cmd import default_jobs


class FakeRunner:
    """Stands in for run_notebook: records how many ran at once; `bad` fails."""

    def __init__(self, bad: str | None = None) -> None:
        self.bad = bad
        self.now = 0
        self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, name: str, params: dict[str, Any], *, out_root: str) -> Any:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(0.05)
        with self.lock:
            self.now -= 1
        error = SimpleNamespace(cell_index=1, type="ValueError", message="boom")
        return SimpleNamespace(
            ok=name != self.bad,
            folder=Path(out_root) / name,
            html=None if name == self.bad else Path(out_root) / name / "index.html",
            manifest=SimpleNamespace(error=error if name == self.bad else None),
        )


@pytest.fixture
def notebooks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names = ["one", "two", "three", "four", "five"]
    monkeypatch.setattr("skillbench.reports.runner.DEMO_NOTEBOOKS", names)
    return names


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_jobs_bound_the_notebooks_at_once_and_output_keeps_the_order(
    jobs: int, notebooks: list[str], monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    runner = FakeRunner()
    monkeypatch.setattr("skillbench.reports.runner.run_notebook", runner)
    assert main(["demo", "--out", str(tmp_path / "r"), "--jobs", str(jobs)]) == 0
    assert runner.peak == jobs
    lines = [line.split(":")[0] for line in capsys.readouterr().out.splitlines()]
    assert [line for line in lines if not line.startswith(" ")] == notebooks


def test_a_failed_notebook_fails_the_demo(
    notebooks: list[str], monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    monkeypatch.setattr("skillbench.reports.runner.run_notebook", FakeRunner(bad="three"))
    (tmp_path / "r").mkdir()
    assert main(["demo", "--out", str(tmp_path / "r")]) == 1
    assert (tmp_path / "r" / "index.html").is_file()  # the index is written once all are done
    captured = capsys.readouterr()
    assert "three: FAILED" in captured.out and "boom" in captured.err


def test_default_and_bad_jobs(capsys: Any) -> None:
    assert 1 <= default_jobs() <= 3
    assert main(["demo", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_a_relative_out_is_the_callers_though_a_notebook_changes_the_cwd(
    notebooks: list[str], monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    """papermill changes the process's working directory while a notebook runs (the kernel's
    cwd is the project folder); the other demo threads must still write where the caller
    asked, not into the project (for an installed wheel: into site-packages)."""
    caller, project = tmp_path / "caller", tmp_path / "project"
    caller.mkdir()
    project.mkdir()
    seen: list[Path] = []

    def runner(name: str, params: dict[str, Any], *, out_root: str | Path) -> Any:
        seen.append(Path(out_root).resolve())
        os.chdir(project)  # what papermill's execute_notebook does meanwhile
        return SimpleNamespace(
            ok=True, folder=Path(out_root) / name, html=None, manifest=SimpleNamespace(error=None)
        )

    monkeypatch.chdir(caller)
    monkeypatch.setattr("skillbench.reports.runner.run_notebook", runner)
    assert main(["demo", "--out", "reports", "--jobs", "1"]) == 0
    assert seen == [caller / "reports"] * len(notebooks)
