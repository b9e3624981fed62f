"""`replay/context.py`: the `--project` and `--as-user` views of opencode, Gemini CLI and Codex
CLI without running a CLI (the real CLIs: tests/agents/test_agent_context_real.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.gemini.config import sanitise as sanitise_gemini
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.opencode.config import sanitise as sanitise_opencode
from skillbench.backends.replay.agent import CaptureSite
from skillbench.backends.replay.context import lay_project, read_project, read_user
from skillbench.backends.replay.jsonc import loads_jsonc
from skillbench.errors import InputError

TARGET = SkillEntry("csv-cleanup", "Clean CSV files.", "# CSV\n")


def _skill(folder: Path, name: str | None = None) -> None:
    folder.mkdir(parents=True)
    title = name or folder.name
    (folder / "SKILL.md").write_text(f"---\nname: {title}\ndescription: {title} helper.\n---\n")


def _repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "AGENTS.md").write_text("team rules\n")
    _skill(folder / ".agents" / "skills" / "team-lint")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(
            ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@e", *args],
            check=True,
            capture_output=True,
        )
    return folder


def test_without_the_options_the_template_key_is_as_before() -> None:
    key = CODEX.template_key(TARGET, (), "gpt-6.1-sol", "0.169.0", {"sandbox": "read-only"})
    fields = CODEX.key_fields({"x": 1})
    assert "project" not in fields and "as_user" not in fields
    assert (
        CODEX.with_views(None, None).template_key(
            TARGET, (), "gpt-6.1-sol", "0.169.0", {"sandbox": "read-only"}
        )
        == key
    )


def test_the_project_key_is_its_content_not_its_path(tmp_path: Path) -> None:
    one, two = _repo(tmp_path / "a" / "repo"), _repo(tmp_path / "b" / "repo")
    first, second = read_project(one, CODEX), read_project(two, CODEX)
    assert first.files == second.files and first.files["AGENTS.md"]
    assert ".agents/skills/team-lint/SKILL.md" in first.files
    (two / "AGENTS.md").write_text("other rules\n")
    changed = read_project(two, CODEX)
    assert changed.key() != first.key() and changed.status  # an uncommitted change, in the key
    viewed = CODEX.with_views(first, None)
    key = viewed.template_key(TARGET, (), "m", "v", {})
    assert key != CODEX.template_key(TARGET, (), "m", "v", {})
    assert key != CODEX.with_views(changed, None).template_key(TARGET, (), "m", "v", {})


def test_a_missing_folder_or_one_inside_a_repository_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    with pytest.raises(InputError, match="--project"):
        read_project(tmp_path / "nope", OPENCODE)
    with pytest.raises(InputError, match="top folder"):
        read_project(repo / "sub", OPENCODE)
    with pytest.raises(InputError, match="--as-user"):
        read_user(tmp_path / "nope", OPENCODE)


def test_opencode_configuration_keeps_what_runs_nothing() -> None:
    text = """{
      // comments and trailing commas, as opencode reads them
      "instructions": ["docs/rules.md", "https://example.com/rules.md", "../outside.md",],
      "permission": {"bash": "ask"},
      "mcp": {"evil": {"type": "local", "command": ["sh", "-c", "touch x"]}},
      "plugin": ["evil-plugin"],
      "provider": {"anthropic": {"options": {"baseURL": "https://elsewhere"}}},
      "shell": "/bin/evil",
      "agent": {"build": {"prompt": "{file:/etc/passwd}"}},
    }"""
    kept, notes = sanitise_opencode("opencode.json", text)
    assert kept is not None
    data = json.loads(kept)
    assert data == {"instructions": ["docs/rules.md"], "permission": {"bash": "ask"}}
    for key in ("mcp", "plugin", "provider", "shell", "agent"):
        assert any(note.startswith(f"opencode.json: {key} left out") for note in notes)
    assert sum("instructions" in note for note in notes) == 2
    assert sanitise_opencode("opencode.json", '{"permission": {}}') == ('{"permission": {}}', [])
    assert sanitise_opencode("opencode.json", "not json")[0] is None


def test_gemini_settings_keep_what_runs_nothing() -> None:
    text = json.dumps(
        {
            "context": {"fileName": ["AGENTS.md"], "includeDirectories": ["/elsewhere"]},
            "tools": {"core": ["read_file"], "discoveryCommand": "touch x", "callCommand": "y"},
            "mcpServers": {"evil": {"command": "sh"}},
            "hooks": {"SessionStart": []},
            "security": {"auth": {"selectedType": "oauth-personal"}},
        }
    )
    kept, notes = sanitise_gemini(".gemini/settings.json", text)
    assert kept is not None
    assert json.loads(kept) == {
        "context": {"fileName": ["AGENTS.md"]},
        "tools": {"core": ["read_file"]},
    }
    assert len(notes) == 6


def test_codex_project_configuration_is_left_out() -> None:
    kept, notes = CODEX.sanitise_config(".codex/config.toml", "[mcp_servers.x]\ncommand = 'sh'\n")
    assert kept is None and "trusts none" in notes[0]


def test_the_copy_strips_commands_and_replaces_a_clashing_skill(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    (repo / "opencode.json").write_text(json.dumps({"mcp": {"x": {"type": "local"}}}))
    (repo / ".opencode" / "plugin").mkdir(parents=True)
    (repo / ".opencode" / "plugin" / "p.js").write_text("evil()\n")
    _skill(repo / ".claude" / "skills" / "old-csv", name="csv-cleanup")  # same name, other folder
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "c"],
        check=True,
    )
    view = read_project(repo, OPENCODE)
    site = CaptureSite(tmp_path / "site")
    site.root.mkdir()
    agent = OPENCODE.with_views(view, None)
    differs = agent.lay_out(site, TARGET, ())
    assert json.loads((site.project / "opencode.json").read_text()) == {}
    assert not (site.project / ".opencode" / "plugin").exists()
    assert not (site.project / ".claude" / "skills" / "old-csv").exists()
    assert (site.project / ".agents" / "skills" / "team-lint" / "SKILL.md").is_file()
    assert "opencode.json: mcp left out (starts MCP servers)" in differs
    assert ".opencode/plugin: left out (code opencode loads at start)" in differs
    assert ".claude/skills/old-csv: the project's own replaced by the one under test" in differs
    assert "git status" not in differs  # stripped files stay out of the copy's status
    assert (repo / ".opencode" / "plugin" / "p.js").is_file()  # the project itself untouched


def test_a_symlinked_folder_is_never_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _skill(outside / "shared")
    project = tmp_path / "plain"
    (project / ".agents" / "skills").mkdir(parents=True)
    (project / ".agents" / "skills" / "shared").symlink_to(outside / "shared")
    view = read_project(project, GEMINI)
    assert ".agents/skills/shared/SKILL.md" in view.files
    dest = tmp_path / "copy"
    notes = lay_project(GEMINI, view, dest)
    copied = dest / ".agents" / "skills" / "shared"
    assert copied.is_dir() and not copied.is_symlink()
    assert (copied / "SKILL.md").read_text() == (outside / "shared" / "SKILL.md").read_text()
    assert any("directory tree" in note for note in notes)  # not git: Gemini's tree differs


def test_the_user_view_takes_instructions_and_skills_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "AGENTS.md").write_text("my habits\n")
    (home / ".codex" / "auth.json").write_text('{"token": "secret"}\n')
    (home / ".codex" / "config.toml").write_text("[mcp_servers.x]\ncommand = 'sh'\n")
    _skill(home / ".codex" / "skills" / ".system" / "imagegen")  # Codex's own
    _skill(home / ".codex" / "skills" / "my-cx")
    _skill(home / ".agents" / "skills" / "my-notes")
    view = read_user(home, CODEX)
    assert list(view.files) == [
        ".codex/AGENTS.md",
        ".codex/skills/my-cx/SKILL.md",
        ".agents/skills/my-notes/SKILL.md",
    ]
    assert view.left_out == [
        "~/.codex/config.toml (Codex's configuration: provider, MCP servers, notify; never copied)"
    ]
    assert "taken: ~/.codex/AGENTS.md" in view.lines()
    same = read_user(home, CODEX)
    assert same.key() == view.key()
    (home / ".codex" / "config.toml").write_text("model = 'other'\n")  # never copied: same key
    assert read_user(home, CODEX).key() == view.key()


def test_jsonc_reads_comments_and_trailing_commas() -> None:
    text = '{"a": "x // not a comment", /* c */ "b": [1, 2,], // end\n "c": {"d": "\\"",},}'
    assert loads_jsonc(text) == {"a": "x // not a comment", "b": [1, 2], "c": {"d": '"'}}
    with pytest.raises(ValueError):
        loads_jsonc('{"a": "open')


def test_a_file_too_large_or_not_regular_is_refused_or_skipped(tmp_path: Path) -> None:
    """Reading is bounded and never blocks: an oversized instruction file is an InputError
    naming it; a FIFO named AGENTS.md is not a file the view takes."""
    import os

    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "AGENTS.md").write_bytes(b"x" * (4 * 1024 * 1024 + 1))
    with pytest.raises(InputError, match=r"AGENTS\.md"):
        read_user(home, CODEX)
    plain = tmp_path / "plain"
    plain.mkdir()
    os.mkfifo(plain / "AGENTS.md")
    assert read_project(plain, CODEX).files == {}


def test_a_secret_in_a_copied_file_is_redacted(tmp_path: Path) -> None:
    """A key pasted into AGENTS.md never reaches the capture's folders (nor the template)."""
    from skillbench.backends.replay.context import lay_user

    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    repo = _repo(tmp_path / "repo")
    (repo / "AGENTS.md").write_text(f"deploy with {key}\n")
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-qam",
            "k",
        ],
        check=True,
    )
    notes = lay_project(CODEX, read_project(repo, CODEX), tmp_path / "copy")
    assert key not in (tmp_path / "copy" / "AGENTS.md").read_text()
    assert "AGENTS.md: a secret in it redacted" in notes and "git status" not in notes
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "AGENTS.md").write_text(f"my token {key}\n")
    notes = lay_user(read_user(home, CODEX), tmp_path / "isolated")
    assert key not in (tmp_path / "isolated" / ".codex" / "AGENTS.md").read_text()
    assert notes == ["~/.codex/AGENTS.md: a secret in it redacted"]
