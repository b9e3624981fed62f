"""The key forwarder (issue 38): a session's dummy key becomes the real one on the way to the
configured upstream only; a request without the dummy, or aimed elsewhere, never leaves; the
answer streams back untouched (server-sent events included)."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from skillbench.backends.key_forwarder import KeyForwarder, custom_headers

REAL = "sk-ant-api03-REALKEY0123456789"
SSE = [b"event: message_start\ndata: {}\n\n", b"event: message_stop\ndata: {}\n\n"]


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        self.server.seen.append((self.path, dict(self.headers.items()), body))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for event in SSE:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


@pytest.fixture
def upstream() -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _post(forwarder: KeyForwarder, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    port = int(forwarder.url.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, body=b'{"q": 1}', headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def test_the_dummy_becomes_the_real_key_on_the_way_to_the_upstream_only(upstream: Any) -> None:
    url = f"http://127.0.0.1:{upstream.server_address[1]}/base"
    headers = custom_headers("X-Team: research\nbroken line")
    forwarder = KeyForwarder(url, {"ANTHROPIC_API_KEY": REAL}, extra_headers=headers).start()
    try:
        dummy = forwarder.session_keys()["ANTHROPIC_API_KEY"]
        assert dummy != REAL and REAL not in dummy
        status, data = _post(forwarder, "/v1/messages?beta=true", {"x-api-key": dummy})
        assert status == 200 and data == b"".join(SSE)  # streamed back as sent
        path, seen, body = upstream.seen[-1]
        assert path == "/base/v1/messages?beta=true" and body == b'{"q": 1}'
        assert seen["x-api-key"] == REAL and seen["X-Team"] == "research"
        # a request without the dummy, or with another key, never leaves
        before = len(upstream.seen)
        assert _post(forwarder, "/v1/messages", {})[0] == 401
        assert _post(forwarder, "/v1/messages", {"x-api-key": REAL})[0] == 401
        assert (
            _post(forwarder, "/v1/messages", {"x-api-key": dummy, "authorization": "x"})[0] == 401
        )
        # nor does one aimed at another host
        assert _post(forwarder, "http://example.org/v1/messages", {"x-api-key": dummy})[0] == 400
        assert len(upstream.seen) == before
    finally:
        forwarder.stop()


def test_a_bearer_token_is_swapped_in_its_own_header(upstream: Any) -> None:
    url = f"http://127.0.0.1:{upstream.server_address[1]}"
    forwarder = KeyForwarder(url, {"OPENAI_API_KEY": "sk-proj-REAL"}).start()
    try:
        dummy = forwarder.session_keys()["OPENAI_API_KEY"]
        status, _ = _post(forwarder, "/responses", {"Authorization": f"Bearer {dummy}"})
        assert status == 200
        assert upstream.seen[-1][1]["Authorization"] == "Bearer sk-proj-REAL"
    finally:
        forwarder.stop()
