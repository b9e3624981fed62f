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


def test_missing_path_is_bad_input_exit_2_with_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, str(tmp_path / "nope"), "--json")
    assert code == 2  # 2 means bad input: the PATH given is no folder
    assert json.loads(out)["errors"][0]["code"] == "SKILL_DIR_MISSING"
    assert "nope: does not exist" in err
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    code, out, err = run(capsys, str(tmp_path / "file.txt"))
    assert code == 2 and "file.txt: is not a folder" in err


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


def test_dangling_link_single_path_prints_one_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    (folder / "SKILL.md").symlink_to("../commands/gone.md")
    code, out, _ = run(capsys, str(folder), "--json")
    assert code == 1
    data = json.loads(out)
    assert isinstance(data, dict)
    assert [f["code"] for f in data["errors"] + data["warnings"]] == ["SKILL_MD_MISSING"]
    assert "'../commands/gone.md'" in data["errors"][0]["message"]


def _library(root: Path) -> Path:
    make_skill(
        root / "skills", "good", frontmatter=f"name: good\ndescription: {GOOD_DESCRIPTION}\n"
    )
    make_skill(root / ".claude" / "skills", "bad", frontmatter="name: Bad\ndescription: <x>\n")
    make_skill(root / "plugins" / "p" / "skills", "plain", frontmatter="name: plain\n")
    return root


def test_library_summary_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _library(tmp_path / "lib")
    code, out, _ = run(capsys, str(root))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "3 skills: 2 valid, 1 invalid, 2 with warnings"
    assert lines[2:4] == [
        "invalid:",
        "  .claude/skills/bad  NAME_FORMAT, DESCRIPTION_ANGLE_BRACKETS",
    ]
    assert "plugins/p/skills/plain" not in out
    code, verbose, _ = run(capsys, str(root), "--verbose")
    assert "plugins/p/skills/plain: valid (0 errors, 1 warning)" in verbose.splitlines()
    assert str(tmp_path) not in verbose


def test_library_github_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _library(tmp_path / "lib")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "lib", "--format", "github")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        "::error file=lib/.claude/skills/bad/SKILL.md,line=2,title=NAME_FORMAT::"
    )
    assert (
        "::warning file=lib/plugins/p/skills/plain/SKILL.md,line=1,title=MISSING_RECOMMENDED_KEY::"
        "MISSING_RECOMMENDED_KEY: missing recommended key: description"
    ) in lines
    assert lines[-1] == "3 skills: 2 valid, 1 invalid, 2 with warnings"


def test_several_libraries_are_labelled_by_their_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _library(tmp_path / "one")
    _library(tmp_path / "two")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "one", "two")
    assert code == 1
    assert out.splitlines()[3:5] == [
        "  one/.claude/skills/bad  NAME_FORMAT, DESCRIPTION_ANGLE_BRACKETS",
        "  two/.claude/skills/bad  NAME_FORMAT, DESCRIPTION_ANGLE_BRACKETS",
    ]
