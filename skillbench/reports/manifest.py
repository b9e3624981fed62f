"""`manifest.json` of a report folder: what ran, on what inputs, with which software, and how it ended."""

from __future__ import annotations

import hashlib
import os
import platform
import re
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from skillbench.gitinfo import run_git
from skillbench.reports.header import ReportHeader
from skillbench.schemas.base import Document
from skillbench.schemas.registry import native_entry
from skillbench.version import __version__

MANIFEST_NAME = "manifest.json"
KEY_PACKAGES = ("pydantic", "pandas", "matplotlib", "papermill", "nbconvert", "anthropic")
SECRET_NAME = re.compile(r"(api[_-]?key|token|secret|password|credential)", re.IGNORECASE)
_SKIPPED_PARTS = frozenset({"__pycache__", ".git", ".ipynb_checkpoints", ".DS_Store"})


class InputHash(Document):
    """Content hash of one path-like parameter (a file, or a folder hashed over its files)."""

    parameter: str
    path: str
    kind: Literal["file", "folder"]
    sha256: str
    files: int = Field(ge=0, description="number of files hashed (1 for a file)")


class Artifact(Document):
    """One file of the report folder (everything except manifest.json itself)."""

    name: str
    kind: Literal["notebook", "html", "json", "png", "other"]
    bytes: int = Field(ge=0)
    sha256: str


class RunError(Document):
    """Why a run failed: exception type, message and, for a failing cell, its index."""

    type: str
    message: str
    cell_index: int | None = Field(
        default=None, description="index of the failing cell in the source notebook"
    )
    executed_cell_index: int | None = Field(
        default=None, description="index of the failing cell in the saved executed notebook"
    )
    execution_count: int | None = None


class Software(Document):
    """Versions of the interpreter, skillbench and the key packages."""

    skillbench: str
    python: str
    platform: str
    packages: dict[str, str | None]


class GitState(Document):
    """The commit of the working tree the notebook ran in, and whether it had local changes."""

    commit: str | None
    dirty: bool | None


class Manifest(Document):
    """Self-description of one report folder (it opens with the report's header)."""

    header: ReportHeader | None = Field(
        default=None, description="what the report is about and its verdict (first, when known)"
    )
    notebook: str
    notebook_path: str
    run_id: str
    status: Literal["running", "ok", "failed"]
    parameters: dict[str, Any]
    defaults: dict[str, str] = Field(
        default_factory=dict, description="the notebook's declared parameter defaults (source text)"
    )
    backend: str | None = None
    model: str | None = None
    kernel_name: str
    cwd: str
    software: Software
    git: GitState
    inputs: list[InputHash] = Field(default_factory=list)
    started_utc: datetime
    finished_utc: datetime | None = None
    wall_seconds: float | None = Field(default=None, ge=0)
    error: RunError | None = None
    artifacts: list[Artifact] = Field(default_factory=list)


def utc_now() -> datetime:
    """The current time, timezone-aware UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0)


def software_versions() -> Software:
    """skillbench, Python and the key package versions (None for a package that is missing)."""
    packages: dict[str, str | None] = {}
    for name in KEY_PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None
    return Software(
        skillbench=__version__,
        python=platform.python_version(),
        platform=platform.platform(terse=True),
        packages=packages,
    )


def git_state(cwd: str | Path) -> GitState:
    """HEAD commit and dirty flag of the git work tree at `cwd`; None when not a repository."""
    commit = run_git(cwd, "rev-parse", "HEAD")
    if commit is None:
        return GitState(commit=None, dirty=None)
    status = run_git(cwd, "status", "--porcelain")
    return GitState(commit=commit.strip(), dirty=None if status is None else bool(status.strip()))


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hash_folder(folder: Path) -> tuple[str, int]:
    """sha256 over (relative path, file sha256) of every file below `folder`, in sorted order."""
    digest = hashlib.sha256()
    count = 0
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not _SKIPPED_PARTS.intersection(p.relative_to(folder).parts)
    )
    for path in files:
        rel = path.relative_to(folder).as_posix()
        digest.update(f"{rel}\0{sha256_file(path)}\n".encode())
        count += 1
    return digest.hexdigest(), count


def input_hashes(
    parameters: dict[str, Any], cwd: str | Path, *, skip: frozenset[str] = frozenset()
) -> list[InputHash]:
    """Hash every string parameter that names an existing file or folder (relative to `cwd`)."""
    found: list[InputHash] = []
    for name, value in sorted(parameters.items()):
        if name in skip or not isinstance(value, str) or not value.strip() or "\n" in value:
            continue
        path = Path(value).expanduser()
        if not path.is_absolute():
            path = Path(cwd) / path
        try:
            if path.is_file():
                found.append(
                    InputHash(
                        parameter=name, path=value, kind="file", sha256=sha256_file(path), files=1
                    )
                )
            elif path.is_dir():
                digest, count = hash_folder(path)
                found.append(
                    InputHash(parameter=name, path=value, kind="folder", sha256=digest, files=count)
                )
        except OSError:
            continue
    return found


def artifact_kind(name: str) -> Literal["notebook", "html", "json", "png", "other"]:
    """Classify a report file by its suffix."""
    suffix = Path(name).suffix.lower()
    kinds: dict[str, Literal["notebook", "html", "json", "png"]] = {
        ".ipynb": "notebook",
        ".html": "html",
        ".json": "json",
        ".png": "png",
    }
    return kinds.get(suffix, "other")


def list_artifacts(folder: Path) -> list[Artifact]:
    """Every file of a report folder except the manifest and temporary files, with sha256."""
    artifacts: list[Artifact] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel == MANIFEST_NAME or path.name.startswith(".") or path.name.endswith(".tmp"):
            continue
        artifacts.append(
            Artifact(
                name=rel,
                kind=artifact_kind(rel),
                bytes=path.stat().st_size,
                sha256=sha256_file(path),
            )
        )
    return artifacts


def redact(text: str) -> str:
    """Replace the value of every secret-looking environment variable found in `text` with ***."""
    for name, value in os.environ.items():
        if SECRET_NAME.search(name) and len(value) >= 8 and value in text:
            text = text.replace(value, "***")
    return text


MANIFEST_DOCUMENT = native_entry(
    "report-manifest",
    Manifest,
    ("notebook", "run_id", "kernel_name", "software", "git"),
    ("manifest.json",),
)
"""Registered with the schema registry through the `skillbench.documents` entry point."""
