"""Run a notebook with papermill into a versioned, self-describing report folder.

``run_notebook("validate_library", {...})`` writes
``reports/<notebook>/<YYYYmmddTHHMMSSZ>-<id>/`` holding the executed notebook, ``index.html``
(rendered in-process without code cells), every JSON/PNG artifact the notebook saved through
`skillbench.reports.notebook`, and ``manifest.json`` (`skillbench.reports.manifest.Manifest`).
The folder is built under a hidden temporary name and renamed into place at the end, so a
half-run never looks finished; a failed run is renamed too and its manifest says ``failed``.
"""

from __future__ import annotations

import ast
import os
import secrets
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.io import redact_file, write_json
from skillbench.reports.header import HEADER_NAME, ReportHeader, Verdict, make_header
from skillbench.reports.html import HEADER_CELL_TAG, prepend_header, render_html
from skillbench.reports.index import LATEST_NAME, update_latest, write_index
from skillbench.reports.manifest import (
    MANIFEST_NAME,
    SECRET_NAME,
    GitState,
    Manifest,
    RunError,
    git_state,
    input_hashes,
    list_artifacts,
    redact,
    software_versions,
    utc_now,
)
from skillbench.reports.paths import project_root

DEMO_NOTEBOOKS: list[str] = [
    "validate_library",
    "trigger_eval",
    "improve_description",
    "overfitting_analysis",
    "grading_report",
    "benchmark",
    "blind_comparison",
    "report_diff",
]
"""Notebooks `skillbench demo` runs, in this order, with their default (offline) parameters
plus `demo_parameters()`."""

DEMO_CATALOG_NOTEBOOKS = frozenset(
    {"trigger_eval", "improve_description", "overfitting_analysis", "report_diff"}
)


def demo_parameters(name: str) -> dict[str, Any]:
    """What the demo passes a notebook beyond its defaults: the project's sample distractors
    (`data/catalog`) as competing skills, explicitly; a notebook's own default is no catalog."""
    if name in DEMO_CATALOG_NOTEBOOKS:
        return {"catalog": str(repo_root() / "data" / "catalog")}
    return {}


REPORT_DIR_PARAM = "report_dir"
HTML_NAME = "index.html"
DEFAULT_TIMEOUT = 600.0


class ReportResult(BaseModel):
    """Where a run's report folder is and how it ended."""

    folder: Path
    notebook: Path
    html: Path | None
    manifest: Manifest

    @property
    def ok(self) -> bool:
        """True when the notebook ran to the end and the HTML was rendered."""
        return self.manifest.status == "ok"


def repo_root() -> Path:
    """The project folder (holding notebooks/ and data/: the checkout, or the installed
    package's copy), used as the notebooks' working directory; else the working directory."""
    return project_root() or Path.cwd()


def notebooks_dir() -> Path:
    """The folder of the project's notebooks."""
    return repo_root() / "notebooks"


def available_notebooks() -> list[str]:
    """Names of the project's notebooks (without .ipynb)."""
    folder = notebooks_dir()
    return sorted(p.stem for p in folder.glob("*.ipynb")) if folder.is_dir() else []


def resolve_notebook(name_or_path: str | Path) -> Path:
    """A notebook file path, or a name looked up as ``notebooks/<name>.ipynb``."""
    given = Path(name_or_path)
    if given.suffix == ".ipynb" or given.parent != Path("."):
        if given.is_file():
            return given.resolve()
        raise InputError("notebook not found", path=given)
    candidate = notebooks_dir() / f"{given.name}.ipynb"
    if candidate.is_file():
        return candidate
    known = ", ".join(available_notebooks()) or "none"
    raise InputError(f"no such notebook (available: {known})", path=candidate)


def inspect_parameters(notebook: Path) -> dict[str, dict[str, Any]]:
    """papermill's inspection of the ``parameters``-tagged cell: name → default source text,
    inferred type name (``"None"`` when the cell gives no annotation), help."""
    import papermill

    try:
        inspected: dict[str, dict[str, Any]] = papermill.inspect_notebook(str(notebook))
    except Exception as exc:  # nbformat / JSON errors: the file is unusable
        raise InputError(
            f"cannot read notebook: {type(exc).__name__}: {exc}", path=notebook
        ) from None
    return inspected


def declared_parameters(notebook: Path) -> dict[str, str]:
    """Names and default source text of the notebook's ``parameters``-tagged cell."""
    return _defaults(inspect_parameters(notebook))


def _defaults(inspected: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: str(info.get("default", "")) for name, info in inspected.items()}


def declared_types(notebook: Path) -> dict[str, str]:
    """Annotated type names of the ``parameters`` cell (``x: int = 3``); unannotated left out."""
    return _annotations(inspect_parameters(notebook))


