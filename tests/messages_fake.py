"""A loopback fake of the Anthropic Messages API (streaming) for the agent backends' tests.

Every POST is recorded (path, the `anthropic-*` headers, body: never the key). The answer is
chosen by `script(body)`: bytes of an SSE stream, or an int for an HTTP error status; the default
answers a short `end_turn` text, so a real CLI finishes its run.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mock_anthropic_sse import text_stream

Script = Callable[[dict[str, Any]], "bytes | int"]


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the request's last user message."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return " ".join(
            str(block.get("text") or "") for block in content or [] if isinstance(block, dict)
        )
    return ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: MessagesFake

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._reply(404, b'{"type":"error","error":{"type":"not_found_error"}}', "application/json")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.loads(raw or b"{}")
        headers = {
            k.lower(): v for k, v in self.headers.items() if k.lower().startswith("anthropic-")
        }
        self.server.record(self.path, headers, body)
        with self.server._lock:
            self.server.keys.append(self.headers.get("x-api-key") or "")
        answer = self.server.script(body)
        if isinstance(answer, int):
            error = {"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}
            self._reply(answer, json.dumps(error).encode(), "application/json")
        else:
            self._reply(200, answer, "text/event-stream")

    def _reply(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class MessagesFake(ThreadingHTTPServer):
    """`with MessagesFake(script) as fake: fake.base_url` (http://127.0.0.1:<port>)."""

    daemon_threads = True

    def __init__(self, script: Script | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: Script = script or (lambda body: text_stream(str(body.get("model")), "OK."))
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.keys: list[str] = []
        """The `x-api-key` of each POST (kept apart from `requests`, which hold no key)."""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def record(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append((path, headers, body))

    def __enter__(self) -> MessagesFake:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
