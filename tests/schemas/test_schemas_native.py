"""skillbench's own files are recognised, so checking a whole workspace names them correctly."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.behavior.compare_run import compare_sync
from skillbench.behavior.options import CompareOptions, RunOptions
from skillbench.behavior.run import run_cases
from skillbench.behavior.workspace import Workspace, init_workspace, read_evals
from skillbench.schemas import check, detect, load

SKILL = Path(__file__).resolve().parents[2] / "data" / "skills" / "csv-cleanup"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded sample runs replayed (local backend), then compared."""
    root = tmp_path_factory.mktemp("ws") / "workspace"
    init_workspace(SKILL, workspace=root)
    evals = read_evals(SKILL / "evals" / "evals.json")
    run_cases(Workspace(root), evals, RunOptions(backend="local"), skill_dir=SKILL)
    compare_sync(
        SKILL,
        "with_skill",
        "baseline",
        CompareOptions(backend="local", use_cache=False),
        workspace=root,
    )
    return root


def test_run_records_and_compare_summaries_are_skillbench_documents(workspace: Path) -> None:
    run_json = next(workspace.glob("runs/*/*/run-*/run.json"))
    summary = next(workspace.glob("comparisons/*_summary.json"))
    assert load(run_json).kind == "run-record"
    loaded = load(summary)
    assert (loaded.kind, loaded.dialect) == ("compare-summary", "skillbench")
    result = check(summary)
    assert result.valid, result.errors


def test_every_json_file_of_a_workspace_is_recognised_and_valid(workspace: Path) -> None:
    files = sorted(p for p in workspace.rglob("*.json") if "outputs" not in p.parts)
    assert len(files) > 10
    problems = {str(p.relative_to(workspace)): check(p).errors for p in files}
    assert {k: v for k, v in problems.items() if v} == {}


def test_seed_detection_is_unchanged_by_native_kinds() -> None:
    assert detect({"cases": [], "version": "1.0", "skill": "x"}) == ("evals", "writing-skills")
