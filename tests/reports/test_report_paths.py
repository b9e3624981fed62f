"""Report parameters resolve against the caller's working directory; kernels keep their call
cache out of the repository."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from skillbench.backends.cache import default_cache_path
from skillbench.reports.runner import from_caller_cwd, run_notebook


def test_relative_input_paths_are_the_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    params = {"skill_dir": "my/skill", "evals": "e.json", "runs": 3, "model": "m", "out": "o"}
    resolved = from_caller_cwd(params)
    assert resolved["skill_dir"] == str(tmp_path / "my" / "skill")
    assert resolved["evals"] == str(tmp_path / "e.json")
    assert resolved["out"] == "o" and resolved["runs"] == 3 and resolved["model"] == "m"
    assert from_caller_cwd({"skill_dir": "/abs/skill"}) == {"skill_dir": "/abs/skill"}


def test_report_checks_a_relative_path_against_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.errors import InputError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=str(tmp_path / "data" / "skills" / "csv-cleanup")):
        # exists under the repository root, not under the caller's directory: refused
        run_notebook("trigger_eval", {"skill_dir": "data/skills/csv-cleanup"}, out_root=tmp_path)


def test_kernel_cache_goes_to_the_user_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside a kernel or not, the default cache is the user cache folder (one cache for the
    CLI and the notebooks), never a folder under the working directory."""
    monkeypatch.delenv("SKILLBENCH_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "skillbench" / "cache.sqlite"
    kernelapp = types.ModuleType("ipykernel.kernelapp")
    kernelapp.IPKernelApp = types.SimpleNamespace(initialized=lambda: True)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ipykernel.kernelapp", kernelapp)
    assert default_cache_path() == tmp_path / "xdg" / "skillbench" / "cache.sqlite"


@pytest.mark.slow
def test_kernel_run_from_elsewhere_reads_the_callers_paths_and_writes_nothing_in_the_repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "data" / "skills" / "csv-cleanup", tmp_path / "mine" / "csv-cleanup")
    shutil.copy(root / "data" / "evals" / "csv-cleanup.trigger.json", tmp_path / "mine" / "e.json")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKILLBENCH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    before = {p for p in (root / ".skillbench", root / "notebooks" / ".skillbench") if p.exists()}
    params = {"skill_dir": "mine/csv-cleanup", "evals": "mine/e.json", "runs": 1}
    result = run_notebook("trigger_eval", params, out_root=tmp_path / "reports")
    assert result.ok, result.manifest.error
    assert result.manifest.parameters["skill_dir"] == str(tmp_path / "mine" / "csv-cleanup")
    assert (tmp_path / "xdg" / "skillbench" / "cache.sqlite").is_file()
    after = {p for p in (root / ".skillbench", root / "notebooks" / ".skillbench") if p.exists()}
    assert after == before


def test_notebooks_cache_path_is_outside_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.reports import notebook

    monkeypatch.delenv("SKILLBENCH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert notebook.cache_path() == tmp_path / "xdg" / "skillbench" / "cache.sqlite"
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "mine.sqlite"))
    assert notebook.cache_path() == tmp_path / "mine.sqlite"
