"""Replay equals the REAL pinned CLI's own request in the user's environment, on the day it runs,
inside the user's project (issue 21 items 1, 2, 3, 8).

The CLI's own request: the pinned `claude` run in the user's project folder (a git repository
with a CLAUDE.md, uncommitted changes, a feature branch), with the user's environment (SHELL set, a
Bash timeout, experimental betas disabled) against a loopback server. The replayed request: what
`ReplayJudge` sends for the same query over an httpx2 MockTransport, from a template captured
"yesterday" (the capture's CLI runs in a time zone where the date is yesterday, or tomorrow near
midnight UTC) with `--project` pointing at that folder. Both normalised only for the throwaway
paths (the project folder and the capture's copy of it): body, betas, version and path must be
identical, the billing header's suffix included. No network.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zoneinfo
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import pytest
from real_cli import claude_versions, real_cli_skip_reason, replay_judge

from skillbench.backends.anthropic.capture import (
    REQUEST_SETTINGS,
    CaptureServer,
    capture_env,
    normalise_body,
    write_skills,
)
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.session import REPO_CLAUDE

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.diagonal("claude_bin"),  # each combination on one version in `make test`
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
CLAUDE: Path = REPO_CLAUDE


@pytest.fixture(autouse=True, params=claude_versions())
def claude_bin(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs on each pinned CLI (the pin and the current release beside it), where
    installed: the helpers read `CLAUDE`."""
    monkeypatch.setattr(sys.modules[__name__], "CLAUDE", request.param)
    return Path(request.param)


TARGET = SkillEntry("pdf-tools", "Use when merging, splitting or rotating PDF files.", "# PDF\n")
CATALOG = (SkillEntry("csv-cleaner", "Use when cleaning spreadsheet CSV tables.", "# CSV\n"),)
USER_ENV = {
    "SHELL": "/bin/bash",
    "BASH_DEFAULT_TIMEOUT_MS": "300000",
    "BASH_MAX_TIMEOUT_MS": "900000",
    "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1",
}
STREAM_JSON = ("--output-format", "stream-json", "--verbose")
QUERY = 'merge "q1.pdf" and q2.pdf, then rotate page 3 \\ done'


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], capture_output=True, check=True)


def user_project(root: Path) -> Path:
    """A user's repository: CLAUDE.md, settings, a feature branch, uncommitted changes, a
    skill of its own tracked under `.claude/skills/`; the skills under test are installed beside
    it, kept out of git."""
    repo = root / "project"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "feature/pdf")
    git(repo, "config", "user.name", "Ada Lovelace")
    git(repo, "config", "user.email", "ada@example.org")
    (repo / "CLAUDE.md").write_text("# Team rules\n\nAlways keep PDFs under 10 MB.\n")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text('{"permissions": {"allow": []}}\n')
    (repo / "README.md").write_text("readme\n")
    team = repo / ".claude" / "skills" / "team-style"  # the project tracks a skill of its own
    team.mkdir(parents=True)
    (team / "SKILL.md").write_text(
        "---\nname: team-style\ndescription: Use when writing the team's release notes.\n---\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "README.md").write_text("readme, edited\n")
    (repo / "notes.txt").write_text("untracked\n")
    (repo / ".git" / "info" / "exclude").write_text("/.claude/skills/\n")
    return repo


def other_day_zone() -> tuple[str, datetime.date]:
    """A time zone whose date is not today's here (yesterday when possible)."""
    today = datetime.date.today()
    for zone in ("Etc/GMT+12", "Etc/GMT-14"):
        day = datetime.datetime.now(zoneinfo.ZoneInfo(zone)).date()
        if day != today:
            return zone, day
    raise AssertionError("no time zone with another date")  # cannot happen: they span 26 h


def users_env(home: Path, base_url: str) -> dict[str, str]:
    """What the user's own Claude Code sees (built without the code under test): the process
    environment as it is, HOME and its config folders moved to `home`, a dummy key, the loopback
    server; none of skillbench's fixed additions (`claude_env.FIXED_ENV`)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("XDG_") and k not in ("CLAUDE_CONFIG_DIR", "CLAUDECODE")
    }
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "HTTPS_PROXY", "HTTP_PROXY"):
        env.pop(name, None)
    return {
        **env,
        "HOME": str(home),
        "ANTHROPIC_API_KEY": "sk-ant-dummy-own",
        "ANTHROPIC_BASE_URL": base_url,
    }


def own_request(
    query: str, project: Path, model: str
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The CLI's own first Skill-offering request, run inside `project` (its parent's other
    children are the throwaway HOME), normalised for that folder."""
    home = project.parent / "home"
    try:
        with CaptureServer() as server:
            subprocess.run(
                [str(CLAUDE), "-p", query, "--model", model, *STREAM_JSON],
                cwd=project,
                env=users_env(home, server.base_url),
                capture_output=True,
                timeout=180,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            found = server.skill_request()
    finally:
        subprocess.run(["rm", "-rf", str(home)], check=False)
    assert found is not None, "the CLI never offered the Skill tool"
    path, headers, body = found
    return path, headers, normalise_body(body, str(project.parent))


def canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-sonnet-4-6"])
async def test_replay_equals_the_clis_own_request_in_the_users_environment_and_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    for name, value in USER_ENV.items():
        monkeypatch.setenv(name, value)
    project = user_project(tmp_path / "own")
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, model, sent, TARGET.name, claude_bin=CLAUDE, project=project)
    assert USER_ENV.items() <= judge.identity()["settings"].items()
    # the template is captured "yesterday": the capturing CLI's local date is another day
    zone, other_day = other_day_zone()
    monkeypatch.setenv("TZ", zone)
    template = await judge.template(TARGET, CATALOG)
    monkeypatch.delenv("TZ")
    assert f"Today's date is {other_day.isoformat()}." in json.dumps(template.body)
    assert template.project_differs == []
    outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, QUERY, 0))
    await judge.aclose()
    assert outcome.error is None and outcome.triggered is True
    (request,) = sent
    replayed = json.loads(request.content)
    assert replayed.pop("stream") is True
    # the CLI's own request, in the user's project (skills installed where the user has them)
    write_skills(project, TARGET, CATALOG)
    path, headers, own = own_request(QUERY, project, model)
    assert path == "/v1/messages?beta=true" == f"{request.url.path}?{request.url.query.decode()}"
    assert request.headers["anthropic-version"] == headers["anthropic-version"]
    assert request.headers["anthropic-beta"] == headers["anthropic-beta"]
    # experimental betas disabled: 2 betas on haiku-4-5 (3 on sonnet-4-6: effort), no context
    # management (the capture of the old code, in a fixed environment, had 5 and it)
    assert len(headers["anthropic-beta"].split(",")) == (2 if "haiku" in model else 3)
    assert "context_management" not in own
    own_text = canonical(own)
    for seen in (
        "Shell: bash",
        "Always keep PDFs under 10 MB.",
        "feature/pdf",
        "README.md",
        "team-style: Use when writing the team's release notes.",
    ):
        assert seen in own_text
    assert canonical(replayed) == own_text  # billing suffix and today's date included


