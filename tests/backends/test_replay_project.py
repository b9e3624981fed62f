"""`--project` captures never run the project's commands and see the project's own skills."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from skillbench.backends.replay_project import COMMAND_SETTINGS, materialise, snapshot


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def repo_with(root: Path, settings: dict[str, object], local: dict[str, object]) -> Path:
    repo = root / "repo"
    (repo / ".claude").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "A")
    git(repo, "config", "user.email", "a@b")
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    (repo / ".claude" / "settings.local.json").write_text(json.dumps(local))  # untracked
    return repo


def test_the_copied_settings_run_no_command(tmp_path: Path) -> None:
    hook = {"SessionStart": [{"hooks": [{"type": "command", "command": "touch /tmp/x"}]}]}
    settings = {"hooks": hook, "apiKeyHelper": "cat key", "permissions": {"allow": ["Read"]}}
    local = {"statusLine": {"type": "command", "command": "date"}, "model": "haiku"}
    repo = repo_with(tmp_path, settings, local)
    shot = snapshot(repo)
    copy = tmp_path / "copy"
    differs = materialise(shot, copy)
    copied = json.loads((copy / ".claude" / "settings.json").read_text())
    copied_local = json.loads((copy / ".claude" / "settings.local.json").read_text())
    assert copied == {"permissions": {"allow": ["Read"]}}
    assert copied_local == {"model": "haiku"}
    assert not set(COMMAND_SETTINGS) & {*copied, *copied_local}
    assert differs == [
        ".claude/settings.json: hooks not run",
        ".claude/settings.json: apiKeyHelper not run",
        ".claude/settings.local.json: statusLine not run",
    ]
    # the stripped tracked file does not show as modified: the git status block is the project's
    assert git(copy, "status", "--short").rstrip("\n") == shot.status
    assert json.loads((repo / ".claude" / "settings.json").read_text()) == settings  # untouched
