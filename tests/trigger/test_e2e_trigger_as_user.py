"""`skillbench trigger --backend anthropic --as-user --catalog installed` end to end: the REAL
pinned CLI captures its request in an isolated HOME seeded with the user's configuration (read
from the user's HOME, which stays untouched); the user's own skill is listed once, by the CLI
itself; the report lists what was taken and what was left out; nothing that runs is copied and
no secret reaches a file or the output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mock_anthropic_sse import MockAnthropic
from real_cli import real_cli_skip_reason

from skillbench.cli import main

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
REPO = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-as-user-e2e-secret-0123456789abcdef"
USER_SECRET = "sk-ant-api03-in-the-users-settings-0123456789ab"


def test_trigger_as_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    skill = home / ".claude" / "skills" / "invoice-reader"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: invoice-reader\ndescription: Use when reading supplier invoices and "
        "extracting their totals.\n---\n# Invoices\n"
    )
    marker = tmp_path / "hook-ran"
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}
    settings = {"hooks": hooks, "env": {"ANTHROPIC_API_KEY": USER_SECRET}}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    (home / ".claude" / "CLAUDE.md").write_text("Prefer SQL over spreadsheets.\n")
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    project = tmp_path / "work"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    with MockAnthropic() as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache" / "calls.sqlite"))
        code = main(
            [
                "trigger",
                str(REPO / "data" / "skills" / "sql-query-reviewer"),
                "--evals",
                str(REPO / "data" / "evals" / "sql-query-reviewer.trigger.json"),
                "--backend",
                "anthropic",
                "--cli-mode",
                "print",
                "--runs",
                "1",
                "--catalog",
                "installed",
                "--out",
                str(tmp_path / "report.json"),
                "--as-user",
            ]
        )
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["catalog"]["skills"] == ["invoice-reader"]
    taken = report["harness"]["as_user_taken"]
    assert "taken: ~/.claude/skills/invoice-reader/SKILL.md (personal skill)" in taken
    assert "taken: ~/.claude/CLAUDE.md (CLAUDE.md)" in taken
    assert "left out: ~/.claude/settings.json: hooks left out (runs commands)" in taken
    assert "as the user (~): settings, CLAUDE.md, personal skill" in report["harness"]["as_user"]
    assert "as the user (~)" in " ".join(out.split())
    assert "--as-user taken: ~/.claude/CLAUDE.md (CLAUDE.md)" in out
    # the CLI listed the user's skill itself, once (not installed again in the project)
    routed = [r for r in mock.requests if r.path.startswith("/v1/messages") and r.skills_listed]
    assert routed and all(r.skills_listed.count("invoice-reader") == 1 for r in routed)
    # read-only, nothing ran, no secret anywhere
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before
    assert not marker.exists()
    for path in tmp_path.rglob("*"):
        if path.is_file() and home not in path.parents:
            assert KEY.encode() not in path.read_bytes(), path
            assert USER_SECRET.encode() not in path.read_bytes(), path
    assert KEY not in out + err and USER_SECRET not in out + err
