"""Build hook: ship the project's notebooks/ and data/ inside the wheel.

The checkout keeps them at the top level (the project layout); a wheel copies them into
``skillbench/_project/`` at build time, where `skillbench.reports.paths` finds them when
skillbench is installed rather than run from a checkout. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PROJECT_FOLDERS = ("notebooks", "data")
PACKAGED_PROJECT = Path("skillbench") / "_project"
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", ".*")


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


class BuildPyWithProject(build_py):
    """build_py that also copies the project folders (not in editable installs: there the
    checkout itself is found)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            copy_project(Path(__file__).resolve().parent, Path(self.build_lib))


if __name__ == "__main__":  # the build backend runs this file as __main__; tests import it
    setup(cmdclass={"build_py": BuildPyWithProject})
