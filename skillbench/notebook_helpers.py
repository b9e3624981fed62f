"""Glue used inside notebooks: save JSON and PNG artifacts into the report folder, show tables.

The report folder is the notebook's ``report_dir`` parameter (passed by `skillbench.reports`):
call ``use_report_dir(report_dir)`` once after the parameters cell. Without one (an interactive
session) the environment variable ``SKILLBENCH_REPORT_DIR`` is used, and failing that nothing is
saved and a one-line note says so. Tables are rendered with HTML escaping, so text supplied by a
skill or a model can never inject markup into a report.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from skillbench.errors import InputError
from skillbench.io import atomic_write_bytes, write_json

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

REPORT_DIR_ENV = "SKILLBENCH_REPORT_DIR"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_report_dir: Path | None = None


def use_report_dir(path: str | Path | None) -> Path | None:
    """Set (or clear, with None) the folder artifacts are written to; returns it."""
    global _report_dir
    _report_dir = Path(path) if path else None
    if _report_dir is not None:
        _report_dir.mkdir(parents=True, exist_ok=True)
    return _report_dir


def current_report_dir() -> Path | None:
    """The folder set by `use_report_dir`, else ``$SKILLBENCH_REPORT_DIR``, else None."""
    if _report_dir is not None:
        return _report_dir
    env = os.environ.get(REPORT_DIR_ENV)
    return Path(env) if env else None


def artifact_path(name: str, suffix: str) -> Path | None:
    """Where artifact `name` (a plain file name, suffix added if missing) goes; None if unset."""
    filename = name if name.endswith(suffix) else name + suffix
    if not _SAFE_NAME.match(filename):
        raise InputError(
            "artifact names are plain file names (letters, digits, '.', '_', '-')",
            path=filename,
            field="name",
        )
    folder = current_report_dir()
    if folder is None:
        print(f"report_dir not set: {filename} not saved")
        return None
    return folder / filename


def to_jsonable(obj: Any) -> Any:
    """Pydantic models, sequences of them, mappings and DataFrames as plain JSON data."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json", by_alias=True)
    if hasattr(obj, "to_dict") and hasattr(obj, "columns"):  # a DataFrame
        import json

        return json.loads(obj.to_json(orient="records", date_format="iso"))
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, Sequence) and not isinstance(obj, str | bytes):
        return [to_jsonable(v) for v in obj]
    return obj


def save_json(name: str, obj: Any) -> Path | None:
    """Write `obj` (a model, a list of models, a DataFrame or plain data) as `<name>.json`."""
    path = artifact_path(name, ".json")
    if path is None:
        return None
    return write_json(path, to_jsonable(obj))


def figure_png(fig: Figure, *, dpi: int = 110) -> bytes:
    """Render a matplotlib figure to PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def save_figure(name: str, fig: Figure, *, show: bool = True, dpi: int = 110) -> Path | None:
    """Write `fig` as `<name>.png` into the report folder and (by default) display it."""
    png = figure_png(fig, dpi=dpi)
    if show:
        from IPython.display import Image, display

        display(Image(data=png, format="png"))
    path = artifact_path(name, ".png")
    return None if path is None else atomic_write_bytes(path, png)


def table_html(df: pd.DataFrame, *, max_rows: int | None = 200) -> str:
    """The DataFrame as an HTML table, every cell and header HTML-escaped."""
    return df.to_html(
        escape=True, index=False, na_rep="", max_rows=max_rows, border=0, classes="sb-table"
    )


def show_table(df: pd.DataFrame, *, max_rows: int | None = 200) -> None:
    """Display a DataFrame as an escaped HTML table (safe for skill- or model-supplied text)."""
    from IPython.display import HTML, display

    display(HTML(table_html(df, max_rows=max_rows)))
