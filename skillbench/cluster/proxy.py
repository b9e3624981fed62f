"""A loopback HTTP proxy per node: the sessions' API calls go through it, and it asks the
cluster's limiter for a slot before forwarding each one.

The CLI cannot be told about a limiter, but it can be pointed elsewhere: a session's provider
base URL is its key forwarder on the node (`backends.key_forwarder`), and that forwarder's
upstream is this proxy (`http://127.0.0.1:<port>`), whatever the agent (each backend's
`on_node` sets it). One proxy per node and upstream. Each request is held until the limiter
grants a lease, forwarded to the upstream (the provider base URL the driver's sessions would
have called, by default the Anthropic API) with its headers and body unchanged, and the answer
is streamed back
as it arrives (server-sent events included, body bytes untouched, content encoding kept). The
lease goes back, with the answer's status and headers, once the answer has been read to its end
or the call failed. The proxy listens on 127.0.0.1 only.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

import httpx2

from skillbench.backends.key_forwarder import HOP_BY_HOP, relay

DEFAULT_UPSTREAM = "https://api.anthropic.com"
MAX_BODY = 64 * 1024 * 1024


class Gate(Protocol):
    """What the proxy asks before a call: a lease, given back with the answer."""

    def acquire(self) -> int:
        """Block until a slot is free; the lease id."""
        ...

    def release(self, lease: int, status: int, headers: Mapping[str, str]) -> None:
        """Give the slot back with the answer's status (0: none) and headers."""
        ...


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LimitedProxy

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a request line may carry nothing secret, but nothing needs it either."""

    def _forward(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            self.send_error(413, "request body too large for the skillbench proxy")
            return
        body = self.rfile.read(length) if length else b""
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP]
        proxy = self.server
        lease = proxy.gate.acquire()
        status = 0
        answer: Mapping[str, str] = {}
        try:
            with proxy.client.stream(
                self.command, proxy.upstream + self.path, headers=headers, content=body
            ) as response:
                status, answer = response.status_code, response.headers
                relay(self, response)
        except httpx2.HTTPError as exc:
            if status == 0:
                self.send_error(
                    502, f"skillbench proxy: upstream unreachable ({type(exc).__name__})"
                )
            self.close_connection = True
        finally:
            proxy.gate.release(lease, status, dict(answer))
            with proxy.lock:
                proxy.forwarded += 1

    do_POST = _forward
    do_GET = _forward
    do_PUT = _forward
    do_DELETE = _forward
    do_PATCH = _forward


class LimitedProxy(ThreadingHTTPServer):
    """The proxy: `start()` serves on 127.0.0.1 (an ephemeral port) in a daemon thread."""

    daemon_threads = True

    def __init__(self, gate: Gate, upstream: str | None = None, *, timeout: float = 600.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.gate = gate
        self.upstream = (upstream or DEFAULT_UPSTREAM).rstrip("/")
        self.client = httpx2.Client(timeout=httpx2.Timeout(timeout), trust_env=False)
        self.lock = threading.Lock()
        self.forwarded = 0
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`: where the sessions' key forwarders forward."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> LimitedProxy:
        """Serve in a daemon thread; returns self."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the upstream client."""
        self.shutdown()
        self.server_close()
        self.client.close()


class ActorGate:
    """A `Gate` over the cluster's limiter actor, for the proxy of node `node`."""

    def __init__(self, limiter: Any, node: str) -> None:
        self.limiter = limiter
        self.node = node

    def acquire(self) -> int:
        """Blocks this request's thread until the actor grants a lease."""
        import ray

        lease: int = ray.get(self.limiter.acquire.remote(self.node))
        return lease

    def release(self, lease: int, status: int, headers: Mapping[str, str]) -> None:
        """Fire and forget: the next request on this node need not wait for the actor."""
        self.limiter.release.remote(lease, status, dict(headers))


class ProxyActor:
    """The per-node actor holding a `LimitedProxy` whose gate is the cluster's limiter."""

    def __init__(self, limiter: Any, upstream: str | None) -> None:
        import ray

        node = ray.get_runtime_context().get_node_id()
        self.proxy = LimitedProxy(ActorGate(limiter, node), upstream).start()

    def url(self) -> str:
        """The proxy's loopback URL on this node."""
        return self.proxy.url


def proxy_prefix(run: str) -> str:
    """The start of the actor names of run `run`'s proxies."""
    return f"skillbench-proxy-{run}-"


def proxy_name(run: str, node: str, upstream: str | None) -> str:
    """The actor name of node `node`'s proxy to `upstream` in run `run` (one per node, upstream
    and driver session: a run whose backends call two providers has two on a node)."""
    digest = hashlib.sha256((upstream or DEFAULT_UPSTREAM).encode("utf-8")).hexdigest()[:12]
    return f"{proxy_prefix(run)}{node}-{digest}"


def node_proxy(run: str, node: str, limiter: Any, upstream: str | None) -> Any:
    """The proxy actor of `node` to `upstream` in this run, created on that node the first
    time."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    actor = ray.remote(num_cpus=0, max_restarts=0)(ProxyActor)
    return actor.options(
        name=proxy_name(run, node, upstream),
        get_if_exists=True,
        # detached: a task's worker process creates it, and Ray ends idle worker processes
        # (with the actors they own); the driver ends it at the end of the run (`stop_proxies`)
        lifetime="detached",
        scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
    ).remote(limiter, upstream)


def stop_proxies(run: str) -> int:
    """End the proxies of run `run` (the driver, at its end); how many there were."""
    import ray
    from ray.util import list_named_actors

    ended = 0
    for name in list_named_actors():
        if name.startswith(proxy_prefix(run)):
            try:
                ray.kill(ray.get_actor(name))
                ended += 1
            except ValueError:  # gone meanwhile
                continue
    return ended
