"""`--agent NAME` on `skillbench trigger`: the backend replaying that agent's own request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends import registry
from skillbench.backends.opencode.spec import OPENCODE_SPEC
from skillbench.backends.spec import register_backend, unregister_backend
from skillbench.cli import main
from skillbench.errors import InputError


@pytest.fixture
def setup(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    register_backend(OPENCODE_SPEC)  # the entry point reaches the venv only on reinstall
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: csv-cleanup\ndescription: Clean CSV files.\n---\n# CSV\n", encoding="utf-8"
    )
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "fix my csv", "should_trigger": True}]))
    yield skill, evals
    unregister_backend("opencode")


def test_agent_names() -> None:
    register_backend(OPENCODE_SPEC)
    try:
        assert registry.agent_backend("claude-code") == "anthropic"
        assert registry.agent_backend("OpenCode") == "opencode"
        assert registry.agent_names()[:1] == ["claude-code"]
        assert "opencode" in registry.agent_names()
        assert "local" not in registry.agent_names()
    finally:
        unregister_backend("opencode")


def test_unknown_agent_is_exit_2(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup
    code = main(["trigger", str(skill), "--evals", str(evals), "--agent", "local"])
    assert code == 2
    assert "--agent" in capsys.readouterr().err


def test_agent_contradicting_backend_is_exit_2(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup
    argv = ["trigger", str(skill), "--evals", str(evals), "--agent", "opencode"]
    assert main([*argv, "--backend", "local"]) == 2
    assert "--backend" in capsys.readouterr().err


def test_missing_agent_cli_is_exit_2_naming_the_command(
    setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-offline")
    monkeypatch.setenv("SKILLBENCH_OPENCODE_BIN", str(skill / "no-such-opencode"))
    code = main(["trigger", str(skill), "--evals", str(evals), "--agent", "opencode"])
    assert code == 2
    assert "make agents" in capsys.readouterr().err


def test_improve_takes_agent_too(
    setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-offline")
    monkeypatch.setenv("SKILLBENCH_OPENCODE_BIN", str(skill / "no-such-opencode"))
    argv = ["improve", str(skill), "--evals", str(evals), "--rounds", "1"]
    assert main([*argv, "--agent", "nosuch"]) == 2
    assert "--agent" in capsys.readouterr().err
    assert main([*argv, "--agent", "opencode"]) == 2  # its judge needs the CLI
    assert "make agents" in capsys.readouterr().err


def test_agreement_takes_an_agent_per_side(
    setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup
    seen: dict[str, Any] = {}

    def fake_run(skill_dir: Any, evals_path: Any, options: Any, progress: Any = None) -> Any:
        seen["pair"] = (options.backend_a, options.backend_b)
        raise InputError("stopped before any run", path="test")

    monkeypatch.setattr("skillbench.trigger.agreement.run_agreement_sync", fake_run)
    argv = ["agreement", str(skill), "--evals", str(evals)]
    assert main([*argv, "--agent-a", "claude-code", "--agent-b", "opencode"]) == 2
    assert seen["pair"] == ("anthropic", "opencode")
    assert main(argv) == 2  # the defaults stay: anthropic against the real Claude Code CLI
    assert seen["pair"] == ("anthropic", "claude-code")
    capsys.readouterr()
    assert main([*argv, "--agent-b", "local"]) == 2
    assert "--agent-b" in capsys.readouterr().err
    assert main([*argv, "--agent-a", "opencode", "--backend-a", "local"]) == 2
    assert "--backend-a" in capsys.readouterr().err


def test_library_takes_agent(
    setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, _ = setup
    seen: dict[str, Any] = {}

    def fake_route(library_dir: Any, options: Any, **kwargs: Any) -> Any:
        seen["backend"] = options.backend
        raise InputError("stopped before any run", path="test")

    monkeypatch.setattr("skillbench.library.run.route_library_sync", fake_route)
    argv = ["library", str(skill.parent)]
    assert main([*argv, "--agent", "opencode"]) == 2
    assert seen["backend"] == "opencode"
    capsys.readouterr()
    assert main([*argv, "--agent", "nosuch"]) == 2
    assert "--agent" in capsys.readouterr().err
    # --budget is Claude Code's listing budget: not another agent's
    assert main([*argv, "--agent", "opencode", "--budget", "9000"]) == 2
    assert "--budget" in capsys.readouterr().err


def test_library_listing_of_an_agent_is_read_from_its_request() -> None:
    from skillbench.backends.base import SkillEntry
    from skillbench.backends.replay.agent import Listing
    from skillbench.library.listing import agent_listing

    entries = [
        SkillEntry("csv-cleanup", "Clean CSV files.", "# CSV\n"),
        SkillEntry("sql-review", "Review SQL queries for slow joins.", "# SQL\n"),
        SkillEntry("pdf-tools", "Split PDFs.", "# PDF\n"),
    ]
    view = Listing(shown={"csv-cleanup": "Clean CSV files.", "sql-review": "Review SQL…"}, chars=80)
    listing = agent_listing(entries, view)
    states = {s.name: s.state for s in listing.skills}
    assert states == {"csv-cleanup": "full", "sql-review": "truncated", "pdf-tools": "absent"}
    assert listing.source == "captured-request" and listing.listing_chars == 80
    assert listing.what_if == []  # Claude Code's budget rule is not opencode's
