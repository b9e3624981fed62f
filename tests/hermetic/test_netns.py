"""The network namespace: inside it, only the bridged port reaches the outside (a loopback
listener on another port does not), and the bridge carries bytes both ways."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from skillbench.hermetic.netns import UnixBridge, namespace_prefix, namespace_problem

pytestmark = pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem()))

PROBE = """
import socket, sys
for port in map(int, sys.argv[1:]):
    try:
        s = socket.create_connection(("127.0.0.1", port), 3)
        s.sendall(b"ping")
        print(port, s.recv(16).decode() or "closed")
    except OSError as exc:
        print(port, type(exc).__name__)
"""


def echo_server() -> socket.socket:
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.sendall(b"pong:" + conn.recv(16))
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return server


def test_only_the_bridged_port_is_reachable(tmp_path: Path) -> None:
    api, other = echo_server(), echo_server()
    api_port, other_port = api.getsockname()[1], other.getsockname()[1]
    with UnixBridge(tmp_path / "api.sock", api_port) as bridge:
        prefix = namespace_prefix(bridge.path, api_port)
        argv = [*prefix, sys.executable, "-c", PROBE, str(api_port), str(other_port)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines[str(api_port)] == "pong:ping"
    assert lines[str(other_port)] == "ConnectionRefusedError"
    # outside the namespace the other listener answers: the refusal above is the namespace's
    outside = subprocess.run(
        [sys.executable, "-c", PROBE, str(other_port)], capture_output=True, text=True
    )
    assert "pong:ping" in outside.stdout
    api.close()
    other.close()


def test_none_reaches_nothing(tmp_path: Path) -> None:
    api = echo_server()
    port = api.getsockname()[1]
    argv = [*namespace_prefix(None, None), sys.executable, "-c", PROBE, str(port)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == f"{port} ConnectionRefusedError", done
    api.close()
