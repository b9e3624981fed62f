"""Where the project is: its root folder (holding data/ and notebooks/), found whatever the cwd.

In a checkout that is the checkout; an installed wheel carries a copy of both folders as
package data (``skillbench/_project/``, copied there at build time by setup.py), so
`skillbench report` and `skillbench demo` work from any folder after ``pip install``.
Notebooks run from notebooks/ (JupyterLab), from the project root (the report runner) or from
anywhere else; their default inputs (``data/skills/...``) are resolved against the project root
when they do not exist relative to the working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ENV = "SKILLBENCH_PROJECT"
CACHE_ENV = "SKILLBENCH_CACHE"
_MARKERS = ("data", "notebooks")
PACKAGED_PROJECT = "_project"
"""Folder of the installed package holding the wheel's copy of data/ and notebooks/."""


def _is_project(folder: Path) -> bool:
    return all((folder / marker).is_dir() for marker in _MARKERS)


def packaged_project() -> Path:
    """Where an installed wheel keeps its copy of data/ and notebooks/ (absent in a checkout)."""
    return Path(__file__).resolve().parents[1] / PACKAGED_PROJECT


def project_root() -> Path | None:
    """``$SKILLBENCH_PROJECT``; else the checkout this package lives in; else the installed
    package's copy (`packaged_project`); else the nearest folder at or above the working
    directory holding data/ and notebooks/; else None."""
    env = os.environ.get(PROJECT_ENV)
    if env and _is_project(Path(env)):
        return Path(env).resolve()
    here = Path(__file__).resolve().parents[2]  # skillbench/reports/paths.py -> the checkout
    if _is_project(here):
        return here
    packaged = packaged_project()
    if _is_project(packaged):
        return packaged
    cwd = Path.cwd().resolve()
    for folder in (cwd, *cwd.parents):
        if _is_project(folder):
            return folder
    return None


def input_path(value: str | Path | None) -> str | None:
    """An input path as given when it exists (or is absolute); a relative path that does not
    exist from the working directory but does under the project root, resolved there; None and
    empty values unchanged. Non-existing paths are returned as given (the caller reports them)."""
    if value is None or str(value).strip() == "":
        return None if value is None else str(value)
    path = Path(value).expanduser()
    if path.is_absolute() or path.exists():
        return str(path)
    root = project_root()
    if root is not None and (root / path).exists():
        return str(root / path)
    return str(value)


def default_cache_path() -> Path:
    """The call cache notebooks use: the CLI's (``$SKILLBENCH_CACHE``, else the user's cache
    folder, ``$XDG_CACHE_HOME/skillbench/cache.sqlite``, default ``~/.cache/…``), so a report
    of a cached CLI run is free; notebooks write nothing into the repository."""
    from skillbench.backends.cache import default_cache_path as shared

    return shared()
