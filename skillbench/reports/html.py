"""A report's HTML: the executed notebook rendered without code, as a reader wants it."""

from __future__ import annotations

from pathlib import Path

from skillbench.io import atomic_write_text
from skillbench.reports.header import HEADER_OUTPUT_KEY, ReportHeader, header_html

HEADER_CELL_TAG = "skillbench-header"


def render_html(executed: Path, target: Path, *, title: str) -> Path:
    """Render an executed notebook to HTML without code cells or prompts (in-process), atomically."""
    import nbformat
    from nbconvert import HTMLExporter

    notebook = nbformat.read(str(executed), as_version=4)
    exporter = HTMLExporter(
        exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True
    )
    body, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": title}})
    return atomic_write_text(target, body)


def prepend_header(executed: Path, header: ReportHeader) -> Path:
    """Put the header first in the executed notebook: one hidden-code cell whose output is the
    header's HTML (replacing an earlier one), so the notebook and its HTML open with it."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_output

    notebook = nbformat.read(str(executed), as_version=4)
    notebook.cells = [
        c for c in notebook.cells if HEADER_CELL_TAG not in c.get("metadata", {}).get("tags", [])
    ]
    for cell in notebook.cells:  # the copy the notebook displayed where it was computed
        if cell.get("outputs"):
            cell.outputs = [
                out for out in cell.outputs if not out.get("metadata", {}).get(HEADER_OUTPUT_KEY)
            ]
    cell = new_code_cell(
        source="# report header (inserted by the skillbench report runner)",
        metadata={"tags": [HEADER_CELL_TAG], "jupyter": {"source_hidden": True}},
    )
    plain = f"{header.title}: {header.verdict}"
    cell.outputs = [
        new_output("display_data", data={"text/html": header_html(header), "text/plain": plain})
    ]
    notebook.cells.insert(0, cell)
    return atomic_write_text(executed, nbformat.writes(notebook))
