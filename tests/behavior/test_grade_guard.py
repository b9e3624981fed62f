"""A grading made by one grader is never replaced by another's without force (library and CLI),
and the stored gradings can be read without grading anything."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from grade_fixtures import FakeTextModel, auto_reply, standard_workspace

from skillbench.behavior.grade import grade_workspace_sync, read_gradings
from skillbench.behavior.options import GradeOptions
from skillbench.cli import main
from skillbench.errors import InputError


def _gradings(space_root: Path) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(space_root.rglob("*.json"))
        if "grading" in p.name or p.parent.name == "grading"
    }


def test_local_grading_refuses_to_replace_a_model_grading(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))
    before = _gradings(space.root)
    with pytest.raises(InputError) as caught:
        grade_workspace_sync(skill, GradeOptions(backend="local"))
    message = str(caught.value)
    assert "grading.json" in message
    assert "fake (fake-grader)" in message and "local" in message and "force" in message
    assert _gradings(space.root) == before  # refused before anything was written


def test_force_replaces_and_the_same_grader_regrades_freely(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))
    grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))  # same grader: fine
    summary = grade_workspace_sync(skill, GradeOptions(backend="local", force=True))
    assert summary.backend == "local"
    grade_workspace_sync(skill, GradeOptions(backend="local"))  # now local's own gradings: fine


def test_cli_grade_refuses_with_exit_2_and_force_replaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, _space = standard_workspace(tmp_path)
    grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))
    assert main(["grade", str(skill)]) == 2
    err = capsys.readouterr().err
    assert "grading.json" in err and "fake (fake-grader)" in err and "local" in err
    assert "--force" in err
    assert main(["grade", str(skill), "--force"]) in (0, 1)  # graded (1: a check failed)
    assert read_gradings(skill).backend == "local"


def test_read_gradings_reports_the_stored_grader_and_writes_nothing(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    graded = grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))
    before = _gradings(space.root)
    read = read_gradings(skill)
    assert read.backend == "fake" and read.model == "fake-grader"
    assert (read.graded, read.ungraded) == (graded.graded, graded.ungraded)
    first = {(r.run.record.config, r.run.record.case_id, r.run.record.run_number): r
             for r in read.runs}[("with_skill", "case-one", 1)]  # fmt: skip
    assert [i.method for i in first.items] == ["check", "check", "model"]
    assert first.items[2].score == 4
    assert _gradings(space.root) == before


def test_read_gradings_of_an_ungraded_workspace_says_so(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    read = read_gradings(skill)
    assert read.graded == 0 and read.ungraded == 16
    assert any("not graded yet" in note for note in read.notes)
