"""Real Claude Code transcripts for the field tests, written by the pinned CLI (print mode) in
an isolated HOME against the loopback fake Messages API (tests/mock_anthropic_sse.py), which
decides which skill fires for each query. Made once per test session."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mock_anthropic_sse import MockAnthropic, RecordedRequest
from real_cli import real_cli_skip_reason

from skillbench.backends.claude_cli.session import REPO_CLAUDE

SKILLS = {
    "tidy-csv": "Use when cleaning spreadsheet csv tables with duplicate rows.",
    "pdf-tools": "Use when merging or rotating pdf documents.",
}
NAME_ONLY_BUDGET = "120"
"""A listing budget so small that the project's skills are listed by name only."""


@dataclass
class Prompt:
    """One `claude -p` run: its session, prompt, and every request the fake answered for it."""

    session_id: str
    query: str
    requests: list[RecordedRequest] = field(default_factory=list)

    def fired(self) -> list[str]:
        """The skills the fake made the model invoke, in order."""
        return [r.answered_skill for r in self.requests if r.answered_skill]

    def listed_full(self) -> set[str]:
        """The skills some request of this run listed with their description."""
        return {name for r in self.requests for name, _ in r.listing}


@dataclass
class Transcripts:
    home: Path
    projects: Path
    prompts: list[Prompt]


SESSIONS: list[tuple[str, dict[str, str], list[str]]] = [
    (
        "11111111-1111-4111-8111-111111111111",
        {},
        [
            "clean my spreadsheet csv duplicate rows",
            "merge my pdf documents please",
            "hello there friend",
            "/tidy-csv",
        ],
    ),
    (
        "22222222-2222-4222-8222-222222222222",
        {"SLASH_COMMAND_TOOL_CHAR_BUDGET": NAME_ONLY_BUDGET},
        ["clean my spreadsheet csv duplicate rows", "/pdf-tools"],
    ),
    ("33333333-3333-4333-8333-333333333333", {}, ["what is the weather"]),
]


def _project(root: Path) -> Path:
    project = root / "proj"
    for name, description in SKILLS.items():
        folder = project / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        text = f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n"
        (folder / "SKILL.md").write_text(text)
    return project


@pytest.fixture(scope="session")
def claude_transcripts(tmp_path_factory: pytest.TempPathFactory) -> Transcripts:
    """Three sessions (seven user turns) of the real CLI; skipped when it cannot run."""
    reason = real_cli_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("field-claude")
    home = root / "home"
    home.mkdir()
    project = _project(root)
    prompts: list[Prompt] = []
    with MockAnthropic() as mock:
        base = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": mock.base_url,
            "ANTHROPIC_API_KEY": "sk-ant-dummy-offline",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        for session_id, extra, queries in SESSIONS:
            for i, query in enumerate(queries):
                seen = len(mock.requests)
                resume = ["--session-id", session_id] if i == 0 else ["--resume", session_id]
                done = subprocess.run(
                    [str(REPO_CLAUDE), "-p", *resume, "--output-format", "json"],
                    input=query,
                    capture_output=True,
                    text=True,
                    cwd=project,
                    env={**base, **extra},
                    timeout=180,
                    check=False,
                )
                assert done.returncode == 0, done.stderr[-2000:]
                sent = [r for r in mock.requests[seen:] if r.path.startswith("/v1/messages")]
                prompts.append(Prompt(session_id, query, sent))
    return Transcripts(home, home / ".claude" / "projects", prompts)
