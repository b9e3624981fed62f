"""`skillbench schema check|convert|export` through skillbench.cli.main."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from seed_examples import all_examples

from skillbench.cli import main

EXAMPLES = {ex.name: ex.data for ex in all_examples()}


def _file(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_check_json_all_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _file(tmp_path, "evals.json", EXAMPLES["002-0-evals"])
    b = _file(tmp_path, "grading.json", EXAMPLES["004-2-grading"])
    assert main(["schema", "check", str(a), str(b), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["kind"], r["dialect"], r["valid"], r["errors"]) for r in rows] == [
        ("evals", "writing-skills", True, []),
        ("grading", "skill-creator", True, []),
    ]


def test_check_invalid_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(json.dumps(EXAMPLES["002-2-grading"]))
    data["results"][0]["score"] = 2
    bad = _file(tmp_path, "grading.json", data)
    assert main(["schema", "check", str(bad), "--json"]) == 1
    (row,) = json.loads(capsys.readouterr().out)
    assert row["valid"] is False
    assert row["errors"][0].startswith("results[0].passed: passed must be false for score 2")


def test_check_unreadable_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _file(tmp_path, "metrics.json", EXAMPLES["004-3-metrics"])
    assert main(["schema", "check", str(good), str(tmp_path / "nope.json"), "--json"]) == 2
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["valid"] is True and "file not found" in rows[1]["errors"][0]


def test_check_table_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _file(tmp_path, "history.json", EXAMPLES["004-1-history"])
    assert main(["schema", "check", str(good)]) == 0
    assert "history" in capsys.readouterr().out


def test_convert_to_stdout_with_losses_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _file(tmp_path, "grading.json", EXAMPLES["004-2-grading"])
    assert main(["schema", "convert", str(source), "--to", "writing-skills"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["overall"] == "fail"
    assert "loss: score: skill-creator grades pass/fail only" in captured.err


def test_convert_to_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _file(tmp_path, "evals.json", EXAMPLES["002-0-evals"])
    out = tmp_path / "out" / "evals.json"
    assert main(["schema", "convert", str(source), "--to", "skill-creator", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(out.read_text(encoding="utf-8"))["evals"][0]["id"] == 1


def test_convert_bad_dialect_and_tie_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _file(tmp_path, "evals.json", EXAMPLES["002-0-evals"])
    assert main(["schema", "convert", str(source), "--to", "klingon"]) == 2
    data = json.loads(json.dumps(EXAMPLES["upstream-comparison"]))
    data["winner"] = "TIE"
    tie = _file(tmp_path, "comparison.json", data)
    out = tmp_path / "never.json"
    assert main(["schema", "convert", str(tie), "--to", "writing-skills", "-o", str(out)]) == 2
    assert not out.exists()
    assert f"{tie}: winner:" in capsys.readouterr().err


def test_export_writes_every_schema(tmp_path: Path) -> None:
    assert main(["schema", "export", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 19
    assert "writing-skills.grading.schema.json" in names
    assert "skill-creator-v3.trigger-evals.schema.json" in names


def test_check_unrecognised_or_non_json_is_invalid_not_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unknown = _file(tmp_path, "odd.json", {"hello": "world"})
    not_json = tmp_path / "broken.json"
    not_json.write_text("{not json", encoding="utf-8")
    assert main(["schema", "check", str(unknown), str(not_json), "--json"]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert [r["valid"] for r in rows] == [False, False]
    assert "unrecognised document" in rows[0]["errors"][0]
    assert "invalid JSON" in rows[1]["errors"][0]


def test_check_prints_full_paths_relative_to_cwd(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / "luan+dot-claude" / "skills" / "a-rather-long-skill-folder-name" / "evals"
    deep.mkdir(parents=True)
    good = _file(deep, "evals.json", EXAMPLES["002-0-evals"])
    outside = _file(tmp_path, "history.json", EXAMPLES["004-1-history"])
    monkeypatch.chdir(tmp_path / "luan+dot-claude")
    monkeypatch.setenv("COLUMNS", "40")
    assert main(["schema", "check", str(good), str(outside)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "skills/a-rather-long-skill-folder-name/evals/evals.json  evals (writing-skills)  valid",
        f"{outside}  history (skill-creator)  valid",
        "2 files: 2 valid, 0 invalid",
    ]
    assert (
        main(
            [
                "schema",
                "check",
                "./skills/../skills/a-rather-long-skill-folder-name/evals/evals.json",
                "--json",
            ]
        )
        == 0
    )
    (row,) = json.loads(capsys.readouterr().out)
    assert row["path"] == "skills/a-rather-long-skill-folder-name/evals/evals.json"
