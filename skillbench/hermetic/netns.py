"""Network confinement of a session: a Linux network namespace (`unshare -n`) holding only a
loopback interface; under `api-only` one port of it leads to the model API.

The session runs under `launcher.py` inside the namespace. Under `api-only` the launcher listens
on the same loopback port as the key forwarder outside (so the session's `ANTHROPIC_BASE_URL`
is unchanged) and forwards each connection through a Unix socket to `UnixBridge`, which connects
to the forwarder. Any other address — another loopback port, the internet — is unreachable:
the namespace has no route. `none` gives the namespace no bridge at all.

Where no namespace can be made (not Linux, no `unshare`, no privilege), `namespace_problem()`
says why, and a run asking for a confined network is refused before it starts (exit 2).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from skillbench.hermetic import launcher

__all__ = ["UnixBridge", "loopback_port", "namespace_prefix", "namespace_problem"]

LAUNCHER = Path(launcher.__file__)


@functools.cache
def namespace_problem() -> str | None:
    """Why no network namespace can be made here (None when one can: probed once)."""
    if not sys.platform.startswith("linux"):
        return f"network namespaces need Linux (this is {sys.platform})"
    unshare = shutil.which("unshare")
    if unshare is None:
        return "`unshare` (util-linux) is not on PATH"
    probe = [unshare, "-n", "--", sys.executable, "-I", str(LAUNCHER), "--probe"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`unshare -n` failed: {type(exc).__name__}"
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no message"])[-1][:200]
        return (
            f"`unshare -n` failed (exit {done.returncode}: {tail}); it needs root or CAP_SYS_ADMIN"
        )
    return None


def loopback_port(url: str) -> int | None:
    """The port of a plain-HTTP loopback URL (the key forwarder's, a local mock's), else None."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost"):
        return None
    return parts.port or 80


def namespace_prefix(socket_path: Path | None, port: int | None) -> list[str]:
    """The argv prefix running a command in a new namespace (a bridge to `port` when given)."""
    unshare = shutil.which("unshare") or "unshare"
    prefix = [unshare, "-n", "--", sys.executable, "-I", str(LAUNCHER)]
    if socket_path is not None and port is not None:
        prefix += ["--listen", str(port), "--unix", str(socket_path)]
    return [*prefix, "--"]


class UnixBridge:
    """A Unix socket whose every connection is spliced to 127.0.0.1:`port` (outside the
    namespace); a context manager, one accept thread."""

    def __init__(self, path: Path, port: int) -> None:
        self.path = path
        self.port = port
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._thread: threading.Thread | None = None
        self._stopping = False

    def start(self) -> UnixBridge:
        """Bind (owner-only) and start accepting."""
        self._server.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self._server.listen(64)
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()
        return self

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if self._stopping:
                client.close()
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.port), timeout=30)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            launcher.splice(client, upstream)

    def stop(self) -> None:
        """Stop accepting (a last connection wakes the accept thread) and remove the socket."""
        self._stopping = True
        if self._thread is not None:
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as wake:
                wake.connect(str(self.path))
        self._server.close()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> UnixBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