def _annotations(inspected: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {
        name: str(info["inferred_type_name"])
        for name, info in inspected.items()
        if info.get("inferred_type_name") not in (None, "None")
    }


Kind = tuple[str, tuple[type, ...], bool]
"""What a parameter accepts: (description, Python types, whether None is accepted)."""

_SCALARS: tuple[type, ...] = (str, int, float, bool)
_TYPE_NAMES: dict[str, Kind] = {
    "str": ("text", _SCALARS, False),
    "path": ("text", _SCALARS, False),
    "int": ("an integer", (int,), False),
    "float": ("a number", (int, float), False),
    "bool": ("true or false", (bool,), False),
    "list": ("a list, e.g. '[a, b]'", (list,), False),
    "sequence": ("a list, e.g. '[a, b]'", (list,), False),
    "tuple": ("a list, e.g. '[a, b]'", (list,), False),
    "dict": ("a map, e.g. '{a: 1}'", (dict,), False),
    "mapping": ("a map, e.g. '{a: 1}'", (dict,), False),
}


def parameter_kind(default_source: str, type_name: str | None = None) -> Kind | None:
    """What a parameter accepts: from its annotation when papermill reports one it knows,
    else from its default's literal type (None default and text: any scalar or None; a list
    default: a list; ...). None when nothing is known (anything goes)."""
    if type_name:
        optional = "none" in type_name.lower() or type_name.lower().startswith("optional")
        base = type_name.lower().removeprefix("optional[").split("[")[0].split("|")[0].strip()
        base = base.rsplit(".", 1)[-1]
        if base in _TYPE_NAMES:
            what, types, _ = _TYPE_NAMES[base]
            return what, types, optional
    try:
        default = ast.literal_eval(default_source)
    except (ValueError, SyntaxError):
        return None
    if default is None or isinstance(default, str):
        return "text, a number or None", _SCALARS, True
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (list | tuple, "list")):
        if isinstance(default, kind):
            return _TYPE_NAMES[name]
    if isinstance(default, dict):
        return _TYPE_NAMES["dict"]
    return None


def _value_kind(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, int | float):
        return "a number"
    return "text"


def check_types(
    notebook: Path,
    params: dict[str, Any],
    declared: dict[str, str],
    annotations: dict[str, str] | None = None,
) -> None:
    """Refuse a value the parameter cell does not accept (a YAML map for a path, a map for a
    list), before anything executes. One scalar given for a list parameter becomes a one-item
    list in `params` (`-p skills pdf` is `[pdf]`; the notebook would iterate its characters)."""
    for name, value in list(params.items()):
        if name not in declared:
            continue
        kind = parameter_kind(declared[name], (annotations or {}).get(name))
        if kind is None:
            continue
        what, types, none_ok = kind
        if list in types and isinstance(value, _SCALARS) and value is not None:
            params[name] = value = [value]
        fits = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if (value is None and none_ok) or (value is not None and fits):
            continue
        raise InputError(
            f"expects {what} (the notebook's default is {declared[name]}), "
            f"got {_value_kind(value)}",
            path=notebook,
            field=name,
            rule="parameter-type",
        )


def check_parameters(
    notebook: Path,
    params: dict[str, Any],
    declared: dict[str, str],
    annotations: dict[str, str] | None = None,
) -> None:
    """Reject unknown, runner-owned, secret-looking or mistyped parameters before anything
    executes."""
    for name in params:
        if name == REPORT_DIR_PARAM:
            raise InputError(
                "is set by the report runner, do not pass it", path=notebook, field=name
            )
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise InputError(
                f"unknown parameter (the notebook declares: {known})",
                path=notebook,
                field=name,
                rule="unknown-parameter",
            )
        if SECRET_NAME.search(name):
            raise InputError(
                "looks like a secret; secrets come from the environment, never from parameters",
                path=notebook,
                field=name,
            )
    check_types(notebook, params, declared, annotations)


OUTPUT_PATH_PARAMS = frozenset({REPORT_DIR_PARAM, "out"})
INPUT_PATH_NAMES = frozenset({"evals", "workspace", "catalog", "library", "from_report"})


def is_input_path_param(name: str) -> bool:
    """Parameters naming something the notebook reads: `*_dir`, `*_root`, `*_file`, `evals`,
    `workspace`, `catalog`, `library` (outputs such as `report_dir` and `out` excluded)."""
    if name in OUTPUT_PATH_PARAMS:
        return False
    return name in INPUT_PATH_NAMES or name.endswith(("_dir", "_root", "_file"))


CATALOG_WORDS = frozenset({"none", "installed"})
"""`catalog` values that are not paths (as the CLI's `--catalog none|installed`)."""


