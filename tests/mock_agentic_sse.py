"""A loopback mock of the streaming Messages API that drives the REAL `claude` CLI through one
agentic task (or a `script` of tool calls, one per turn, then an `end_turn` text): the first turn answers with a `Write` tool_use creating a file in the session's
working directory (read from the CLI's system prompt) — or with any other tool call given as
`first_call` — and the turn after the tool result with an `end_turn` text (`final_text`). With
`question`, the session's first turn ends with that text instead, until a user reply follows it
(the session resumed); then the script runs. Side calls the CLI makes (no `Write` tool offered, or not streamed) get a short
text. Every request is recorded without headers (no key is kept), with the tool result text and
the last user text.

    with AgenticMock(rel_path="evals/files/out.csv", content="a,b\\n") as mock:
        env = {"ANTHROPIC_BASE_URL": mock.base_url, "ANTHROPIC_API_KEY": "dummy"}
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any

from mock_anthropic_sse import (
    QuietHandler,
    _texts,
    has_tool_result,
    json_message,
    text_stream,
    tool_use_stream,
)

FINAL_TEXT = "Cleaned the export: 7 rows in, 5 rows out."
_CWD = re.compile(r"(?:Primary working directory|Working directory|cwd):\s*(\S+)", re.IGNORECASE)


@dataclass
class AgenticRequest:
    """One request the mock received (headers deliberately not kept)."""

    path: str
    stream: bool
    tools: list[str]
    saw_tool_result: bool
    tool_result: str
    answered: str
    user_text: str = ""


def working_directory(body: dict[str, Any]) -> str | None:
    """The session's working directory as the CLI states it in the system prompt."""
    texts = _texts(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            texts.extend(_texts(message.get("content")))
    for text in texts:
        match = _CWD.search(text)
        if match:
            return match.group(1)
    return None


def last_tool_result(body: dict[str, Any]) -> str:
    """The text of the tool_result block(s) of the last message."""
    messages = body.get("messages") or []
    content = messages[-1].get("content") if messages else None
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            inner = block.get("content")
            parts.extend(_texts(inner) if not isinstance(inner, str) else [inner])
            if block.get("is_error"):
                parts.append("[is_error]")
    return "\n".join(parts)


def last_user_text(body: dict[str, Any]) -> str:
    """The text blocks of the last message when it is the user's (not a system reminder)."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if not isinstance(last, dict) or last.get("role") != "user":
        return ""
    texts = _texts(last.get("content"))
    return "\n".join(t for t in texts if not t.lstrip().startswith("<system-reminder>"))


def asked_already(body: dict[str, Any], question: str) -> bool:
    """True when an assistant message of the conversation already holds `question`."""
    return any(
        isinstance(message, dict)
        and message.get("role") == "assistant"
        and any(question in text for text in _texts(message.get("content")))
        for message in body.get("messages") or []
    )


def tool_results(body: dict[str, Any]) -> int:
    """How many tool results the conversation holds so far (the turn of a scripted session)."""
    count = 0
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            count += isinstance(block, dict) and block.get("type") == "tool_result"
    return count


class _Handler(QuietHandler):
    server: _Server

    def do_HEAD(self) -> None:
        self._send(200, b"", "text/plain")

    def do_GET(self) -> None:
        error = b'{"type":"error","error":{"type":"not_found_error","message":"mock"}}'
        self._send(404, error, "application/json")

    def do_POST(self) -> None:
        body = self._read_body()
        path = self.path.split("?", 1)[0]
        self.server.mock.received(
            self.headers.get("x-api-key") or self.headers.get("authorization") or "",
            json.dumps(body),
        )
        if path.endswith("/v1/messages/count_tokens"):
            self._send(200, b'{"input_tokens": 100}', "application/json")
            return
        if not path.endswith("/v1/messages"):
            self.do_GET()
            return
        mock = self.server.mock
        model = str(body.get("model") or "claude-mock")
        tools = [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]
        stream = bool(body.get("stream"))
        saw = has_tool_result(body)
        cwd = working_directory(body)
        turn = tool_results(body)
        if not stream:
            answered, payload = "json-text", json.dumps(json_message(model, "OK.")).encode()
            kind = "application/json"
        elif mock.question and "Bash" in tools and not asked_already(body, mock.question):
            answered = "question"
            payload = text_stream(model, mock.question)
            kind = "text/event-stream"
        elif mock.script and "Bash" in tools and turn < len(mock.script):
            answered = mock.script[turn][0]
            payload = tool_use_stream(model, *mock.script[turn])
            kind = "text/event-stream"
        elif (
            mock.first_call is not None and (mock.force or mock.first_call[0] in tools) and not saw
        ):
            answered = mock.first_call[0]
            payload = tool_use_stream(model, *mock.first_call)
            kind = "text/event-stream"
        elif "Write" in tools and not saw and cwd:
            answered = "Write"
            target = f"{cwd.rstrip('/')}/{mock.rel_path}"
            payload = tool_use_stream(
                model, "Write", {"file_path": target, "content": mock.content}
            )
            kind = "text/event-stream"
        else:
            answered = "final-text" if saw else "text"
            payload = text_stream(model, mock.final_text if saw else "OK.")
            kind = "text/event-stream"
        mock.record(
            AgenticRequest(
                path, stream, tools, saw, last_tool_result(body), answered, last_user_text(body)
            )
        )
        self._send(200, payload, kind)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    mock: AgenticMock


class AgenticMock:
    """The mock on 127.0.0.1 (ephemeral port) in a background thread; a context manager."""

    def __init__(
        self,
        *,
        rel_path: str = "result.txt",
        content: str = "",
        first_call: tuple[str, dict[str, Any]] | None = None,
        force: bool = False,
        script: list[tuple[str, dict[str, Any]]] | None = None,
        question: str | None = None,
        final_text: str = FINAL_TEXT,
    ) -> None:
        self.rel_path = rel_path
        self.content = content
        self.first_call = first_call  # (tool, input) to call first instead of Write
        self.force = force  # call first_call even when the CLI did not offer that tool
        self.script = list(script or [])  # one tool call per turn, in order, then end_turn
        self.question = question  # the first turn's reply, until a user reply follows it
        self.final_text = final_text
        self._requests: list[AgenticRequest] = []
        self._keys: list[str] = []
        self._bodies: list[str] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.mock = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The value for ANTHROPIC_BASE_URL."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[AgenticRequest]:
        """Every Messages request so far."""
        with self._lock:
            return list(self._requests)

    @property
    def keys(self) -> list[str]:
        """The key (x-api-key, else Authorization) of every POST, in order: which key arrived
        is checked apart from the recorded requests, which keep none."""
        with self._lock:
            return list(self._keys)

    @property
    def bodies(self) -> list[str]:
        """Every POST body as JSON text."""
        with self._lock:
            return list(self._bodies)

    def received(self, key: str, body: str) -> None:
        """Keep one POST's key and body."""
        with self._lock:
            self._keys.append(key)
            self._bodies.append(body)

    def record(self, request: AgenticRequest) -> None:
        """Keep one request."""
        with self._lock:
            self._requests.append(request)

    def __enter__(self) -> AgenticMock:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
