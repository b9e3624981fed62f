"""A behavior run on a session backend acts on the real world (issue 38): until runs are
hermetic, `run --backend claude-code` says so in one line before it starts, and its dry run lists
that line; a run of API calls (`anthropic`) or replays (`local`) says nothing of the kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"
SKILL_MD = "---\nname: pdf-tools\ndescription: Use when merging PDF files.\n---\n# PDF\n"
MARK = "acting on the real world"


@pytest.fixture
def skill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE_AGENT))
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("FAKE_AGENT_SKILL", "*")
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    folder = tmp_path / "pdf-tools"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    case = {"id": "one", "prompt": "merge", "expectations": []}
    case["expectations"] = [{"criterion": "c", "description": "d", "required": True}]
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    return folder


def test_a_claude_code_run_says_it_acts_on_the_real_world_before_it_starts(
    skill: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(skill), "--backend", "claude-code", "--runs", "1", "--configs", "baseline"]
    assert main(argv) == 0
    lines = capsys.readouterr().err.splitlines()
    warned = [i for i, line in enumerate(lines) if MARK in line]
    assert len(warned) == 1, lines
    line = lines[warned[0]]
    assert line.startswith("warning: claude-code") and "PATH" in line and "network" in line
    written = [i for i, text in enumerate(lines) if "runs written under" in text]
    assert written and warned[0] < written[0]  # said before the runs, not after


def test_the_dry_run_lists_it(skill: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", str(skill), "--backend", "claude-code", "--runs", "1", "--dry-run"]
    argv += ["--model", "claude-sonnet-4-5"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert sum(MARK in line for line in out.splitlines()) == 1, out


def test_no_warning_for_api_calls(skill: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", str(skill), "--backend", "anthropic", "--runs", "1", "--dry-run"]
    assert main([*argv, "--model", "claude-sonnet-4-5"]) == 0
    out, err = capsys.readouterr()
    assert "estimate" in out.lower() and MARK not in out + err, out


def test_run_help_says_what_an_api_run_is(capsys: pytest.CaptureFixture[str]) -> None:
    """An anthropic run is one text turn: `run --help` says so, and that file expectations
    cannot pass there (issue 31)."""
    assert main(["run", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "a run is ONE text turn" in text
    assert "expectations about files the agent creates or commands it runs cannot pass" in text
    assert "anthropic (one text turn per run, no tools)" in text
