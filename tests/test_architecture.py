"""The house rules of the package layout: public API, notebook imports, document registration."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import skillbench
from skillbench.schemas.registry import SKILLBENCH, all_entries

ROOT = Path(__file__).resolve().parents[1]


def test_every_public_name_resolves_to_its_module() -> None:
    assert set(skillbench.__all__) == {"__version__", *skillbench._EXPORTS}
    for name in skillbench._EXPORTS:
        assert getattr(skillbench, name) is not None, name


def test_type_checking_block_lists_the_same_names() -> None:
    tree = ast.parse((ROOT / "skillbench" / "__init__.py").read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If))
    names = {alias.asname or alias.name for node in block.body for alias in node.names}  # type: ignore[attr-defined]
    assert names == set(skillbench._EXPORTS)


def test_importing_the_package_loads_no_heavy_module() -> None:
    code = "import sys, skillbench; print(sorted(m for m in ('pandas','numpy','matplotlib','anthropic') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_notebooks_import_only_the_public_api() -> None:
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            for node in ast.walk(ast.parse("".join(cell["source"]))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "skillbench"
                ):
                    assert node.module == "skillbench", f"{path.name}: from {node.module} import …"
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        assert not alias.name.startswith("skillbench."), (
                            f"{path.name}: {alias.name}"
                        )


def test_owning_packages_register_their_documents() -> None:
    native = {entry.kind for entry in all_entries() if entry.dialect == SKILLBENCH}
    assert native >= {"run-record", "compare-summary", "report-manifest"}


def test_import_contracts_hold() -> None:
    """The same check `make lint` runs: layers, schemas at the bottom, no cycles."""
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(linter), "--no-logo", "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:]
