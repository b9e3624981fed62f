"""A missing agent CLI names, in this order, what a pip user can run (`npm install -g` of the
pinned package), then `make <target>` (a clone of skillbench only), then the variable that names a
binary: the same wording for every agent (`backends.spec.cli_install_hint`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillbench.backends.claude_cli.session import resolve_claude_bin
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.gemini.spec import GEMINI_SPEC
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.spec import register_backend, unregister_backend
from skillbench.cli import main
from skillbench.errors import BackendError

AGENTS = {
    "gemini": (GEMINI, "npm install -g @google/gemini-cli@0.61.0"),
    "codex": (CODEX, "npm install -g @openai/codex@0.169.0"),
    "opencode": (OPENCODE, "npm install -g opencode-ai@1.18.33"),
}


def _in_order(message: str, *parts: str) -> None:
    places = [message.find(part) for part in parts]
    assert -1 not in places, (parts, message)
    assert places == sorted(places), message


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_a_missing_agent_cli_names_npm_first_then_make_then_the_variable(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    agent, npm = AGENTS[name]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(agent.bin_variable, str(tmp_path / f"no-such-{name}"))
    with pytest.raises(BackendError) as caught:
        agent.locate()
    _in_order(str(caught.value), npm, "make agents", agent.bin_variable)


def test_a_missing_claude_cli_names_npm_first_then_make_then_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SKILLBENCH_CLAUDE_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(
        "skillbench.backends.claude_cli.session.REPO_CLAUDE", tmp_path / "no-such-claude"
    )
    with pytest.raises(BackendError) as caught:
        resolve_claude_bin()
    npm = "npm install -g @anthropic-ai/claude-code@2.1.197"
    _in_order(str(caught.value), npm, "make claude", "SKILLBENCH_CLAUDE_BIN")


@pytest.fixture
def gemini_registered() -> Iterator[None]:
    register_backend(GEMINI_SPEC)  # the entry point reaches the venv only on reinstall
    yield
    unregister_backend("gemini")


def test_trigger_agent_gemini_without_its_cli_says_npm_before_make(
    gemini_registered: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "400")  # one line: the parts are found whole
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("GEMINI_API_KEY", "dummy-offline")
    monkeypatch.setenv("SKILLBENCH_GEMINI_BIN", str(tmp_path / "no-such-gemini"))
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: csv-cleanup\ndescription: Clean CSV files.\n---\n# CSV\n", encoding="utf-8"
    )
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "fix my csv", "should_trigger": True}]))
    assert main(["trigger", str(skill), "--evals", str(evals), "--agent", "gemini"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    _in_order(err, "npm install -g @google/gemini-cli@0.61.0", "make agents",
              "SKILLBENCH_GEMINI_BIN")  # fmt: skip
