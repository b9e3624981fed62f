"""A loopback mock of the Anthropic Messages API, streaming SSE, for driving the REAL `claude` CLI.

`POST /v1/messages` answers like a model that routes by word overlap: it reads the skill list the
CLI puts in the request ("The following skills are available for use with the Skill tool:"),
picks the listed skill sharing the most content words with the user's query and answers with a
`Skill` tool_use naming it (the tool input streamed as split `input_json_delta` chunks); after the
tool result comes back it answers with an `end_turn` text. No matching skill: a plain text answer.
`POST /v1/messages/count_tokens` and any other request get minimal answers; every request is
recorded (method, path, model, streamed or not, tool result seen, the skill listing, the JSON
body) without headers, so no key is ever kept — except one probe header, `x-skillbench-probe`,
kept to show that `ANTHROPIC_CUSTOM_HEADERS` reached the CLI. `MockAnthropic(hang=True)` never
answers a request that lists skills (until it is shut down): a model that hangs.

Use as a context manager (`with MockAnthropic() as mock: mock.base_url`) or run it:
`python tests/mock_anthropic_sse.py --port 8765`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SKILL_LIST_MARKER = "The following skills are available for use with the Skill tool:"
STOPWORDS = frozenset(
    {"the", "and", "for", "with", "use", "when", "this", "that", "from", "into", "your"}
    | {"you", "are", "any", "all", "skill", "skills", "user", "users", "file", "files"}
)


@dataclass
class RecordedRequest:
    """One request the mock received (headers deliberately not kept)."""

    method: str
    path: str
    model: str | None = None
    stream: bool = False
    saw_tool_result: bool = False
    skills_listed: list[str] = field(default_factory=list)
    listing: list[tuple[str, str]] = field(default_factory=list)
    answered_skill: str | None = None
    probe_header: str | None = None
    body: dict[str, Any] = field(default_factory=dict, repr=False)


def _texts(content: Any) -> list[str]:
    """All text pieces of a message content (string or list of blocks)."""
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                out.append(block["text"])
    return out


def listed_skills(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, description) of every skill the CLI listed anywhere in the request."""
    texts: list[str] = []
    system = body.get("system")
    texts.extend(_texts(system))
    for message in body.get("messages", []):
        if isinstance(message, dict):
            texts.extend(_texts(message.get("content")))
    found: list[tuple[str, str]] = []
    for text in texts:
        start = text.find(SKILL_LIST_MARKER)
        if start < 0:
            continue
        for line in text[start + len(SKILL_LIST_MARKER) :].splitlines():
            match = re.match(r"^- ([A-Za-z0-9_.:/-]+): (.*)$", line)
            if match:
                found.append((match.group(1), match.group(2)))
            elif found and not line.strip():
                continue
    return found


def user_query(body: dict[str, Any]) -> str:
    """The last user text that is not a system reminder."""
    query = ""
    for message in body.get("messages", []):
        if isinstance(message, dict) and message.get("role") == "user":
            for text in _texts(message.get("content")):
                if not text.lstrip().startswith("<system-reminder>"):
                    query = text
    return query


def has_tool_result(body: dict[str, Any]) -> bool:
    """True when the last message carries a tool_result (the model's second turn)."""
    messages = body.get("messages") or []
    if not messages:
        return False
    content = messages[-1].get("content") if isinstance(messages[-1], dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3} - STOPWORDS


def route(query: str, skills: list[tuple[str, str]]) -> str | None:
    """The listed skill sharing the most content words with the query (None if none share any)."""
    want = _words(query)
    best: tuple[int, str] | None = None
    for name, description in skills:
        score = len(want & _words(name.replace("-", " ") + " " + description))
        if score > 0 and (best is None or score > best[0]):
            best = (score, name)
    return best[1] if best else None


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def message_start_event(model: str, input_tokens: int) -> bytes:
    """The `message_start` event of a streamed reply."""
    return _sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_mock_" + uuid.uuid4().hex[:12],
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": 1},
            },
        },
    )


def message_end_events(stop_reason: str, output_tokens: int) -> bytes:
    """`message_delta` (stop reason, output tokens) and `message_stop`."""
    return _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
    ) + _sse("message_stop", {"type": "message_stop"})


