"""The backend tables of the docs follow the specs: every built-in backend (an entry point in
skillbench's own pyproject.toml) has its row, with the default workers its spec says."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from skillbench.backends.spec import BACKEND_ENTRY_POINTS, BackendSpec, entry_point_specs

ROOT = Path(__file__).resolve().parents[1]


def builtins() -> list[BackendSpec]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = set(pyproject["project"]["entry-points"][BACKEND_ENTRY_POINTS])
    return [s for s in entry_point_specs() if s.name in names]


def rows(path: Path, name: str) -> list[list[str]]:
    """The cells of every table row of `path` whose first cell is `name` in backticks."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| `{name}` |"):
            found.append([c.strip() for c in line.strip().strip("|").split("|")])
    return found


@pytest.mark.parametrize("spec", builtins(), ids=lambda s: s.name)
def test_each_builtin_has_its_rows(spec: BackendSpec) -> None:
    backends = rows(ROOT / "docs" / "backends.md", spec.name)
    assert len(backends) == 2, (
        f"docs/backends.md: a capability row and a workers row for {spec.name}"
    )
    assert backends[1][2] == str(spec.default_workers), backends[1]
    assert rows(ROOT / "README.md", spec.name), f"README.md: no row for {spec.name}"
    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for line in re.findall(r"^\| `--workers N` \|[^|]*\|", cli, re.MULTILINE):
        assert f"{spec.name} {spec.default_workers}" in line, line
    assert f"`{spec.name}`" in cli.split("Common options:")[1].split("\n\n")[0]


def test_the_module_map_names_every_backend_module_by_its_path() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("### Backends and cache (`skillbench/backends/`)")[1].split("\n### ")[0]
    package = ROOT / "skillbench" / "backends"
    missing = [
        rel
        for path in sorted(package.rglob("*.py"))
        if path.name != "__init__.py"
        and f"`{(rel := path.relative_to(package).as_posix())}`" not in section
    ]
    assert not missing, f"docs/architecture.md, Backends: no row for {missing}"
