"""The one loopback capture server of every agent's replay (Claude Code, opencode, Gemini CLI,
Codex CLI).

It listens on 127.0.0.1 only, speaks the agent's provider API through a `CaptureReplier` (the
agent's own answers: a short text reply, a 404 for what the agent does not need), records every
POST (path, the headers the replier keeps, the JSON body: never a key) and tells when the
agent's own first request (`CaptureReplier.is_agent_request`) has arrived.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, Self

Recorded = tuple[str, dict[str, str], dict[str, Any]]
"""One recorded request: path, kept headers, JSON body."""


class CaptureReplier(Protocol):
    """What the capture server asks of an agent."""

    @property
    def kept_headers(self) -> tuple[str, ...]:
        """Lower-case header names recorded with a request (never an auth header)."""
        ...

    def capture_reply(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """(status, content type, payload) answering one request during a capture."""
        ...

    def is_agent_request(self, path: str, body: dict[str, Any]) -> bool:
        """Whether a recorded request is the agent's own first request (the one replayed)."""
        ...


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: CaptureServer

    def log_message(self, format: str, *args: Any) -> None:
        """No access log."""

    def _answer(self, method: str) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        headers = {name.lower(): value for name, value in self.headers.items()}
        replier = self.server.replier
        if method == "POST":
            kept = {k: headers[k] for k in replier.kept_headers if k in headers}
            self.server.record(self.path, kept, body)
        status, content_type, payload = replier.capture_reply(method, self.path, body)
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(payload)

    def do_POST(self) -> None:
        self._answer("POST")

    def do_GET(self) -> None:
        self._answer("GET")

    def do_HEAD(self) -> None:
        self._answer("HEAD")


class CaptureServer(ThreadingHTTPServer):
    """Loopback server answering as `replier` and recording every POST; a context manager
    (serves on a daemon thread between enter and exit)."""

    daemon_threads = True

    def __init__(self, replier: CaptureReplier) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replier = replier
        self.requests: list[Recorded] = []
        self._lock = threading.RLock()
        self._arrived = threading.Condition(self._lock)
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>` (agents add their own path, e.g. `/v1`)."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """An agent killed mid-reply (a capture stops it once its request is in, the interactive
        one too) resets its connection: not worth a traceback on the user's terminal."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def record(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        """Keep one request."""
        with self._arrived:
            self.requests.append((path, headers, body))
            self._arrived.notify_all()

    def wait_for_agent_request(self, seconds: float) -> bool:
        """Wait up to `seconds` for the agent's own request; whether it came."""
        with self._arrived:
            return self._arrived.wait_for(lambda: self._found() is not None, timeout=seconds)

    def agent_request(self) -> Recorded | None:
        """The first request the agent calls its own."""
        with self._lock:
            return self._found()

    def _found(self) -> Recorded | None:
        for path, headers, body in self.requests:
            if self.replier.is_agent_request(path, body):
                return path, headers, body
        return None

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
