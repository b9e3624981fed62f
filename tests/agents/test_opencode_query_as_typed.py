"""Issue 32 item 5: opencode's query is passed as typed. The REAL pinned opencode CLI, against the
loopback capture server: the user message of its own request is the query byte for byte (quotes,
a leading `-`, spaces, a newline), and so is the replay's.

Why stdin: `opencode run <message..>` joins its arguments and wraps each one holding a space in
double quotes (`"tidy \\"this\\" file"`, measured below on 1.18.33), so a query passed as an
argument is not the query the user typed; `capture_call` writes it to stdin, which opencode takes
as it is (and where no option parser sees a query beginning with `-`).
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.base import SkillEntry
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.replay.capture_server import CaptureServer
from skillbench.backends.replay.run import run_until_captured
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.backends.skill_install import install_skills
from skillbench.errors import BackendError

MODEL = "claude-haiku-4-5"
TARGET = SkillEntry("csv-cleanup", "Clean CSV files.", "# CSV\n")
QUERIES = [
    'tidy "this" file — ok?',
    "--format json -v: fix my csv",
    "  two\nlines, it's \\ a path  ",
]


def _binary() -> Path:
    try:
        return OPENCODE.locate()
    except BackendError as exc:
        pytest.skip(str(exc))


def sent_text(call: AgentCall, tmp_path: Path) -> str:
    """The first user text of opencode's own request for `call`."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    install_skills(project, TARGET, (), OPENCODE.skills_dir)
    with CaptureServer(OPENCODE) as server:
        env = OPENCODE.capture_env(home, server.base_url, {})
        run_until_captured(OPENCODE, call, project, env, server, 120)
        found = server.agent_request()
    assert found is not None, "opencode sent no request of its own"
    message = found[2]["messages"][0]
    content = message["content"]
    return str(content if isinstance(content, str) else content[0]["text"])


@pytest.mark.parametrize("query", QUERIES, ids=["quotes", "dash", "spaces-newline"])
def test_the_request_holds_the_query_as_typed(query: str, tmp_path: Path) -> None:
    binary = _binary()
    call = OPENCODE.capture_call(binary, MODEL, query)
    assert query not in call.argv and query.encode("utf-8") == call.stdin  # stdin, never argv
    assert sent_text(call, tmp_path) == query
    template = ReplayTemplate(
        agent="opencode",
        key="k",
        model=MODEL,
        cli_version="x",
        path="/v1/messages",
        headers={},
        body={
            "messages": [{"role": "user", "content": [{"type": "text", "text": OPENCODE.sentinel}]}]
        },
    )
    replayed = template.body_for(OPENCODE, query, datetime.date(2026, 11, 26))
    assert replayed["messages"][0]["content"][0]["text"] == query


def test_an_argument_query_would_be_wrapped_in_quotes(tmp_path: Path) -> None:
    """What `capture_call` avoids: the same CLI given the query as an argument sends it quoted."""
    binary = _binary()
    argv = (os.fspath(binary), "run", "-m", f"anthropic/{MODEL}", "--format", "json", "--")
    query = 'tidy "this" file'
    sent = sent_text(AgentCall((*argv, query), b""), tmp_path)
    assert sent == '"tidy \\"this\\" file"' != query
