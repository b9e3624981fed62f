"""A loopback forwarder that holds the provider key, so that an agent session never does.

An agent session runs code the model chose (a skill's script, a Bash call): whatever is in its
environment can be written somewhere, encoded so that no redaction recognises it. So the session
gets a random dummy key and a base URL on 127.0.0.1, and this forwarder, running in skillbench's
own process, does the rest:

- it accepts only requests carrying one of its dummy keys, in any auth header the providers use
  (`x-api-key`, `Authorization: Bearer`, `x-goog-api-key`, `api-key`); anything else is a 401;
- it replaces each dummy by the real key it stands for and adds the caller's extra headers
  (`ANTHROPIC_CUSTOM_HEADERS`), which the session does not see either;
- it forwards only to the configured upstream base URL (the request path appended to it; an
  absolute-form or `CONNECT` request is refused), through the caller's HTTP(S) proxy and CA
  bundle when set (`SSL_CERT_FILE`, `SSL_CERT_DIR`, `NODE_EXTRA_CA_CERTS`), and streams the
  answer back as it arrives (server-sent events included, bytes untouched).

A key the session never held cannot leak from it, encoded or not; the dummy is worthless anywhere
but at this forwarder, which lives as long as the runner that started it.
"""

from __future__ import annotations

import hmac
import os
import secrets
import ssl
import threading
import urllib.request
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx2

__all__ = ["AUTH_HEADERS", "HOP_BY_HOP", "KeyForwarder", "custom_headers", "dummy_key", "relay"]

#: The request headers that carry a provider key (Anthropic, bearer tokens, Gemini, Azure).
AUTH_HEADERS = ("x-api-key", "authorization", "x-goog-api-key", "api-key")
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
MAX_BODY = 64 * 1024 * 1024
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def dummy_key() -> str:
    """A fresh random stand-in for a key (key-shaped, so an echo of it is redacted too)."""
    return "sk-ant-api03-skillbench-dummy-" + secrets.token_urlsafe(24)


def custom_headers(value: str | None) -> list[tuple[str, str]]:
    """`ANTHROPIC_CUSTOM_HEADERS` (`Name: value` lines) as header pairs."""
    pairs = []
    for line in (value or "").splitlines():
        name, sep, text = line.partition(":")
        if sep and name.strip():
            pairs.append((name.strip(), text.strip()))
    return pairs


def relay(handler: BaseHTTPRequestHandler, response: httpx2.Response) -> None:
    """Send an upstream `response` back through `handler` as it arrives: its status, its
    end-to-end headers (content encoding kept), the body bytes untouched and chunked (none for
    a HEAD request). Shared with the cluster's per-node proxy."""
    handler.send_response(response.status_code)
    for key, value in response.headers.multi_items():
        if key.lower() not in HOP_BY_HOP:
            handler.send_header(key, value)
    handler.send_header("transfer-encoding", "chunked")
    handler.end_headers()
    if handler.command == "HEAD":
        return
    for chunk in response.iter_raw():
        if chunk:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            handler.wfile.flush()
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()


def _ssl_context(environ: Mapping[str, str]) -> ssl.SSLContext:
    """The default trust store plus the caller's CA settings (a corporate gateway's CA)."""
    context = ssl.create_default_context(
        cafile=environ.get("SSL_CERT_FILE") or None, capath=environ.get("SSL_CERT_DIR") or None
    )
    extra = environ.get("NODE_EXTRA_CA_CERTS")
    if extra and os.path.isfile(extra):
        context.load_verify_locations(cafile=extra)
    return context


def _proxy_for(upstream: str) -> str | None:
    """The caller's proxy for `upstream` (none for loopback or a NO_PROXY host)."""
    parts = urlsplit(upstream)
    host = parts.hostname or ""
    if host in LOOPBACK_HOSTS or urllib.request.proxy_bypass(host):
        return None
    return urllib.request.getproxies().get(parts.scheme) or None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: KeyForwarder

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: nothing here needs a log."""

    def _refuse(self, status: int, message: str) -> None:
        body = (
            '{"type":"error","error":{"type":"forbidden","message":"skillbench forwarder: '
            + message
            + '"}}'
        ).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _headers(self) -> list[tuple[str, str]] | None:
        """The request headers with every dummy replaced by its key; None when a request
        carries no dummy, or any auth header holds something else."""
        forwarder = self.server
        out: list[tuple[str, str]] = []
        matched = False
        for name, value in self.headers.items():
            lower = name.lower()
            if lower in HOP_BY_HOP:
                continue
            if lower in AUTH_HEADERS:
                swapped = forwarder.swap(value)
                if swapped is None:
                    return None
                matched, value = True, swapped
            out.append((name, value))
        return [*out, *forwarder.extra_headers] if matched else None

    def _forward(self) -> None:
        if not self.path.startswith("/") or self.path.startswith("//"):
            self._refuse(400, "only paths under the configured base URL are forwarded")
            return
        headers = self._headers()
        if headers is None:
            self._refuse(401, "the request does not carry this session's key")
            return
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            self._refuse(413, "request body too large")
            return
        body = self.rfile.read(length) if length else b""
        forwarder = self.server
        status = 0
        try:
            with forwarder.client.stream(
                self.command, forwarder.upstream + self.path, headers=headers, content=body
            ) as response:
                status = response.status_code
                relay(self, response)
        except httpx2.HTTPError as exc:
            if status == 0:
                self._refuse(502, f"upstream unreachable ({type(exc).__name__})")
            self.close_connection = True
        except OSError:  # the session went away mid-answer
            self.close_connection = True
        with forwarder.lock:
            forwarder.forwarded += 1

    do_POST = _forward
    do_GET = _forward
    do_HEAD = _forward
    do_PUT = _forward
    do_DELETE = _forward
    do_PATCH = _forward


class KeyForwarder(ThreadingHTTPServer):
    """The forwarder for one upstream: `keys` maps each variable name to its real value; the
    session gets `dummies[name]` instead (`session_keys`). Serves on 127.0.0.1 (an ephemeral
    port) in a daemon thread from `start()` until `stop()`."""

    daemon_threads = True

    def __init__(
        self,
        upstream: str,
        keys: Mapping[str, str],
        *,
        extra_headers: list[tuple[str, str]] | None = None,
        environ: Mapping[str, str] | None = None,
        timeout: float = 600.0,
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        source = os.environ if environ is None else environ
        self.upstream = upstream.rstrip("/")
        self.dummies = {name: dummy_key() for name, value in keys.items() if value}
        self._real = {self.dummies[name]: keys[name] for name in self.dummies}
        self.extra_headers = list(extra_headers or [])
        self.client = httpx2.Client(
            timeout=httpx2.Timeout(timeout),
            trust_env=False,  # no .netrc: the proxy and CA are taken explicitly
            proxy=_proxy_for(self.upstream),
            verify=_ssl_context(source),
        )
        self.lock = threading.Lock()
        self.forwarded = 0
        self._thread: threading.Thread | None = None

    def swap(self, value: str) -> str | None:
        """`value` (an auth header) with its dummy replaced by the real key; None when it
        holds none of this forwarder's dummies."""
        for dummy, real in self._real.items():
            if dummy in value:
                token = value.split()[-1] if value.split() else ""
                if hmac.compare_digest(token.encode(), dummy.encode()):
                    return value.replace(dummy, real)
        return None

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`: the session's base URL."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def session_keys(self) -> dict[str, str]:
        """What the session's environment holds instead of the keys: the dummies."""
        return dict(self.dummies)

    def start(self) -> KeyForwarder:
        """Serve in a daemon thread; returns self."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the upstream client."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.server_close()
        self.client.close()
