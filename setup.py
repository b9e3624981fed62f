"""Build hook: ship the project's notebooks/ and data/ inside the wheel.

The checkout keeps them at the top level (the project layout); a wheel copies them into
``skillbench/_project/`` at build time, where `skillbench.reports.paths` finds them when
skillbench is installed rather than run from a checkout. It also stamps the wheel with the
commit it was built from (``skillbench/_build_info.py``, read by ``skillbench --version``).
Everything else is in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

PROJECT_FOLDERS = ("notebooks", "data")
PACKAGED_PROJECT = Path("skillbench") / "_project"
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", ".*")
BUILD_INFO = Path("skillbench") / "_build_info.py"
COMMIT_ENV = "SKILLBENCH_BUILD_COMMIT"
"""Names the commit of a build made without its git checkout (from an sdist)."""


def copy_project(source: Path, build_lib: Path) -> list[Path]:
    """Copy notebooks/ and data/ from `source` into `build_lib`/skillbench/_project/."""
    target = build_lib / PACKAGED_PROJECT
    copied: list[Path] = []
    for name in PROJECT_FOLDERS:
        if not (source / name).is_dir():
            raise FileNotFoundError(f"{source / name}: the wheel must ship this folder")
        shutil.rmtree(target / name, ignore_errors=True)
        shutil.copytree(source / name, target / name, ignore=IGNORED)
        copied.extend(p for p in (target / name).rglob("*") if p.is_file())
    return copied


def _git(source: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(source), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def source_commit(source: Path) -> tuple[str | None, bool]:
    """The commit `source` is checked out at and whether tracked files differ from it
    (`$SKILLBENCH_BUILD_COMMIT` when set); in an unpacked sdist, the commit its own stamp
    names; None when there is neither a git checkout of its own nor a stamp."""
    stated = os.environ.get(COMMIT_ENV, "").strip()
    if stated:
        return stated, False
    top = _git(source, "rev-parse", "--show-toplevel")
    if top and Path(top).resolve() == source.resolve():  # not an sdist inside another repo
        status = _git(source, "status", "--porcelain", "--untracked-files=no")
        return _git(source, "rev-parse", "HEAD"), bool(status)
    return stamped_commit(source / BUILD_INFO)


def stamped_commit(stamp: Path) -> tuple[str | None, bool]:
    """The commit and dirty flag a `_build_info.py` written by `write_build_info` names."""
    import ast

    try:
        tree = ast.parse(stamp.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None, False
    values = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    commit = values.get("COMMIT")
    return (commit if isinstance(commit, str) else None), bool(values.get("DIRTY"))


def write_build_info(source: Path, build_lib: Path) -> Path:
    """Write `build_lib`/skillbench/_build_info.py: the commit the wheel (or sdist) is built
    from."""
    commit, dirty = source_commit(source)
    target = build_lib / BUILD_INFO
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        '"""Written by setup.py when this wheel was built: the commit it was built from."""\n\n'
        f"COMMIT = {commit!r}\nDIRTY = {dirty!r}\n",
        encoding="utf-8",
    )
    return target


class BuildPyWithProject(build_py):
    """build_py that also copies the project folders and stamps the commit (not in editable
    installs: there the checkout itself is found, and asked)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            source = Path(__file__).resolve().parent
            copy_project(source, Path(self.build_lib))
            write_build_info(source, Path(self.build_lib))


class SdistWithCommit(sdist):
    """sdist that stamps the commit into the release tree, so a wheel built from the sdist
    (`python -m build`, without the git checkout) names it too."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        stamp = Path(base_dir) / BUILD_INFO
        if stamp.is_symlink() or stamp.exists():  # a hard link to the checkout's file: replace
            stamp.unlink()
        write_build_info(Path(__file__).resolve().parent, Path(base_dir))


if __name__ == "__main__":  # the build backend runs this file as __main__; tests import it
    setup(cmdclass={"build_py": BuildPyWithProject, "sdist": SdistWithCommit})
