"""A report's HTML: the executed notebook rendered without code, as a reader wants it."""

from __future__ import annotations

from pathlib import Path

from skillbench.io import atomic_write_text


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
