"""`--project` captures never run the project's commands and see the project's own skills."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from real_cli import real_cli_skip_reason

from skillbench.backends.anthropic import project as project_module
from skillbench.backends.anthropic.capture import capture_template
from skillbench.backends.anthropic.project import materialise, snapshot
from skillbench.backends.anthropic.project_config import LEFT_OUT
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.cli import main


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
    assert not set(LEFT_OUT) & {*copied, *copied_local}
    assert differs == [
        ".claude/settings.json: hooks left out (runs commands)",
        ".claude/settings.json: apiKeyHelper left out (runs a command)",
        ".claude/settings.local.json: statusLine left out (runs a command)",
    ]
    # the stripped tracked file does not show as modified: the git status block is the project's
    assert git(copy, "status", "--short").rstrip("\n") == shot.status
    assert json.loads((repo / ".claude" / "settings.json").read_text()) == settings  # untouched


def skill_md(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n"


def repo_with_skills(root: Path) -> Path:
    """The usual layout: the repository tracks its own `.claude/skills/`."""
    repo = repo_with(root, {"permissions": {}}, {})
    for name, description in (("pdf-tools", "Use for PDFs."), ("zz-other", "Use for invoices.")):
        (repo / ".claude" / "skills" / name).mkdir(parents=True)
        (repo / ".claude" / "skills" / name / "SKILL.md").write_text(skill_md(name, description))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "skills")
    return repo


def test_the_projects_own_skills_are_part_of_its_key(tmp_path: Path) -> None:
    repo = repo_with_skills(tmp_path)
    before = snapshot(repo)
    assert set(before.skills) == {"pdf-tools", "zz-other"}
    other = repo / ".claude" / "skills" / "zz-other" / "SKILL.md"
    other.write_text(skill_md("zz-other", "Use for EVERY request about files, always first."))
    assert snapshot(repo).key() != before.key()


@pytest.mark.needs_claude
@pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason()))
def test_a_project_tracking_the_skill_under_test_is_captured(tmp_path: Path) -> None:
    """The project's own `pdf-tools` is replaced by the one under test (named in the
    differences); its other skills are listed as in the user's Claude Code."""
    repo = repo_with_skills(tmp_path)
    target = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
    template = capture_template(
        REPO_CLAUDE,
        target,
        (),
        model="claude-haiku-4-5",
        cli_version="2.1.197",
        project=snapshot(repo),
    )
    body = json.dumps(template.body)
    assert "- zz-other: Use for invoices." in body
    assert "Use when merging PDF files." in body and "Use for PDFs." not in body
    assert template.project_differs == [
        ".claude/skills/pdf-tools: the project's own replaced by the one under test"
    ]
    assert (repo / ".claude" / "skills" / "pdf-tools" / "SKILL.md").read_text() == skill_md(
        "pdf-tools", "Use for PDFs."
    )


@pytest.mark.needs_claude
@pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason()))
def test_no_project_hook_runs_during_a_capture(tmp_path: Path) -> None:
    """Print mode skips the trust dialog: a hook left in the copy would run (and its output
    would reach the request, which is why the template says it was not run)."""
    marker = tmp_path / "hook-ran"
    events = ("SessionStart", "UserPromptSubmit")
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f"touch {marker}; echo SAID-{event}"}]}]
        for event in events
    }
    repo = repo_with(tmp_path, {"hooks": hooks}, {})
    target = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
    template = capture_template(
        REPO_CLAUDE,
        target,
        (),
        model="claude-haiku-4-5",
        cli_version="2.1.197",
        project=snapshot(repo),
    )
    assert not marker.exists()
    assert "SAID-" not in json.dumps(template.body)
    assert template.project_differs == [".claude/settings.json: hooks left out (runs commands)"]


