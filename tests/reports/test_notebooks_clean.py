"""Every notebook is stored clean: no outputs, no execution counts, a parameters cell, python3."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert any(p.stem == "validate_library" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_clean(path: Path) -> None:
    notebook = nbformat.read(str(path), as_version=4)
    nbformat.validate(notebook)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert cell.get("outputs") == [], f"cell {index} has outputs"
            assert cell.get("execution_count") is None, f"cell {index} has an execution count"
        assert "papermill" not in cell.get("metadata", {}), f"cell {index} has papermill metadata"
    tagged = [c for c in notebook.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1 and tagged[0].cell_type == "code", "exactly one parameters code cell"
    assert "injected-parameters" not in str(notebook.cells), "an executed notebook was stored"
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3"
    assert "papermill" not in notebook.metadata
