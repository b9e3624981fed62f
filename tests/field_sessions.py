"""Real Claude Code transcripts (print mode, and one interactive session in a pty), Codex
rollouts and Gemini chats for the field tests, written by the pinned CLIs in an isolated HOME against the loopback fake Messages API (tests/mock_anthropic_sse.py), which
decides which skill fires for each query. Made once per test session."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
INTERACTIVE = ("44444444-4444-4444-8444-444444444444", "clean my spreadsheet csv duplicate rows")
"""One session of the interactive CLI (in a pseudo-terminal, the query as its first prompt)."""
INTERACTIVE_KEY = "sk-ant-dummy-offline-interactive-0123456789"


def _interactive(home: Path, project: Path, env: dict[str, str]) -> None:
    """Run the interactive CLI in a pty until its transcript shows the turn answered, then end it.

    `~/.claude.json` is pre-seeded as a user's would be (onboarding done, the key approved, the
    project trusted), so no dialog waits for a keypress."""
    seeded = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [INTERACTIVE_KEY[-20:]], "rejected": []},
        "projects": {
            str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
        },
    }
    (home / ".claude.json").write_text(json.dumps(seeded))
    session_id, query = INTERACTIVE
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [str(REPO_CLAUDE), "--session-id", session_id, query],
        stdin=slave, stdout=slave, stderr=slave, cwd=project, close_fds=True,
        env={**env, "ANTHROPIC_API_KEY": INTERACTIVE_KEY, "TERM": "xterm-256color"},
        start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    projects = home / ".claude" / "projects"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    os.read(master, 65536)  # keep the terminal drained
                except OSError:
                    break
            found = list(projects.glob(f"*/{session_id}.jsonl"))
            if found and b'"stop_reason":"end_turn"' in found[0].read_bytes():
                return  # answered; ending the CLI writes the session's closing line
        raise AssertionError("the interactive CLI did not answer within 120 s")
    finally:
        child.terminate()
        child.wait(timeout=30)
        os.close(master)


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
    """Three print-mode sessions (seven user turns) and one interactive session (one turn) of
    the real CLI; skipped when it cannot run."""
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
        seen = len(mock.requests)
        _interactive(home, project, base)
        sent = [r for r in mock.requests[seen:] if r.path.startswith("/v1/messages")]
        prompts.append(Prompt(INTERACTIVE[0], INTERACTIVE[1], sent))
    return Transcripts(home, home / ".claude" / "projects", prompts)


@dataclass
class CodexRun:
    """One `codex exec` run: its prompt and the skill the fake made the model read (or None)."""

    query: str
    read: str | None


@dataclass
class CodexRollouts:
    sessions: Path
    runs: list[CodexRun]


def codex_answer(kind: str, body: dict[str, Any]) -> Any:
    """The fake's decision: a query naming csv or pdf reads that skill's SKILL.md through
    Codex's `exec` tool; after the tool output, or for anything else, a text answer."""
    from agent_fake_api import Reply

    items = [i for i in body.get("input") or [] if isinstance(i, dict)]
    last = items[-1] if items else {}
    if last.get("type") in ("custom_tool_call_output", "function_call_output"):
        return Reply("text", text="Done.")
    query = json.dumps(last.get("content", ""))
    for word, skill in (("csv", "tidy-csv"), ("pdf", "pdf-tools")):
        if word in query:
            code = f'await tools.exec_command({{cmd: "cat .agents/skills/{skill}/SKILL.md"}})'
            return Reply("call", "exec", code, custom=True)
    return Reply("text", text="Just an answer.")


CODEX_QUERIES = ["clean my spreadsheet csv duplicate rows", "merge my pdf documents", "hello"]


@pytest.fixture(scope="session")
def codex_rollouts(tmp_path_factory: pytest.TempPathFactory) -> CodexRollouts:
    """Three `codex exec` sessions of the real pinned Codex CLI against the loopback Responses
    fake (tests/agent_fake_api.py); skipped when the CLI is not installed."""
    from agent_fake_api import FakeAgentAPI

    from skillbench.backends.codex.agent import CODEX
    from skillbench.errors import BackendError

    try:
        binary = CODEX.locate()
    except BackendError as exc:
        pytest.skip(str(exc))
    root = tmp_path_factory.mktemp("field-codex")
    home, project = root / "home", root / "proj"
    home.mkdir()
    for name, description in SKILLS.items():
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n")
    runs: list[CodexRun] = []
    with FakeAgentAPI(answer=codex_answer) as fake:
        CODEX.prepare(project, home, fake.url + "/v1", CODEX.default_model)
        env = CODEX.capture_env(home, fake.url + "/v1", CODEX.settings())
        for query in CODEX_QUERIES:
            seen = len(fake.requests)
            call = CODEX.capture_call(binary, CODEX.default_model, query)
            done = subprocess.run(
                call.argv, input=call.stdin, cwd=project, env=env, capture_output=True,
                timeout=180, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-2000:]
            replies = [codex_answer("responses", r.body) for r in fake.requests[seen:]]
            read = next(
                (r.args.split("skills/")[1].split("/")[0] for r in replies if r.custom), None
            )
            runs.append(CodexRun(query, read))
    return CodexRollouts(home / ".codex" / "sessions", runs)


