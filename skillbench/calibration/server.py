"""The labelling page: a standard-library HTTP server on 127.0.0.1 serving one HTML page and two
JSON endpoints (`GET /api/state`, `POST /api/label`). Every text reaches the page through
`textContent`, never as HTML; a request from another origin is refused."""

from __future__ import annotations

import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from typing import Any

from skillbench.calibration.session import LabelSession

MAX_BODY = 4096


def page_html() -> bytes:
    """The page (skillbench/calibration/label_page.html)."""
    return files("skillbench.calibration").joinpath("label_page.html").read_bytes()


class _Handler(BaseHTTPRequestHandler):
    session: LabelSession
    server_version = "skillbench-label"

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: the terminal shows the URL only

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
            "connect-src 'self'",
        )
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), "application/json")

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/":
            self._send(HTTPStatus.OK, page_html(), "text/html; charset=utf-8")
        elif path == "/api/state":
            self._json(HTTPStatus.OK, self.session.state())
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/api/label":
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return
        if self.headers.get("Content-Type", "").split(";")[0] != "application/json":
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "send application/json"})
            return
        size = int(self.headers.get("Content-Length") or 0)
        if size <= 0 or size > MAX_BODY:
            self._json(HTTPStatus.BAD_REQUEST, {"error": "bad body"})
            return
        try:
            body = json.loads(self.rfile.read(size))
            state = self.session.answer(str(body["id"]), str(body["answer"]))
        except (ValueError, KeyError, TypeError):
            self._json(HTTPStatus.BAD_REQUEST, {"error": "unknown item or answer"})
            return
        self._json(HTTPStatus.OK, state)


def make_server(session: LabelSession, port: int = 0) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1:`port` (0 picks a free port) serving `session`."""
    handler = type("LabelHandler", (_Handler,), {"session": session})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server
