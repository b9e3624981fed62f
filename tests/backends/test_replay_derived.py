"""Issue 21 items 1-3, 8 and issue 20.3 offline: what the replayed request derives from the day,
the query, the caller's environment and the project, and what the template is keyed on."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path

import pytest

from skillbench.backends.anthropic.capture import (
    REQUEST_SETTINGS,
    SENTINEL,
    billing_suffix,
    capture_env,
    request_settings,
    swap_date,
    template_key,
)
from skillbench.backends.anthropic.project import materialise, snapshot
from skillbench.backends.base import SkillEntry
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.improve.options import ImproveOptions
from skillbench.skill import Skill
from skillbench.trigger.options import TriggerOptions

MODEL = "claude-haiku-4-5"
VERSION = "2.1.197"


def template(texts: dict[str, str]) -> ReplayTemplate:
    body = {
        "model": MODEL,
        "max_tokens": 32000,
        "system": [
            {"type": "text", "text": texts["billing"]},
            {"type": "text", "text": "You are Claude."},
        ],
        "tools": [{"name": "WebSearch", "description": texts["month"]}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": texts["date"]},
                    {"type": "text", "text": SENTINEL},
                ],
            }
        ],
    }
    return ReplayTemplate(
        key="k", model=MODEL, cli_version=VERSION, path="/v1/messages", headers={}, body=body
    )


CAPTURED_YESTERDAY = {
    "billing": "x-anthropic-billing-header: cc_version=2.1.197.44f; cc_entrypoint=sdk-cli;",
    "month": " - The current month is October 2026. You MUST use this year when searching",
    "date": "<system-reminder>\n# currentDate\nToday's date is 2026-10-31.\n</system-reminder>",
}


def test_the_billing_suffix_is_the_clis_rule_for_each_query() -> None:
    # measured with the pinned CLI 2.1.197 against the loopback capture server
    assert billing_suffix("merge two pdf files", VERSION) == "8e1"
    # characters 4, 7 and 20 count in UTF-16 code units; past the end they are "0"
    assert billing_suffix("abc", VERSION) == billing_suffix("xyz", VERSION)
    assert billing_suffix("0123a56b" + "x" * 12 + "c", VERSION) != billing_suffix(
        "0123a56b" + "x" * 12 + "d", VERSION
    )
    # an emoji is two UTF-16 code units (JavaScript's string index), not one code point
    assert billing_suffix("\U0001f600\U0001f600abcd", VERSION) == billing_suffix(
        "wxyzaxyd", VERSION
    )


def test_body_for_sends_todays_date_and_the_querys_billing_suffix() -> None:
    t = template(CAPTURED_YESTERDAY)
    body = t.body_for("merge two pdf files", datetime.date(2026, 11, 1))
    assert body["messages"][0]["content"][0]["text"].count("Today's date is 2026-11-01.") == 1
    assert "The current month is November 2026." in body["tools"][0]["description"]
    assert body["system"][0]["text"].startswith(
        "x-anthropic-billing-header: cc_version=2.1.197.8e1;"
    )
    assert body["messages"][0]["content"][1]["text"] == "merge two pdf files"
    # the template is untouched
    assert t.body["messages"][0]["content"][0]["text"] == CAPTURED_YESTERDAY["date"]
    assert "October 2026" in t.body["tools"][0]["description"]


def test_the_date_keeps_the_clis_own_format() -> None:
    day = datetime.date(2027, 1, 5)
    assert swap_date("Today\u2019s date is 2026/12/31.", day) == "Today\u2019s date is 2027/01/05."
    assert swap_date("The current month is December 2026.", day) == (
        "The current month is January 2027."
    )
    assert swap_date("Today's date is 2026-12-31.", None) == "Today's date is 2026-12-31."


def test_the_judge_uses_its_clock(tmp_path: Path) -> None:
    from skillbench.backends.anthropic.replay import ReplayJudge

    cli = tmp_path / "claude"
    cli.write_text('#!/bin/sh\necho "2.1.197 (Claude Code)"\n')
    cli.chmod(0o755)
    judge = ReplayJudge(
        MODEL,
        api_key="sk-ant-test-0123456789",
        claude_bin=cli,
        template_dir=tmp_path / "t",
        clock=lambda: datetime.date(2030, 2, 3),
    )
    body = judge.request_body(template(CAPTURED_YESTERDAY), "q")
    assert "Today's date is 2030-02-03." in body["messages"][0]["content"][0]["text"]


CALLER = {
    "PATH": "/usr/bin",
    "HOME": "/home/ada",
    "SHELL": "/bin/zsh",
    "LANG": "en_US.UTF-8",
    "BASH_DEFAULT_TIMEOUT_MS": "300000",
    "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1",
    "ANTHROPIC_API_KEY": "sk-ant-secret-0123456789",
    "ANTHROPIC_BASE_URL": "https://gateway.corp",
    "CLAUDE_CODE_USE_BEDROCK": "1",
    "HTTPS_PROXY": "http://proxy.corp:3128",
    "CLAUDECODE": "1",
    "CLAUDE_CONFIG_DIR": "/home/ada/.claude",
}


def test_the_capture_sees_the_callers_environment_by_the_claude_code_rules(
    tmp_path: Path,
) -> None:
    env = capture_env(tmp_path, "http://127.0.0.1:9", {}, source=CALLER)
    assert env["SHELL"] == "/bin/zsh" and env["LANG"] == "en_US.UTF-8"
    assert env["BASH_DEFAULT_TIMEOUT_MS"] == "300000"
    assert env["CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS"] == "1"
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["ANTHROPIC_API_KEY"] != CALLER["ANTHROPIC_API_KEY"]
    assert env["HOME"] == str(tmp_path) and env["CLAUDE_CONFIG_DIR"] == str(tmp_path / ".claude")
    for gone in ("CLAUDE_CODE_USE_BEDROCK", "HTTPS_PROXY", "CLAUDECODE"):
        assert gone not in env
    assert "sk-ant-secret" not in json.dumps(env)


def test_every_request_changing_setting_is_part_of_the_template_key() -> None:
    target = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
    for name in ("SHELL", "BASH_DEFAULT_TIMEOUT_MS", "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS"):
        assert name in REQUEST_SETTINGS
    settings = request_settings(CALLER)
    assert settings["SHELL"] == "/bin/zsh"
    base = template_key(target, (), MODEL, VERSION, {})
    assert template_key(target, (), MODEL, VERSION, settings) != base
    other_shell = request_settings({**CALLER, "SHELL": "/bin/bash"})
    assert template_key(target, (), MODEL, VERSION, other_shell) != template_key(
        target, (), MODEL, VERSION, settings
    )
    assert "ANTHROPIC_API_KEY" not in settings and "PATH" not in settings


def skill_folder(root: Path) -> Path:
    folder = root / "pdf-tools"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Use when merging PDF files.\n---\n\n# PDF\n"
    )
    (folder / "evals" / "evals.json").write_text('{"skill_name": "pdf-tools", "evals": []}')
    return folder


def entry(folder: Path) -> SkillEntry:
    skill = Skill.load(folder)
    return SkillEntry(
        skill.name, skill.description, skill.body, str(folder), content_hash=skill.content_hash
    )


def test_the_template_is_keyed_on_what_the_cli_reads_not_on_evals_or_notes(
    tmp_path: Path,
) -> None:
    folder = skill_folder(tmp_path)
    base = template_key(entry(folder), (), MODEL, VERSION, {})
    (folder / "evals" / "evals.json").write_text('{"skill_name": "pdf-tools", "evals": [1]}')
    (folder / "NOTES.md").write_text("thoughts")
    assert template_key(entry(folder), (), MODEL, VERSION, {}) == base
    text = (folder / "SKILL.md").read_text()
    (folder / "SKILL.md").write_text(text.replace("# PDF", "# PDF tools"))
    assert template_key(entry(folder), (), MODEL, VERSION, {}) != base


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def state_of(folder: Path) -> list[tuple[str, int, int]]:
    """Every file under `folder` (.git included) with its size and mtime."""
    return sorted(
        (p.relative_to(folder).as_posix(), p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    )


def user_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "feature/x")
    git(repo, "config", "user.name", "Ada Lovelace")
    git(repo, "config", "user.email", "ada@example.org")
    (repo / "CLAUDE.md").write_text("Always answer in French.\n")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text('{"permissions": {}}\n')
    for i in range(7):
        (repo / f"f{i}.txt").write_text(f"{i}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {i}")
    git(repo, "update-ref", "refs/remotes/origin/develop", "HEAD")
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    (repo / "f1.txt").write_text("changed\n")  # modified, unstaged
    (repo / "f2.txt").write_text("staged\n")
    git(repo, "add", "f2.txt")
    (repo / "f3.txt").unlink()  # deleted
    (repo / "new").mkdir()
    (repo / "new" / "a.txt").write_text("untracked\n")
    return repo


def test_the_project_is_copied_with_its_git_status_and_never_written(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = state_of(repo)
    shot = snapshot(repo)
    assert shot.git and shot.branch == "feature/x" and shot.main_branch == "develop"
    assert shot.commit == git(repo, "rev-parse", "HEAD").strip()
    assert set(shot.files) == {"CLAUDE.md", ".claude/settings.json"}
    assert shot.label().startswith(f"{repo} @ {shot.commit}")
    copy = tmp_path / "copy"
    assert materialise(shot, copy) == []
    assert git(copy, "--no-optional-locks", "status", "--short") == git(
        repo, "--no-optional-locks", "status", "--short"
    )
    assert git(copy, "log", "--oneline", "-n", "5") == git(repo, "log", "--oneline", "-n", "5")
    assert git(copy, "config", "user.name").strip() == "Ada Lovelace"
    assert (copy / "CLAUDE.md").read_text() == "Always answer in French.\n"
    (copy / ".claude" / "skills" / "pdf-tools").mkdir(parents=True)
    (copy / ".claude" / "skills" / "pdf-tools" / "SKILL.md").write_text("x")
    assert git(copy, "--no-optional-locks", "status", "--short") == shot.status + "\n"
    assert state_of(repo) == before  # nothing written into the project


def test_the_project_is_part_of_the_template_key(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    target = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
    first = template_key(target, (), MODEL, VERSION, {}, snapshot(repo).key())
    assert first != template_key(target, (), MODEL, VERSION, {})
    (repo / "CLAUDE.md").write_text("Always answer in German.\n")
    assert template_key(target, (), MODEL, VERSION, {}, snapshot(repo).key()) != first


def test_a_missing_project_folder_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(InputError):
        snapshot(tmp_path / "nope")
    folder = skill_folder(tmp_path)
    evals = folder / "evals" / "evals.json"
    code = main(["trigger", str(folder), "--evals", str(evals), "--project", str(tmp_path / "no")])
    assert code == 2 and "--project" in capsys.readouterr().err
    code = main(
        ["trigger", str(folder), "--evals", str(evals), "--backend", "local", "--project", "."]
    )
    assert code == 2 and "replay harness only" in capsys.readouterr().err
    code = main(
        [
            "agreement",
            str(folder),
            "--evals",
            str(evals),
            "--backend-a",
            "local",
            "--backend-b",
            "lexical",
            "--project",
            str(tmp_path),
        ]
    )
    assert code == 2 and "--project" in capsys.readouterr().err
    code = main(["improve", str(folder), "--evals", str(evals), "--project", str(tmp_path / "no")])
    assert code == 2 and "--project" in capsys.readouterr().err
    from skillbench.improve.run import improve_skill_sync

    queries = tmp_path / "q.trigger.json"
    queries.write_text(json.dumps([{"query": "merge pdfs", "should_trigger": True}]))
    with pytest.raises(InputError, match="replay harness only"):  # the library checks it too
        improve_skill_sync(
            folder,
            queries,
            options=ImproveOptions(
                trigger=TriggerOptions(backend="local", project=str(tmp_path), use_cache=False)
            ),
        )


def test_the_report_names_the_project_and_its_commit(tmp_path: Path) -> None:
    from skillbench.backends.anthropic.replay import ReplayJudge

    repo = user_repo(tmp_path)
    cli = tmp_path / "claude"
    cli.write_text('#!/bin/sh\necho "2.1.197 (Claude Code)"\n')
    cli.chmod(0o755)
    judge = ReplayJudge(
        MODEL,
        api_key="sk-ant-test-0123456789",
        claude_bin=cli,
        template_dir=tmp_path / "t",
        project=repo,
    )
    commit = git(repo, "rev-parse", "HEAD").strip()
    assert judge.versions()["project"] == f"{repo} @ {commit} + uncommitted changes"
    assert judge.identity()["project"] == judge.versions()["project"]


def test_a_folder_inside_a_repository_is_refused(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    with pytest.raises(InputError, match="top folder"):
        snapshot(repo / "new")