def gemini_answer(kind: str, body: dict[str, Any]) -> Any:
    """The fake's decision: `activate_skill` for a query naming csv or pdf; after the function
    response, or for anything else, a text answer."""
    from agent_fake_api import Reply

    contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
    parts = (
        [p for p in (contents[-1].get("parts") or []) if isinstance(p, dict)] if contents else []
    )
    if any("functionResponse" in p for p in parts):
        return Reply("text", text="Done.")
    query = next((str(p["text"]) for p in reversed(parts) if "text" in p), "")
    for word, skill in (("csv", "tidy-csv"), ("pdf", "pdf-tools")):
        if word in query and "<session_context>" not in query:
            return Reply("call", "activate_skill", {"name": skill})
    return Reply("text", text="Just an answer.")


@dataclass
class GeminiChats:
    root: Path
    runs: list[CodexRun]


@pytest.fixture(scope="session")
def gemini_chats(tmp_path_factory: pytest.TempPathFactory) -> GeminiChats:
    """Three `gemini -p` sessions (yolo mode, as the gemini backend captures) of the real pinned
    Gemini CLI against the loopback fake; skipped when the CLI is not installed."""
    from agent_fake_api import FakeAgentAPI

    from skillbench.backends.gemini.agent import GEMINI
    from skillbench.errors import BackendError

    try:
        binary = GEMINI.locate()
    except BackendError as exc:
        pytest.skip(str(exc))
    root = tmp_path_factory.mktemp("field-gemini")
    home, project = root / "home", root / "proj"
    home.mkdir()
    for name, description in SKILLS.items():
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n")
    runs: list[CodexRun] = []
    with FakeAgentAPI(answer=gemini_answer) as fake:
        model = GEMINI.default_model
        GEMINI.prepare(project, home, fake.url, model)
        env = GEMINI.capture_env(home, fake.url, GEMINI.settings())
        for query in CODEX_QUERIES:
            seen = len(fake.requests)
            call = GEMINI.capture_call(binary, model, query)
            done = subprocess.run(
                call.argv, input=call.stdin, cwd=project, env=env, capture_output=True,
                timeout=180, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-2000:]
            replies = [gemini_answer("gemini", r.body) for r in fake.requests[seen:]]
            read = next((r.args["name"] for r in replies if r.kind == "call"), None)
            runs.append(CodexRun(query, read))
    return GeminiChats(home / ".gemini" / "tmp", runs)


def opencode_skill(body: dict[str, Any]) -> str | None:
    """The fake's decision for opencode: the skill to invoke for an agent request (one offering
    the `skill` tool) whose query names csv or pdf and is not already answered by a tool result."""
    if not any(isinstance(t, dict) and t.get("name") == "skill" for t in body.get("tools") or []):
        return None
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last = messages[-1].get("content") if messages else None
    blocks = [b for b in last if isinstance(b, dict)] if isinstance(last, list) else []
    if any(b.get("type") == "tool_result" for b in blocks):
        return None
    query = last if isinstance(last, str) else " ".join(str(b.get("text") or "") for b in blocks)
    return next((s for w, s in (("csv", "tidy-csv"), ("pdf", "pdf-tools")) if w in query), None)


def opencode_answer(body: dict[str, Any]) -> bytes:
    """`opencode_skill`'s tool call, or a short text (the title request, a tool result, others)."""
    from mock_anthropic_sse import text_stream, tool_use_stream

    model, skill = str(body.get("model")), opencode_skill(body)
    if skill is not None:
        return tool_use_stream(model, "skill", {"name": skill})
    return text_stream(model, "Just an answer.")


@dataclass
class OpencodeDb:
    home: Path
    root: Path
    runs: list[CodexRun]
    sessions: int


OPENCODE_RUNS = [("clean my spreadsheet csv duplicate rows", False), ("hello there", True),
                 ("merge my pdf documents", False)]  # fmt: skip
"""(query, continue the previous session): two sessions, the first with two turns."""


@pytest.fixture(scope="session")
def opencode_db(tmp_path_factory: pytest.TempPathFactory) -> OpencodeDb:
    """Three `opencode run` prompts (two sessions) of the real pinned opencode CLI against the
    loopback Messages fake (tests/messages_fake.py), its database in an isolated HOME (XDG data
    folder inside it); skipped when the CLI is not installed."""
    from messages_fake import MessagesFake

    from skillbench.backends.opencode.agent import OPENCODE
    from skillbench.errors import BackendError

    try:
        binary = OPENCODE.locate()
    except BackendError as exc:
        pytest.skip(str(exc))
    root = tmp_path_factory.mktemp("field-opencode")
    home, project = root / "home", root / "proj"
    home.mkdir()
    for name, description in SKILLS.items():
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n")
    runs: list[CodexRun] = []
    with MessagesFake(opencode_answer) as fake:
        env = OPENCODE.capture_env(home, fake.base_url, {})
        for query, resume in OPENCODE_RUNS:
            seen = len(fake.requests)
            call = OPENCODE.capture_call(binary, OPENCODE.default_model, query)
            argv = [*call.argv, "--continue"] if resume else list(call.argv)
            done = subprocess.run(
                argv, input=call.stdin, cwd=project, env=env, capture_output=True,
                timeout=180, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-2000:]
            fired = [s for _, _, b in fake.requests[seen:] if (s := opencode_skill(b))]
            runs.append(CodexRun(query, fired[0] if fired else None))
    db = home / ".local" / "share" / "opencode"
    return OpencodeDb(home, db, runs, sessions=sum(not r for _, r in OPENCODE_RUNS))
