"""`skillbench trigger --auth login`: checked before any run, exit 2 naming --auth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main


def skill_and_evals(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "pdf-tools"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Use for PDFs.\n---\n# PDF\n"
    )
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "merge pdfs", "should_trigger": True}]))
    return folder, evals


def test_login_with_another_backend_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = skill_and_evals(tmp_path)
    code = main(
        ["trigger", str(skill), "--evals", str(evals), "--backend", "local", "--auth", "login"]
    )
    assert code == 2
    assert "--auth" in capsys.readouterr().err


def test_login_without_a_login_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = skill_and_evals(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    code = main(
        [
            "trigger",
            str(skill),
            "--evals",
            str(evals),
            "--backend",
            "claude-code",
            "--auth",
            "login",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "--auth" in err and "no Claude Code login" in err
    assert not (tmp_path / "cache.sqlite").exists()  # nothing ran, nothing written
