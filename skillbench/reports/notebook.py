"""Glue used inside notebooks: save JSON and PNG artifacts into the report folder, show tables.

The report folder is the notebook's ``report_dir`` parameter (passed by `skillbench.reports.runner`):
call ``use_report_dir(report_dir)`` once after the parameters cell. Without one (an interactive
session) the environment variable ``SKILLBENCH_REPORT_DIR`` is used, and failing that nothing is
saved and a one-line note says so. Tables are rendered with HTML escaping, so text supplied by a
skill or a model can never inject markup into a report.
"""

from __future__ import annotations

import html
import io
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from skillbench.errors import InputError
from skillbench.io import atomic_write_bytes, write_json
from skillbench.reports.header import HEADER_NAME, HEADER_OUTPUT_KEY, ReportHeader, header_html
from skillbench.reports.paths import default_cache_path
from skillbench.reports.paths import input_path as input_path  # re-exported for notebooks
from skillbench.reports.paths import project_root as project_root

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

REPORT_DIR_ENV = "SKILLBENCH_REPORT_DIR"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_report_dir: Path | None = None
_SAVED_STYLE = "color:#777;font-size:0.85em;margin:0.2em 0 0.8em 0"
_TABLE_STYLE = (  # specific enough to beat the notebook theme's right-aligned cells
    "table.sb-table td,table.sb-table th,.jp-RenderedHTMLCommon table.sb-table td,"
    ".jp-RenderedHTMLCommon table.sb-table th"
    "{text-align:left;vertical-align:top;max-width:36em;white-space:normal}"
)


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


class Saved:
    """A file a helper wrote into the report folder; displays as "saved <name>" (a relative link).

    Notebook cells often end with a save call: this keeps the report free of absolute paths into
    the temporary run folder, which no longer exists once the report is finished.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return str(self.path)

    def __repr__(self) -> str:
        return f"saved {report_relative(self.path)}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        name = html.escape(report_relative(self.path))
        return f'<p class="sb-saved" style="{_SAVED_STYLE}">saved <a href="{name}">{name}</a></p>'

    def read_bytes(self) -> bytes:
        """The saved file's content."""
        return self.path.read_bytes()

    def read_text(self, encoding: str = "utf-8") -> str:
        """The saved file's text."""
        return self.path.read_text(encoding=encoding)


def report_relative(path: str | Path) -> str:
    """`path` relative to the report folder when inside it (the folder is what gets shared)."""
    target = Path(path)
    folder = current_report_dir()
    if folder is not None:
        try:
            relative = target.resolve().relative_to(folder.resolve())
        except ValueError:
            return str(target)
        return relative.as_posix() or "."
    return str(target)


def save_json(name: str, obj: Any) -> Saved | None:
    """Write `obj` (a model, a list of models, a DataFrame or plain data) as `<name>.json`."""
    path = artifact_path(name, ".json")
    if path is None:
        return None
    return Saved(write_json(path, to_jsonable(obj)))