def tool_use_stream(
    model: str,
    name: str,
    tool_input: dict[str, Any],
    *,
    input_tokens: int = 300,
    output_tokens: int = 42,
) -> bytes:
    """A streamed reply holding one tool_use, its input split over two json deltas."""
    raw = json.dumps(tool_input)
    half = len(raw) // 2
    chunks = [
        message_start_event(model, input_tokens),
        _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_mock_" + uuid.uuid4().hex[:12],
                    "name": name,
                    "input": {},
                },
            },
        ),
    ]
    for part in (raw[:half], raw[half:]):
        chunks.append(
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                },
            )
        )
    chunks.append(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    chunks.append(message_end_events("tool_use", output_tokens))
    return b"".join(chunks)


def text_stream(
    model: str, text: str, *, input_tokens: int = 300, output_tokens: int = 12
) -> bytes:
    """A streamed end_turn text reply."""
    return b"".join(
        [
            message_start_event(model, input_tokens),
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": text},
                },
            ),
            _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            message_end_events("end_turn", output_tokens),
        ]
    )


def sse_body(model: str, skill: str | None, text: str) -> bytes:
    """A full streamed reply: a Skill tool_use naming `skill`, or else a text block."""
    if skill is not None:
        return tool_use_stream(model, "Skill", {"skill": skill}, input_tokens=120, output_tokens=17)
    return text_stream(model, text, input_tokens=120, output_tokens=17)


def json_message(model: str, text: str) -> dict[str, Any]:
    """A non-streamed text reply (for side calls the CLI makes without streaming)."""
    return {
        "id": "msg_mock_" + uuid.uuid4().hex[:12],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 5},
    }


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 handler basics shared by the loopback mocks: no access log, sized replies,
    a JSON request body read defensively."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _read_body(self) -> dict[str, Any]:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return {}
        return data if isinstance(data, dict) else {}


class _Handler(QuietHandler):
    server: _Server

    def do_HEAD(self) -> None:
        self.server.record(RecordedRequest(self.command, self.path))
        self._send(200, b"", "text/plain")

    def do_GET(self) -> None:
        self.server.record(RecordedRequest(self.command, self.path))
        self._send(
            404,
            b'{"type":"error","error":{"type":"not_found_error","message":"mock"}}',
            "application/json",
        )

    def do_POST(self) -> None:
        body = self._read_body()
        path = self.path.split("?", 1)[0]
        rec = RecordedRequest(self.command, self.path, model=body.get("model"))
        if path.endswith("/v1/messages/count_tokens"):
            self.server.record(rec)
            self._send(200, b'{"input_tokens": 100}', "application/json")
            return
        if not path.endswith("/v1/messages"):
            self.server.record(rec)
            self._send(
                404,
                b'{"type":"error","error":{"type":"not_found_error","message":"mock"}}',
                "application/json",
            )
            return
        model = str(body.get("model") or "claude-mock")
        rec.stream = bool(body.get("stream"))
        rec.saw_tool_result = has_tool_result(body)
        skills = listed_skills(body)
        rec.skills_listed = [name for name, _ in skills]
        rec.listing = skills
        rec.probe_header = self.headers.get("x-skillbench-probe")
        rec.body = body
        if self.server.hang and skills:
            self.server.record(rec)
            self.server.released.wait(300)  # until shutdown: the client gives up first
            return
        skill = None if rec.saw_tool_result else route(user_query(body), skills)
        rec.answered_skill = skill
        self.server.record(rec)
        text = "Done: the skill's instructions were followed." if rec.saw_tool_result else "OK."
        if rec.stream:
            self._send(200, sse_body(model, skill, text), "text/event-stream")
        else:
            self._send(200, json.dumps(json_message(model, text)).encode(), "application/json")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], hang: bool = False) -> None:
        super().__init__(address, _Handler)
        self.hang = hang
        self.released = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


class MockAnthropic:
    """The mock server on 127.0.0.1 (an ephemeral port unless given), in a background thread."""

    def __init__(self, port: int = 0, *, hang: bool = False) -> None:
        self._server = _Server(("127.0.0.1", port), hang)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The value for ANTHROPIC_BASE_URL."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far."""
        return list(self._server.requests)

    def __enter__(self) -> MockAnthropic:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def main() -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    with MockAnthropic(args.port) as mock:
        print(mock.base_url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
