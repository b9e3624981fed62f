"""skillbench.io: bounded reads (regular files only, size, depth, digits, surrogates) and writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillbench import io
from skillbench.errors import InputError


def test_reads_a_regular_json_file(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text('\ufeff[{"a": 1}]', encoding="utf-8")
    assert io.read_json(path) == [{"a": 1}]


def test_device_is_refused_without_reading() -> None:
    with pytest.raises(InputError, match=r"/dev/zero: is a device, expected a regular file"):
        io.read_json("/dev/zero")


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no writer: a blocking open would hang forever
    with pytest.raises(InputError, match="is a FIFO"):
        io.read_json(fifo)


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory, expected a regular file"):
        io.read_json(tmp_path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        io.read_json(tmp_path / "nope.json")


def test_size_bound(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + "1," * 100 + "1]")
    with pytest.raises(InputError, match="over the 50 byte input limit"):
        io.read_input_bytes(path, limit=50)
    assert io.MAX_INPUT_BYTES == 64 * 1024 * 1024


def test_deep_json_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 10_000 + "]" * 10_000)
    with pytest.raises(InputError, match="nested deeper than 100 levels"):
        io.read_json(path)


def test_depth_just_inside_the_bound_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text("[" * io.MAX_NESTING + "]" * io.MAX_NESTING)
    assert io.read_json(path) is not None
    path.write_text("[" * (io.MAX_NESTING + 1) + "]" * (io.MAX_NESTING + 1))
    with pytest.raises(InputError, match="nested deeper"):
        io.read_json(path)


def test_huge_integer_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "int.json"
    path.write_text('[{"query": "q", "should_trigger": ' + "9" * 5000 + "}]")
    with pytest.raises(InputError, match="an integer has more than 4300 digits"):
        io.read_json(path)


def test_lone_surrogate_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"evals": [{"query": "hi \\ud800", "should_trigger": true}]}')
    with pytest.raises(InputError, match=r"evals\[0\]\.query: contains a lone surrogate"):
        io.read_json(path)


def test_writer_never_fails_on_a_lone_surrogate(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    io.write_json(path, {"query": "a\ud800b", "ok": "é"})
    text = path.read_text(encoding="utf-8")
    assert "\\ud800" in text and "é" in text
    assert json.loads(text) == {"query": "a\ud800b", "ok": "é"}


def test_output_problem_names_the_blocking_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "is a file, not a folder" in str(io.output_problem(blocker / "sub" / "r.json"))
    assert io.output_problem(tmp_path) == "is a directory, expected a file path"
    assert io.output_problem(tmp_path / "new" / "r.json") is None
    with pytest.raises(InputError, match=r"\(--out\)"):
        io.check_output(blocker / "r.json", "--out")


def test_redact_file_rewrites_only_when_a_secret_is_found(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "Z9" * 20
    notebook = tmp_path / "executed.ipynb"
    notebook.write_text(json.dumps({"cells": [{"source": f"model = '{key}'"}]}))
    assert io.redact_file(notebook) is True
    assert key not in notebook.read_text() and "[REDACTED]" in notebook.read_text()
    assert io.redact_file(notebook) is False
    assert io.redact_file(tmp_path / "missing.ipynb") is False


def _disk_full(fd: int) -> None:
    raise OSError(28, "No space left on device")  # ENOSPC names no file


def test_a_full_disk_names_the_file_being_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out" / "report.json"
    monkeypatch.setattr(io.os, "fsync", _disk_full)
    with pytest.raises(OSError) as caught:
        io.write_json(target, {"a": 1})
    assert caught.value.filename == str(target)
    assert "No space left on device" in str(caught.value) and str(target) in str(caught.value)
    assert not target.exists() and list(target.parent.iterdir()) == []  # no temporary left


def test_the_cli_says_which_file_a_full_disk_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli import main

    skill = tmp_path / "tidy"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidies CSV files. Use when a CSV is messy.\n---\n\n# tidy\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(io.os, "fsync", _disk_full)
    assert main(["init", str(skill)]) == 2
    err = capsys.readouterr().err
    assert "<file>" not in err
    assert "No space left on device" in err and str(tmp_path) in err, err
