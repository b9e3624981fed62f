"""The field tests' session-scoped fixtures: transcripts the real CLIs wrote in an isolated HOME
against loopback fakes that decide which skill fires for each query. Made once per test session.

Claude Code: `claude_run` is parametrised over both pinned versions (the pin and the current
release, tests/real_cli.py) and both CLI modes (print, and interactive in a pty), each running
the same script of sessions (tests/claude_field_runs.py); `claude_transcripts` is the pin's print
mode (the variant the `field check` tests use). Codex rollouts, Gemini chats and the opencode
database come from the pinned CLIs against tests/agent_fake_api.py and tests/messages_fake.py.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from claude_field_runs import SKILLS, Transcripts, write_claude_transcripts
from matrix import FULL
from real_cli import claude_versions, real_cli_skip_reason

from skillbench.backends.claude_cli.interactive import CLI_MODES
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.backends.claude_cli.tested import CLAUDE_PIN

__all__ = ["SKILLS", "Transcripts"]


def claude_runs() -> list[Any]:
    """pytest params (id `<version>-<mode>`): (binary, version, mode) for each pinned CLI in each
    mode; a version absent or unable to run is skipped with the reason. `make test` runs the
    diagonal (the pin in print mode, the current release in interactive mode); the other two are
    marked `full` (tests/matrix.py)."""
    params = []
    for at, version in enumerate(claude_versions()):
        (binary,) = version.values
        for mode in CLI_MODES:
            run = (binary, version.id, mode)
            diagonal = (mode == "print") == (at == 0)
            marks = [*version.marks, *([] if diagonal else [FULL])]
            params.append(pytest.param(run, id=f"{version.id}-{mode}", marks=marks))
    return params


@pytest.fixture(scope="session")
def claude_transcripts(tmp_path_factory: pytest.TempPathFactory) -> Transcripts:
    """The pinned CLI's print-mode sessions (three sessions, seven user turns); skipped when it
    cannot run."""
    reason = real_cli_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("field-claude")
    return write_claude_transcripts(REPO_CLAUDE, "print", root, CLAUDE_PIN)


@pytest.fixture(scope="session", params=claude_runs())
def claude_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Transcripts:
    """The same sessions written by one pinned version in one mode (the pin's print mode is
    `claude_transcripts`, made once)."""
    binary, version, mode = request.param
    if binary == REPO_CLAUDE and mode == "print":
        made: Transcripts = request.getfixturevalue("claude_transcripts")
        return made
    root = tmp_path_factory.mktemp(f"field-claude-{version}-{mode}")
    return write_claude_transcripts(Path(binary), mode, root, version)


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
