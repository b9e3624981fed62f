"""JupyterLab's Run All: every notebook runs with the kernel in notebooks/, no parameters given,
and writes nothing into the repository (the call cache is pointed at a temporary file)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _repo_state() -> set[str]:
    """Every changed, untracked or ignored path git reports (caches of Python excepted)."""
    done = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("not a git checkout")
    return {
        line
        for line in done.stdout.splitlines()
        if "__pycache__" not in line and ".ipynb_checkpoints" not in line
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_run_all_from_the_notebooks_folder(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("SKILLBENCH_REPORT_DIR", raising=False)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    before = _repo_state()
    notebook = nbformat.read(str(path), as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=600,
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [
        out for cell in notebook.cells for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]  # fmt: skip
    assert not errors
    assert _repo_state() == before, "running the notebook wrote into the repository"