def _is_path_value(name: str, value: Any) -> bool:
    if not is_input_path_param(name) or not isinstance(value, str) or not value.strip():
        return False
    return not (name == "catalog" and value.strip().lower() in CATALOG_WORDS)


def check_input_paths(notebook: Path, values: dict[str, Any], cwd: Path) -> None:
    """A mistyped input path is bad input (exit 2) before anything runs, not a report about an
    empty folder."""
    for name, value in values.items():
        if not _is_path_value(name, value):
            continue
        path = Path(value).expanduser()
        if not (path if path.is_absolute() else cwd / path).exists():
            raise InputError(
                f"{value!r} does not exist (relative paths are taken from {cwd})",
                path=notebook,
                field=name,
                rule="input-path",
            )


def from_caller_cwd(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with relative input paths made absolute against the caller's working directory
    (the kernel runs elsewhere: `report -p skill_dir rel/path` means the caller's rel/path)."""
    return {
        name: str(Path.cwd() / value)
        if _is_path_value(name, value) and not Path(value).expanduser().is_absolute()
        else value
        for name, value in params.items()
    }


def default_values(declared: dict[str, str]) -> dict[str, Any]:
    """Declared defaults evaluated as Python literals where possible (else kept as source text)."""
    values: dict[str, Any] = {}
    for name, source in declared.items():
        try:
            values[name] = ast.literal_eval(source)
        except (ValueError, SyntaxError):
            values[name] = source
    return values


def new_run_id() -> str:
    """``YYYYmmddTHHMMSSZ-<6 hex>``: sortable by time, unique across parallel runs."""
    return f"{utc_now():%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


PAPERMILL_TAGS = frozenset({"injected-parameters", "papermill-error-cell-tag", HEADER_CELL_TAG})


def locate_failed_cell(executed: Path) -> tuple[int, int] | None:
    """(source index, executed index) of the first cell with an error output, if any."""
    import nbformat

    try:
        notebook = nbformat.read(str(executed), as_version=4)
    except Exception:
        return None
    source_index = 0
    for index, cell in enumerate(notebook.cells):
        if PAPERMILL_TAGS.intersection(cell.get("metadata", {}).get("tags", [])):
            continue
        if any(out.get("output_type") == "error" for out in cell.get("outputs", [])):
            return source_index, index
        source_index += 1
    return None


def _run_error(exc: Exception, executed: Path) -> RunError:
    from papermill.exceptions import PapermillExecutionError

    if not isinstance(exc, PapermillExecutionError):
        return RunError(type=type(exc).__name__, message=redact(str(exc)))
    located = locate_failed_cell(executed)
    return RunError(
        type=str(exc.ename),
        message=redact(str(exc.evalue)),
        cell_index=located[0] if located else None,
        executed_cell_index=located[1] if located else None,
        execution_count=exc.exec_count,
    )


def run_notebook(
    name_or_path: str | Path,
    params: dict[str, Any] | None = None,
    *,
    out_root: str | Path = "reports",
    kernel_name: str = "python3",
    cwd: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ReportResult:
    """Execute a notebook with papermill into ``<out_root>/<notebook>/<run id>/``.

    `params` must name parameters the notebook declares (InputError, before execution,
    otherwise). ``report_dir`` is injected when declared. `cwd` (default: the repo root) is the
    kernel's working directory, so relative defaults such as ``data/skills`` resolve there;
    relative input paths given in `params` and a relative `out_root` are the calling process's. `timeout` is per cell, in seconds.
    A failing notebook still yields its folder, with ``status="failed"`` and the error.
    """
    import papermill

    # resolved once, first: papermill changes the process's working directory while a notebook
    # runs, so a relative path resolved later (or in a parallel demo thread) lands elsewhere
    out_root = Path(out_root).resolve()
    params = dict(params or {})
    notebook = resolve_notebook(name_or_path)
    inspected = inspect_parameters(notebook)
    declared = _defaults(inspected)
    check_parameters(notebook, params, declared, _annotations(inspected))
    params = from_caller_cwd(params)
    workdir = Path(cwd).resolve() if cwd is not None else repo_root()
    if not workdir.is_dir():
        raise InputError("working directory not found", path=workdir, field="cwd")
    effective = default_values(declared) | params
    check_input_paths(notebook, effective, workdir)

    name = notebook.stem
    run_id = new_run_id()
    parent = out_root / name
    final = parent / run_id
    staging = parent / f".{run_id}.partial"
    staging.mkdir(parents=True)

    injected = dict(params)
    if REPORT_DIR_PARAM in declared:
        injected[REPORT_DIR_PARAM] = str(staging)
    recorded = dict(params)
    if REPORT_DIR_PARAM in declared:
        recorded[REPORT_DIR_PARAM] = str(final)
    manifest = Manifest(
        notebook=name,
        notebook_path=str(notebook),
        run_id=run_id,
        status="running",
        parameters=recorded,
        defaults=declared,
        backend=_as_text(effective.get("backend")),
        model=_as_text(effective.get("model")),
        kernel_name=kernel_name,
        cwd=str(workdir),
        software=software_versions(),
        git=git_state(workdir)
        if (workdir / ".git").exists()
        else GitState(commit=None, dirty=None),
        inputs=input_hashes(effective, workdir, skip=frozenset({REPORT_DIR_PARAM})),
        started_utc=utc_now(),
    )
    write_json(staging / MANIFEST_NAME, manifest)

    executed = staging / f"{name}.ipynb"
    error: RunError | None = None
    clock = time.monotonic()
    previous_env = os.environ.get("SKILLBENCH_REPORT_DIR")
    os.environ["SKILLBENCH_REPORT_DIR"] = str(staging)
    try:
        papermill.execute_notebook(
            str(notebook),
            str(executed),
            parameters=injected,
            kernel_name=kernel_name,
            cwd=str(workdir),
            progress_bar=False,
            execution_timeout=timeout,
            # the kernel's own log (e.g. "running over TCP without encryption" on loopback)
            # is noise in a report run; its errors still show, and cell errors are recorded
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        )
    except Exception as exc:
        error = _run_error(exc, executed)
    finally:
        if previous_env is None:
            os.environ.pop("SKILLBENCH_REPORT_DIR", None)
        else:
            os.environ["SKILLBENCH_REPORT_DIR"] = previous_env
    wall = time.monotonic() - clock

    header = _final_header(staging, name, error)
    if executed.is_file():
        try:
            prepend_header(executed, header)
            if error is not None and error.executed_cell_index is not None:
                error = error.model_copy(
                    update={"executed_cell_index": error.executed_cell_index + 1}
                )
        except Exception as exc:
            error = error or RunError(
                type=type(exc).__name__, message=redact(f"header insertion failed: {exc}")
            )
    redact_file(executed)  # papermill wrote it: parameters and outputs may echo a secret
    html: Path | None = None
    if executed.is_file():
        try:
            html = render_html(executed, staging / HTML_NAME, title=f"{name} {run_id}")
        except Exception as exc:
            error = error or RunError(
                type=type(exc).__name__, message=redact(f"HTML rendering failed: {exc}")
            )
    manifest = manifest.model_copy(
        update={
            "header": header,
            "status": "failed" if error else "ok",
            "error": error,
            "finished_utc": utc_now(),
            "wall_seconds": round(wall, 3),
            "artifacts": list_artifacts(staging),
        }
    )
    write_json(staging / MANIFEST_NAME, manifest)
    os.replace(staging, final)
    _refresh_index(out_root, name)
    return ReportResult(
        folder=final,
        notebook=final / executed.name,
        html=final / HTML_NAME if html else None,
        manifest=manifest,
    )


def _final_header(staging: Path, name: str, error: RunError | None) -> ReportHeader:
    """The header the notebook saved (`nb.show_header`), else a plain one; a failed run's
    verdict says where it failed whatever the notebook concluded before."""
    path = staging / HEADER_NAME
    header: ReportHeader | None = None
    if path.is_file():
        try:
            header = read_model(path, ReportHeader, what="not a report header")
        except InputError:
            header = None
    if error is not None:
        where = f" in cell {error.cell_index}" if error.cell_index is not None else ""
        line = f"the notebook failed{where}: {error.type}: {error.message}"
        failed = Verdict(ok=False, line=line.splitlines()[0][:300])
        if header is None:
            return make_header(name.replace("_", " "), failed)
        return header.model_copy(update={"ok": False, "verdict": failed.line})
    if header is None:
        return make_header(name.replace("_", " "), Verdict(ok=None, line="no verdict recorded"))
    return header


def _refresh_index(out_root: Path, name: str) -> None:
    """Best effort: a broken index never turns a finished report into a failure."""
    try:
        update_latest(out_root, name)
        write_index(out_root)
    except OSError:
        pass


def _as_text(value: Any) -> str | None:
    return None if value is None else str(value)


def list_reports(out_root: str | Path = "reports") -> list[tuple[Path, Manifest]]:
    """Finished report folders under `out_root` (oldest first) with their manifests."""
    root = Path(out_root)
    found: list[tuple[Path, Manifest]] = []
    for path in sorted(root.glob(f"*/*/{MANIFEST_NAME}")):
        if path.parent.name.startswith(".") or path.parent.name == LATEST_NAME:
            continue
        found.append((path.parent, read_model(path, Manifest, what="not a report manifest")))
    found.sort(key=lambda item: (item[1].started_utc, str(item[0])))
    return found
