"""A report never changes what it reports on: every notebook, run through `run_notebook` with
small parameters pointing into one user folder (skills, eval sets, a catalog, a model-graded
behavior workspace with its benchmark.json, improvement loops, two trigger reports), leaves every
byte of that folder as it was."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillbench.behavior.options import GradeOptions, RunOptions
from skillbench.improve.options import ImproveOptions
from skillbench.reports.runner import available_notebooks, run_notebook
from skillbench.trigger.options import TriggerOptions

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
OTHER_GRADER = {"backend": "anthropic", "model": "claude-sonnet-4-5"}


def folder_state(root: Path) -> dict[str, str]:
    """Every path under `root` (folders marked), with the sha256 of each file's bytes."""
    state: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if path.is_symlink():
            state[key] = "link:" + str(path.readlink())
        elif path.is_dir():
            state[key] = "dir"
        else:
            state[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def _model_graded_workspace(skill: Path, space: Path) -> None:
    """Replayed sample runs, graded, then marked as graded by a model (as a user's would be),
    and benchmarked: the files a wrong report would overwrite."""
    from skillbench.behavior.benchmark import write_benchmark
    from skillbench.behavior.grade import grade_workspace_sync
    from skillbench.behavior.run import run_cases
    from skillbench.behavior.workspace import Workspace, init_workspace, read_evals

    init_workspace(skill, workspace=space)
    run_cases(Workspace(space), read_evals(skill / "evals" / "evals.json"), RunOptions(backend="local"), skill_dir=skill)  # fmt: skip
    grade_workspace_sync(skill, GradeOptions(backend="local"), workspace=space)
    for grading in space.rglob("grading.json"):
        data = json.loads(grading.read_text(encoding="utf-8"))
        data["grader"] = OTHER_GRADER
        grading.write_text(json.dumps(data, indent=2), encoding="utf-8")
    write_benchmark(skill, workspace=space)


@pytest.fixture(scope="module")
def user(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from skillbench.improve.run import improve_skill_sync
    from skillbench.trigger.run import evaluate_skill_sync

    base = tmp_path_factory.mktemp("user")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SKILLBENCH_CACHE", str(base / "cache.sqlite"))  # outside the user folder
        mp.delenv("SKILLBENCH_REPORT_DIR", raising=False)
        home = base / "mine"
        (home / "evals").mkdir(parents=True)
        for name in ("csv-cleanup", "sql-query-reviewer"):
            shutil.copytree(ROOT / "data" / "skills" / name, home / "skills" / name)
            evals_name = f"{name}.trigger.json"
            shutil.copy(ROOT / "data" / "evals" / evals_name, home / "evals" / evals_name)
        shutil.copytree(ROOT / "data" / "catalog", home / "catalog")
        shutil.copytree(ROOT / "data" / "calibration", home / "calibration")
        shutil.copytree(ROOT / "data" / "field", home / "field")
        skill, evals = home / "skills" / "csv-cleanup", home / "evals" / "csv-cleanup.trigger.json"
        _model_graded_workspace(skill, home / "workspace")
        for name in ("csv-cleanup", "sql-query-reviewer"):
            improve_skill_sync(home / "skills" / name, home / "evals" / f"{name}.trigger.json", out=home / "loops" / name, options=ImproveOptions(trigger=TriggerOptions(backend="local", runs=1, use_cache=False), rounds=1))  # fmt: skip
        for label, description in (("a", None), ("b", "Cleans CSV files.")):
            report = evaluate_skill_sync(skill, evals, description=description, options=TriggerOptions(backend="lexical", runs=1, use_cache=False))  # fmt: skip
            (home / f"{label}.json").write_text(report.model_dump_json(), encoding="utf-8")
        yield home


def _params(home: Path) -> dict[str, dict[str, Any]]:
    skill = str(home / "skills" / "csv-cleanup")
    evals = str(home / "evals" / "csv-cleanup.trigger.json")
    trigger = {"skill_dir": skill, "evals": evals, "runs": 1, "catalog": str(home / "catalog")}
    behavior = {"skill_dir": skill, "workspace": str(home / "workspace")}
    return {
        "validate_library": {"skills_dir": str(home / "skills")},
        "trigger_eval": {**trigger, "backend": "lexical"},
        "backend_agreement": {**trigger, "backend_a": "lexical", "backend_b": "lexical"},
        # no agent can run (no CLI at that path): the report says so; nothing leaves 127.0.0.1
        "agents_side_by_side": {
            **trigger,
            "agents": ["claude-code"],
            "backend_options": {"claude-code": {"claude_bin": "/nonexistent/claude"}},
        },
        "improve_description": {**trigger, "rounds": 1},
        "overfitting_analysis": {"loops": str(home / "loops")},
        "grading_report": behavior,
        "benchmark": behavior,
        "blind_comparison": behavior,
        "report_diff": {"a": str(home / "a.json"), "b": str(home / "b.json")},
        "judge_calibration": {
            "skill_dir": str(home / "calibration" / "sample-skill"),
            "labels": str(home / "calibration" / "labels.jsonl"),
        },
        "field_report": {"field_file": str(home / "field" / "demo.field.jsonl")},
        "library_routing": {
            "library_dir": str(home / "skills"),
            "evals": str(home / "evals"),
            "backend": "lexical",
            "runs": 1,
        },
    }


def test_every_notebook_is_covered(tmp_path: Path) -> None:
    assert set(_params(tmp_path)) == set(available_notebooks())


@pytest.mark.parametrize("name", sorted(_params(Path("."))))
def test_a_report_leaves_the_user_folder_unchanged(
    name: str, user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    before = folder_state(user)
    result = run_notebook(name, _params(user)[name], out_root=tmp_path / "reports")
    assert result.ok, result.manifest.error
    assert folder_state(user) == before, f"{name} changed the folder it reports on"


def test_the_grading_report_shows_the_stored_model_gradings(user: Path, tmp_path: Path) -> None:
    result = run_notebook("grading_report", _params(user)["grading_report"],
                          out_root=tmp_path / "reports")  # fmt: skip
    assert result.ok, result.manifest.error
    header = json.loads((result.folder / "header.json").read_text(encoding="utf-8"))
    assert header["backend"] == "anthropic" and header["model"] == OTHER_GRADER["model"]
