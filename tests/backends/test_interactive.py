"""The interactive CLI driver without a real CLI: the seeded config and the failure paths."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skillbench.backends.claude_cli.interactive import (
    interactive_argv,
    run_interactive,
    seed_config,
)
from skillbench.errors import BackendError


def test_the_seeded_config_answers_every_first_run_question(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude"),
        "ANTHROPIC_API_KEY": "sk-ant-skillbench-capture-dummy",
    }
    path = seed_config(env, tmp_path / "project")
    assert path == tmp_path / ".claude" / ".claude.json"  # where the CLI reads it
    config = json.loads(path.read_text(encoding="utf-8"))
    assert config["hasCompletedOnboarding"] is True and config["theme"]
    assert config["customApiKeyResponses"]["approved"] == ["sk-ant-skillbench-capture-dummy"[-20:]]
    project = config["projects"][str(tmp_path / "project")]
    assert project["hasTrustDialogAccepted"] and project["hasCompletedProjectOnboarding"]


def test_the_seed_keeps_a_copied_logins_account(tmp_path: Path) -> None:
    """`--auth login` copies the account fields into the isolated `.claude.json` first; the
    interactive judge's seed must not drop them (the CLI would then ask to log in)."""
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude")}
    (tmp_path / ".claude").mkdir()
    account = {"oauthAccount": {"emailAddress": "a@example.com"}, "userID": "u1"}
    (tmp_path / ".claude" / ".claude.json").write_text(json.dumps(account), encoding="utf-8")
    config = json.loads(seed_config(env, tmp_path / "project").read_text(encoding="utf-8"))
    assert config["oauthAccount"] == account["oauthAccount"] and config["userID"] == "u1"
    assert config["hasCompletedOnboarding"] is True
    assert config["projects"][str(tmp_path / "project")]["hasTrustDialogAccepted"] is True


def test_the_prompt_comes_after_the_end_of_options() -> None:
    argv = interactive_argv("claude", ["--model", "m"], '--settings={"hooks":1}')
    assert argv == ["claude", "--model", "m", "--", '--settings={"hooks":1}']


def test_a_cli_that_exits_before_its_request_is_a_clear_error(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "print('Welcome: please log in')"]
    with pytest.raises(BackendError, match=r"exited .* before sending its request.*log in"):
        run_interactive(argv, tmp_path, {"PATH": "/usr/bin:/bin"}, lambda: False, timeout=60)


def test_the_driver_returns_once_the_request_arrived(tmp_path: Path) -> None:
    marker = tmp_path / "sent"
    code = f"import pathlib, time; pathlib.Path({str(marker)!r}).touch(); time.sleep(600)"
    shown = run_interactive(
        [sys.executable, "-c", code], tmp_path, {"PATH": "/usr/bin:/bin"}, marker.exists, 60
    )
    assert isinstance(shown, str)  # returned: the sleeping CLI was killed, not waited for
