"""`skillbench validate`: JSON shape, library mode, exit codes 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.cli import main
from skillbench.validate.rules import TRIGGER_HINT


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["validate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_one_valid_skill_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_skill(tmp_path)
    code, out, _ = run(capsys, str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data == {
        "skill_path": str(path),
        "valid": True,
        "errors": [],
        "warnings": [],
        "summary": {"error_count": 0, "warning_count": 0},
    }


def test_invalid_skill_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_skill(tmp_path, frontmatter="name: Bad_Name\ndescription: x\n")
    code, out, _ = run(capsys, str(path), "--json")
    assert code == 1
    assert {f["code"] for f in json.loads(out)["errors"]} == {"NAME_FORMAT"}


def test_missing_path_is_an_invalid_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, str(tmp_path / "nope"), "--json")
    assert code == 1
    assert json.loads(out)["errors"][0]["code"] == "SKILL_DIR_MISSING"


def test_strict_and_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_skill(
        tmp_path, frontmatter=f"name: csv-tidy\ndescription: {GOOD_DESCRIPTION}\nmodel: opus\n"
    )
    assert run(capsys, str(path), "--json", "--strict")[0] == 0
    assert run(capsys, str(path), "--json", "--profile", "agentskills")[0] == 0
    code, out, _ = run(capsys, str(path), "--json", "--strict", "--profile", "agentskills")
    assert code == 1
    assert json.loads(out)["errors"][0]["code"] == "UNKNOWN_KEYS"


def test_several_paths_give_an_array(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = make_skill(
        tmp_path, "a-skill", frontmatter=f"name: a-skill\ndescription: {GOOD_DESCRIPTION}\n"
    )
    b = make_skill(tmp_path, "b-skill", frontmatter="name: b-skill\ndescription: <x>\n")
    code, out, _ = run(capsys, str(a), str(b), "--json")
    assert code == 1
    data = json.loads(out)
    assert [d["valid"] for d in data] == [True, False]


def test_library_folder_is_detected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_skill(tmp_path, "a-skill", frontmatter=f"name: a-skill\ndescription: {GOOD_DESCRIPTION}\n")
    make_skill(
        tmp_path / "group",
        "b-skill",
        frontmatter=f"name: b-skill\ndescription: {GOOD_DESCRIPTION}\n",
    )
    code, out, _ = run(capsys, str(tmp_path), "--json")
    assert code == 0
    assert [Path(d["skill_path"]).name for d in json.loads(out)] == ["a-skill", "b-skill"]


def test_explicit_library_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(tmp_path / "nope"), "--library", "--json")
    assert (code, out) == (2, "")
    assert "nope" in err
    code, out, err = run(capsys, str(tmp_path), "--library", "--json")
    assert (code, out) == (2, "")
    assert "no skill folders" in err


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, str(tmp_path), "--profile", "bogus")[0] == 2
    assert run(capsys)[0] == 2


def test_human_output_for_one_skill_lists_its_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_skill(tmp_path, frontmatter="name: csv-tidy\ndescription: No trigger words here.\n")
    code, out, _ = run(capsys, str(path))
    assert code == 0
    assert out.splitlines() == [
        f"{path}: valid (0 errors, 1 warning)",
        f"  warning  DESCRIPTION_TRIGGER_HINT: {TRIGGER_HINT}",
    ]
