"""A loopback TCP listener standing for the internet in the hermetic tests: it counts the
connections it accepts (a session confined to `api-only` must never reach it)."""

from __future__ import annotations

import socket
import threading


class Listener:
    """Listens on 127.0.0.1 (an ephemeral port) in a daemon thread until `close()`."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def probe(self) -> str:
        """A shell command that connects to the listener and prints REACHED when it can."""
        code = f"import socket; socket.create_connection(('127.0.0.1', {self.port}), 3); print('REACHED')"
        return f'python3 -c "{code}"'

    def close(self) -> None:
        self.sock.close()
