"""`validate`, `schema` and `--help` start light: no pandas, numpy, matplotlib, anthropic,
onnxruntime or scipy is imported (each command runs in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "numpy", "matplotlib", "anthropic", "onnxruntime", "scipy", "torch")
PROBE = """
import contextlib, io, json, sys
from skillbench.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
print(json.dumps({{"code": code, "heavy": sorted({{m.split(".")[0] for m in heavy}})}}))
"""


def run_probe(*args: str, cwd: Path = ROOT) -> dict[str, object]:
    code = PROBE.format(heavy=set(HEAVY))
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("validate", "--help"),
        ("validate", "data/skills/csv-cleanup"),
        ("validate", "data/skills/csv-cleanup", "--json"),
        ("validate", "data/skills"),
        ("schema", "--help"),
        ("schema", "check", "data/evals/csv-cleanup.trigger.json"),
        ("trigger", "--help"),
    ],
)
def test_light_commands_import_nothing_heavy(args: tuple[str, ...]) -> None:
    result = run_probe(*args)
    assert result["heavy"] == [], args
    assert result["code"] in (0, 1)


def test_schema_export_imports_nothing_heavy(tmp_path: Path) -> None:
    result = run_probe("schema", "export", str(tmp_path / "schemas"))
    assert result == {"code": 0, "heavy": []}
    assert any((tmp_path / "schemas").iterdir())


def test_the_probe_sees_heavy_imports() -> None:
    """The check can fail: a command that needs pandas shows it."""
    result = run_probe("trigger", "data/skills/csv-cleanup", "--evals", "/nonexistent.json")
    assert result["code"] == 2
    code = PROBE.format(heavy=set(HEAVY)).replace("code = main", "import pandas; code = main")
    done = subprocess.run(
        [sys.executable, "-c", code, "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "pandas" in json.loads(done.stdout.strip().splitlines()[-1])["heavy"]
