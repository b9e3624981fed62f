"""The launcher of a session inside a fresh network namespace (standard library only: it runs as
a script, `unshare -n -- python -I launcher.py [--listen PORT --unix PATH] -- COMMAND…`).

Inside the namespace nothing but a loopback interface exists, and it is down. The launcher
brings `lo` up (an ioctl; no `ip` binary needed), and with `--listen` serves 127.0.0.1:PORT by
forwarding every connection to the Unix socket PATH (a filesystem socket, so it crosses the
namespace boundary), behind which skillbench's bridge reaches the key forwarder: the model API is
the only address the session can reach. Then it runs COMMAND, forwards SIGTERM/SIGINT to it and
exits with its exit code. `--probe` only brings `lo` up and exits 0 (can a namespace be made?).
"""

from __future__ import annotations

import contextlib
import fcntl
import signal
import socket
import struct
import subprocess
import sys
import threading

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
CHUNK = 65536


def loopback_up() -> None:
    """Set the `lo` interface up (needs CAP_NET_ADMIN in the namespace)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy bytes from `source` to `sink` until either side closes."""
    try:
        while data := source.recv(CHUNK):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def splice(client: socket.socket, upstream: socket.socket) -> None:
    """Pump both directions between two connected sockets (two daemon threads)."""
    for a, b in ((client, upstream), (upstream, client)):
        threading.Thread(target=pump, args=(a, b), daemon=True).start()


def serve_to_unix(port: int, path: str) -> None:
    """Accept on 127.0.0.1:`port`, forward each connection to the Unix socket `path`."""
    server = socket.create_server(("127.0.0.1", port))

    def accept() -> None:
        while True:
            client, _ = server.accept()
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(path)
            except OSError:
                client.close()
                upstream.close()
                continue
            splice(client, upstream)

    threading.Thread(target=accept, daemon=True).start()


def main(argv: list[str]) -> int:
    """Parse the launcher's arguments, set the namespace up, run the command."""
    if argv == ["--probe"]:
        loopback_up()
        return 0
    if "--" not in argv:
        sys.stderr.write("launcher: no command after --\n")
        return 2
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    loopback_up()
    if "--listen" in options:
        port = int(options[options.index("--listen") + 1])
        serve_to_unix(port, options[options.index("--unix") + 1])
    proc = subprocess.Popen(command)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda signum, _frame: proc.send_signal(signum))
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