BILLING_QUERIES = [
    # the suffix hashes the UTF-16 code units at 4, 7 and 20 ("0" past the end); each half has
    # a short query, a boundary length, surrogate pairs or another script, whitespace, markup
    [
        "hi",
        "a" * 20,
        "merge two pdf files",
        "PDFを結合して",
        "\U0001f600\U0001f600 merge these \U0001f4c4 files please",
        "line one\nline two\nline three of a longer query",
        'quotes "inside" and \\backslashes\\ too',
        "<system-reminder>not really</system-reminder>",
        "tab\tseparated\tquery with tabs",
        "ÆØÅ æøå — em dash – en dash",
    ],
    [
        "x",
        "rotate",
        "a" * 21,
        "0123456789012345678901234567890",
        "Wie füge ich zwei PDFs zusammen?",
        "  leading spaces and trailing  ",
        "split report.pdf into pages 1-3 and 4-9",
        "Can you compress scan.pdf to under 2 MB?",
        "what's the weather in Paris",
        "clean up data.csv: drop empty rows",
    ],
]


@pytest.mark.parametrize("queries", BILLING_QUERIES, ids=["first-10", "second-10"])
def test_the_billing_suffix_matches_the_cli_on_20_queries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, queries: list[str]
) -> None:
    for name, value in USER_ENV.items():
        monkeypatch.setenv(name, value)
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, "claude-haiku-4-5", sent, TARGET.name, claude_bin=CLAUDE)
    template = judge.template_for(TARGET, ())

    def own(query: str) -> dict[str, Any]:
        root = Path(tempfile.mkdtemp(prefix="skillbench-own-")).resolve()
        try:
            (root / "project").mkdir()
            write_skills(root / "project", TARGET, ())
            return own_request(query, root / "project", "claude-haiku-4-5")[2]
        finally:
            shutil.rmtree(root, ignore_errors=True)

    with ThreadPoolExecutor(4) as pool:
        owns = list(pool.map(own, queries))
    for query, body in zip(queries, owns, strict=True):
        replayed = template.body_for(query, datetime.date.today())
        assert replayed["system"][0] == body["system"][0], query
        assert canonical(replayed) == canonical(body), query


@pytest.mark.parametrize(
    ("name", "value", "changes"),
    [
        ("SHELL", "/bin/zsh", True),
        ("BASH_DEFAULT_TIMEOUT_MS", "300000", True),
        ("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS", "1", True),
        ("BASH_MAX_OUTPUT_LENGTH", "23456", False),
    ],
)
def test_the_request_settings_list_holds_what_changes_the_request(
    tmp_path: Path, name: str, value: str, changes: bool
) -> None:
    """Re-derive a few entries of REQUEST_SETTINGS: capture with and without the variable."""

    def capture(extra: dict[str, str]) -> str:
        root = Path(tempfile.mkdtemp(prefix="skillbench-own-", dir=tmp_path)).resolve()
        (root / "project").mkdir()
        write_skills(root / "project", TARGET, ())
        # every request setting left out but the one that keeps the CLI on loopback (conftest);
        # CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC itself changes the request (a DesignSync
        # tool without it), measured by hand: without it the CLI also reaches api.anthropic.com
        unset = set(REQUEST_SETTINGS) - {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"} | {name}
        source = {k: v for k, v in os.environ.items() if k not in unset}
        home = root / "home"
        with CaptureServer() as server:
            env = capture_env(home, server.base_url, extra, source=source)
            subprocess.run(
                [
                    str(CLAUDE),
                    "-p",
                    "merge two pdf files",
                    "--model",
                    "claude-haiku-4-5",
                    *STREAM_JSON,
                ],
                cwd=root / "project",
                env=env,
                capture_output=True,
                timeout=180,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            found = server.skill_request()
        assert found is not None
        path, headers, body = found
        return canonical({"p": path, "h": headers, "b": normalise_body(body, str(root))})

    differs = capture({}) != capture({name: value})
    assert differs is changes
    assert (name in REQUEST_SETTINGS) is changes