def figure_png(fig: Figure, *, dpi: int = 110) -> bytes:
    """Render a matplotlib figure to PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def save_figure(name: str, fig: Figure, *, show: bool = True, dpi: int = 110) -> None:
    """Write `fig` as `<name>.png` into the report folder and (by default) display it.

    Returns nothing: the figure itself is the display; `artifact_path` tells where it went.
    """
    png = figure_png(fig, dpi=dpi)
    if show:
        from IPython.display import Image, display

        display(Image(data=png, format="png"))
    path = artifact_path(name, ".png")
    if path is not None:
        atomic_write_bytes(path, png)


def format_number(value: float) -> str:
    """A float with sensible digits: 3 decimals, fewer for large values, 2 significant if tiny."""
    if value != value:  # NaN
        return ""
    if value == 0 or (value.is_integer() and abs(value) >= 1000):
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.1f}"
    if abs(value) >= 0.001:
        return f"{value:.3f}"
    return f"{value:.2g}"


CHECK_COLUMNS = frozenset({"pass", "passed", "valid", "ok", "result", "adopted", "changed"})
"""Boolean columns shown as ✓/✗ (every other boolean column reads yes/no)."""


def _format_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return format_number(value) if isinstance(value, float) else value


def _bool_text(column: str) -> Any:
    name = str(column).lower()
    check = name in CHECK_COLUMNS or bool(set(name.replace("_", " ").split()) & CHECK_COLUMNS)

    def render(value: Any) -> Any:
        if value is None or (isinstance(value, float) and value != value):
            return ""
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            if check:
                return "✓" if value else "✗"
            return "yes" if value else "no"
        return value

    return render


def failures_first(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """The rows whose `column` is false (or FAIL/failed) first, order otherwise kept."""
    if column not in df.columns or df.empty:
        return df

    def failing(value: Any) -> int:
        if isinstance(value, str):
            return 0 if value.strip().lower() in {"fail", "failed", "✗", "error"} else 1
        return 0 if value is False or (value is not None and not bool(value)) else 1

    order = sorted(range(len(df)), key=lambda i: failing(df[column].iloc[i]))
    return df.iloc[order]


def _whole_numbers(values: pd.Series) -> bool:
    present = values.dropna()
    return bool(len(present)) and bool((present == present.round()).all())


def _meaningful_index(df: pd.DataFrame) -> bool:
    """A named index, or labels; an unnamed integer index (row numbers) is noise."""
    index = df.index
    if any(name is not None for name in index.names):
        return True
    return index.dtype.kind not in "iu"


def table_html(df: pd.DataFrame, *, max_rows: int | None = 200) -> str:
    """The DataFrame as an HTML table, every cell and header HTML-escaped.

    Floats get sensible digits (`format_number`); a named or labelled index (e.g. the rows of a
    confusion matrix) is shown, a plain 0..n-1 one is not. Cells are left-aligned and top-aligned
    so long text (queries, descriptions) reads naturally.
    """
    df = df.copy()
    for column, dtype in list(df.dtypes.items()):
        if dtype.kind == "b" or (
            dtype.kind == "O" and df[column].map(lambda v: isinstance(v, bool)).any()
        ):  # booleans read ✓/✗ (pass, valid, ...) or yes/no, never True/False
            df[column] = df[column].astype(object).map(_bool_text(str(column)))
        if dtype.kind == "O":  # floats mixed with text (e.g. a "+0.55" delta row): same digits
            df[column] = df[column].map(_format_cell)
        elif dtype.kind == "f" and _whole_numbers(df[column]):  # scores 1.0, 3.0 → 1, 3
            df[column] = df[column].map(lambda v: "" if v != v else f"{v:,.0f}")
    body = df.to_html(
        escape=True,
        index=_meaningful_index(df),
        na_rep="",
        max_rows=max_rows,
        border=0,
        classes="sb-table",
        float_format=format_number,
    )
    return f"<style>{_TABLE_STYLE}</style>\n{body}"


def show_table(df: pd.DataFrame, *, max_rows: int | None = 200, empty: str | None = None) -> None:
    """Display a DataFrame as an escaped HTML table (safe for skill- or model-supplied text).

    With `empty` given, an empty frame is shown as that sentence instead of a bare header.
    """
    from IPython.display import HTML, display

    if empty is not None and df.empty:
        show_text(empty)
        return
    display(HTML(table_html(df, max_rows=max_rows)))


def show_record_table(df: pd.DataFrame, *, key: str, max_rows: int | None = 200) -> None:
    """Display a wide frame transposed: one column per `key` value, one row per field."""
    frame = df.set_index(key) if key in df.columns else df
    transposed = frame.T.astype(object).map(lambda v: "" if v is None else v)
    transposed.index.name = None  # one header row: the key's name over the field names
    transposed.columns.name = key
    show_table(transposed, max_rows=max_rows)


def show_text(text: str) -> None:
    """Display one escaped paragraph of prose (no markup can be injected)."""
    from IPython.display import HTML, display

    display(HTML(f"<p>{html.escape(text)}</p>"))


def cache_path() -> Path:
    """The call cache a notebook uses (``$SKILLBENCH_CACHE``, else the user's cache folder,
    ``$XDG_CACHE_HOME/skillbench/cache.sqlite``): never a file in the repository."""
    return default_cache_path()


def as_list(value: Any, name: str = "value") -> list[Any]:
    """A list parameter as a list: one scalar (`-p skills pdf`) becomes a one-element list, never
    its characters; None is empty; anything else not a list or tuple is an InputError."""
    if value is None:
        return []
    if isinstance(value, str | int | float):
        return [value]
    if isinstance(value, list | tuple):
        return list(value)
    raise InputError(f"expected a list, got {type(value).__name__}", field=name)


def scratch_folder() -> Path:
    """A fresh scratch folder of this process (`backends.scratch`: `skillbench-report-<pid>-*`
    in the temp dir) for what a report computes and does not keep: removed when the process
    (the notebook's kernel) exits and, if it is killed, by the next skillbench process that makes
    a scratch folder."""
    from skillbench.backends.scratch import scratch_until_exit

    return scratch_until_exit("report")


def working_copy(folder: str | Path) -> str:
    """A scratch copy of `folder` (links kept as links; `scratch_folder`) for computations that
    write into what they read: a report never changes the workspace it reports on."""
    import shutil

    source = Path(folder)
    if not source.is_dir():
        raise InputError("not a folder", path=source)
    target = scratch_folder() / source.name
    shutil.copytree(source, target, symlinks=True)
    return str(target)


_header: ReportHeader | None = None


def current_header() -> ReportHeader | None:
    """The header last shown with `show_header` (None before)."""
    return _header


def save_table(
    name: str, df: pd.DataFrame, *, nulls: Mapping[str, str] | None = None
) -> Saved | None:
    """Write a table as ``<name>.json`` (a `ReportTable`: the report's header, the columns, the
    rows). Missing values are null; `nulls` says why per column (a generic reason is filled in
    for any other column holding a null)."""
    import json

    from skillbench.schemas.report import ReportTable

    path = artifact_path(name, ".json")
    if path is None:
        return None
    rows = json.loads(df.to_json(orient="records", date_format="iso"))
    reasons = dict(nulls or {})
    for column in df.columns:
        if str(column) not in reasons and any(row.get(str(column)) is None for row in rows):
            reasons[str(column)] = "no value (not applicable or not computed for this row)"
    table = ReportTable(
        table=name,
        header=_header,
        columns=[str(c) for c in df.columns],
        rows=rows,
        nulls=reasons,
    )
    return Saved(write_json(path, table))


def show_header(header: ReportHeader) -> None:
    """Display the report header and save it as ``header.json``; the report runner moves it to
    the top of the executed notebook and the HTML, and into ``manifest.json``."""
    from IPython.display import HTML, display

    global _header
    _header = header
    # marked, so the report runner can drop this copy when it puts the header first
    display(HTML(header_html(header)), metadata={HEADER_OUTPUT_KEY: True})
    folder = current_report_dir()
    if folder is not None:
        write_json(folder / HEADER_NAME, header)