def test_a_template_made_under_older_copy_rules_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Templates captured when the copy still ran `.mcp.json` servers are captured again."""
    repo = repo_with(tmp_path, {}, {})
    now = snapshot(repo).key()
    monkeypatch.setattr(project_module, "COPY_RULES", 1)
    assert snapshot(repo).key() != now


def test_a_folder_without_git_has_its_mcp_servers_left_out(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / ".mcp.json").write_text('{"mcpServers": {"s": {"command": "touch /tmp/x"}}}')
    copy = tmp_path / "copy"
    assert materialise(snapshot(folder), copy) == [
        ".mcp.json: mcpServers.s left out (starts a server)"
    ]
    assert json.loads((copy / ".mcp.json").read_text()) == {"mcpServers": {}}
    assert "touch" in (folder / ".mcp.json").read_text()


def test_a_settings_symlink_out_of_the_project_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"statusLine": {"type": "command", "command": "date"}}')
    repo = repo_with(tmp_path, {}, {})
    (repo / ".claude" / "settings.json").unlink()
    (repo / ".claude" / "settings.json").symlink_to(outside)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "link")
    copy = tmp_path / "copy"
    differs = materialise(snapshot(repo), copy)
    assert ".claude/settings.json: statusLine left out (runs a command)" in differs
    assert json.loads((copy / ".claude" / "settings.json").read_text()) == {}
    assert "statusLine" in outside.read_text()
    assert git(copy, "status", "--short") == ""


def test_an_agent_whose_hooks_cannot_be_cut_is_exit_2_before_any_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-offline")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # never reached
    repo = repo_with(tmp_path, {}, {})
    (repo / ".claude" / "agents").mkdir()
    (repo / ".claude" / "agents" / "a.md").write_text("---\nname: a\n? hooks\n: {}\n---\nx\n")
    folder = tmp_path / "pdf-tools"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: pdf-tools\ndescription: Use for PDFs.\n---\n")
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps([{"query": "merge pdfs", "should_trigger": True}]))
    args = ["trigger", str(folder), "--evals", str(queries), "--backend", "anthropic"]
    args += ["--project", str(repo), "--cache", str(tmp_path / "cache.sqlite")]
    for extra in ([], ["--dry-run"]):
        assert main([*args, *extra]) == 2
        err = capsys.readouterr().err
        assert ".claude/agents/a.md" in err and "'hooks'" in err
    assert not (tmp_path / "cache.sqlite").exists()


def signed_head(repo: Path) -> None:
    """Make HEAD a commit carrying a (fake) PGP signature: `git log` with `log.showSignature`
    runs `gpg.program` to check it."""
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    parent = git(repo, "rev-parse", "HEAD").strip()
    stamp = "A <a@b> 1700000000 +0000"
    raw = (
        f"tree {tree}\nparent {parent}\nauthor {stamp}\ncommitter {stamp}\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQ==\n -----END PGP SIGNATURE-----\n\nsigned\n"
    )
    done = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=raw,
        capture_output=True,
        text=True,
        check=True,
    )
    git(repo, "update-ref", "HEAD", done.stdout.strip())


def test_reading_the_project_runs_no_command_of_its_git_config(tmp_path: Path) -> None:
    """`git status` runs `core.fsmonitor` and `git log` with `log.showSignature` runs
    `gpg.program`: reading and copying the project runs neither."""
    repo = repo_with(tmp_path, {}, {})
    signed_head(repo)
    gpg = tmp_path / "gpg.sh"
    gpg.write_text(f"#!/bin/sh\ntouch {tmp_path}/ran-gpg\n")
    gpg.chmod(0o755)
    git(repo, "config", "core.fsmonitor", f"touch {tmp_path}/ran-fsmonitor")
    git(repo, "config", "log.showSignature", "true")
    git(repo, "config", "gpg.program", str(gpg))
    (repo / "new.txt").write_text("x\n")
    shot = snapshot(repo)
    materialise(shot, tmp_path / "copy")
    assert "?? new.txt" in shot.status and "signed" in shot.log
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ran-")) == []
