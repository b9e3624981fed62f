"""`--auth login`: only the login reaches the isolated HOME, never skills or settings."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from skillbench.backends.claude_cli.login import check_auth, find_login, install_login
from skillbench.backends.claude_cli.session import ClaudeCodeJudge
from skillbench.errors import InputError

FAKE = Path(__file__).resolve().parents[1] / "fake_claude" / "claude"
CREDENTIALS = {"claudeAiOauth": {"accessToken": "sk-ant-oat-SECRET", "expiresAt": 1}}


def user_home(tmp_path: Path) -> Path:
    """A caller's HOME with a login, user skills and settings."""
    home = tmp_path / "ada"
    (home / ".claude" / "skills" / "mine").mkdir(parents=True)
    (home / ".claude" / "skills" / "mine" / "SKILL.md").write_text("---\nname: mine\n---\n")
    (home / ".claude" / "settings.json").write_text('{"model": "opus"}')
    (home / ".claude" / ".credentials.json").write_text(json.dumps(CREDENTIALS))
    config = {
        "oauthAccount": {"emailAddress": "ada@example.com", "accountUuid": "u-1"},
        "userID": "device-1",
        "projects": {"/home/ada/secret-project": {"allowedTools": ["Bash"]}},
        "mcpServers": {"x": {}},
    }
    (home / ".claude.json").write_text(json.dumps(config))
    return home


def test_login_found_and_copied_without_anything_else(tmp_path: Path) -> None:
    home = user_home(tmp_path)
    login = find_login({"HOME": str(home)})
    target = tmp_path / "iso" / ".claude"
    written = install_login(login, target)
    assert json.loads((target / ".credentials.json").read_text()) == CREDENTIALS
    account = json.loads((target / ".claude.json").read_text())
    assert set(account) == {"oauthAccount", "userID"}
    assert stat.S_IMODE(os.stat(target / ".credentials.json").st_mode) == 0o600
    assert sorted(p.name for p in target.iterdir()) == [".claude.json", ".credentials.json"]
    assert len(written) == 2


def test_claude_config_dir_is_honoured(tmp_path: Path) -> None:
    config = tmp_path / "work-config"
    config.mkdir()
    (config / ".credentials.json").write_text(json.dumps(CREDENTIALS))
    login = find_login({"HOME": str(tmp_path / "nobody"), "CLAUDE_CONFIG_DIR": str(config)})
    assert login.credentials == config / ".credentials.json"
    assert login.account == {}


def test_missing_login_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--auth") as info:
        find_login({"HOME": str(tmp_path)})
    assert "setup-token" in str(info.value)
    with pytest.raises(InputError, match="--auth"):
        check_auth("keychain")


async def test_judge_with_login_runs_with_the_copy_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = user_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-key-must-be-dropped")
    record = tmp_path / "calls"
    record.mkdir()
    judge = ClaudeCodeJudge(
        claude_bin=FAKE,
        auth="login",
        keep_workdirs=True,
        env={
            "FAKE_CLAUDE_SKILL": "pdf-tools",
            "FAKE_CLAUDE_RECORD": str(record),
            "FAKE_CLAUDE_SCENARIO": "no_tool",
        },
    )
    from skillbench.backends.base import SkillEntry, TriggerRequest

    outcome = await judge.judge(
        TriggerRequest(SkillEntry("pdf-tools", "Use for PDFs.", "# PDF\n"), (), "hi", 0)
    )
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    (call,) = [json.loads(p.read_text()) for p in record.glob("call-*.json")]
    assert call["has_api_key"] is False  # the login is used, not the key
    kept = Path(outcome.detail["workdir"]) / "home" / ".claude"
    try:
        assert not (kept / ".credentials.json").exists()  # removed even when the folder is kept
        assert not (kept / "skills").exists()
    finally:
        shutil.rmtree(outcome.detail["workdir"])
    assert judge.identity()["auth"] == "login"


def test_login_needs_isolation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(user_home(tmp_path)))
    with pytest.raises(InputError, match="--auth"):
        ClaudeCodeJudge(claude_bin=FAKE, auth="login", isolate_home=False)


def test_auth_default_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKILLBENCH_CLAUDE_AUTH", raising=False)
    assert check_auth(None) == "env"
    monkeypatch.setenv("SKILLBENCH_CLAUDE_AUTH", "login")
    assert check_auth(None) == "login"
    assert check_auth("env") == "env"  # an explicit choice wins
    monkeypatch.setenv("HOME", str(user_home(tmp_path)))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert ClaudeCodeJudge(claude_bin=FAKE).login is not None
    monkeypatch.setenv("SKILLBENCH_CLAUDE_AUTH", "keychain")
    with pytest.raises(InputError, match="SKILLBENCH_CLAUDE_AUTH"):
        check_auth(None)
