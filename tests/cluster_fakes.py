"""A loopback stand-in for the Messages API that measures what reaches it: calls in flight now
and at the peak, every call's arrival, and 429s on demand (tests/cluster, benchmarks)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: MockMessagesAPI

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        api = self.server
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        with api.lock:
            api.in_flight += 1
            api.peak = max(api.peak, api.in_flight)
            api.calls.append({"path": self.path, "body": body, "at": time.monotonic()})
            throttle = api.throttle > 0
            if throttle:
                api.throttle -= 1
        try:
            time.sleep(api.delay)
            if throttle:
                data = b'{"type":"error","error":{"type":"rate_limit_error"}}'
                self.send_response(429)
                self.send_header("retry-after", str(api.retry_after))
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("x-mock", "yes")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for event in api.events:
                chunk = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        finally:
            with api.lock:
                api.in_flight -= 1


class MockMessagesAPI(ThreadingHTTPServer):
    """`with MockMessagesAPI(delay=0.2) as api:` serves on 127.0.0.1; `api.url`, `api.peak`."""

    daemon_threads = True

    def __init__(self, delay: float = 0.1, *, throttle: int = 0, retry_after: float = 0.2) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay = delay
        self.throttle = throttle
        self.retry_after = retry_after
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.calls: list[dict[str, Any]] = []
        self.events = [
            {"type": "message_start", "message": {"id": "msg_1", "role": "assistant"}},
            {"type": "content_block_delta", "index": 0, "delta": {"text": "ok"}},
            {"type": "message_stop"},
        ]

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: a client killed mid-call (a node going down) resets its connection."""

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> MockMessagesAPI:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
