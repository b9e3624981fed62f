"""A real Ray cluster on this machine for tests and benchmarks: a head and worker nodes, each a
`ray start --block` process in its own process group, nothing reaching past loopback.

Network rule: `RAY_USAGE_STATS_ENABLED=0` and `--disable-usage-stats`, the dashboard off, every
node's IP 127.0.0.1 (`--node-ip-address`). Ray 2.60 turns a *given* 127.0.0.1 into the address
it finds by probing 8.8.8.8 (`resolve_ip_for_localhost`) unless
`RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`, which the head runs with; `ray start` refuses to start a
worker node so, so each node's `ray start` runs with Ray's address lookup pinned to 127.0.0.1
(`LOOPBACK_START`). `connections()` lists every socket of every process of the cluster, so a
test can check that none leads past loopback. Teardown kills the processes of the sessions this module started (by
id, never by name) and waits until they are gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# `ray start`, with this machine's address pinned to 127.0.0.1: Ray 2.60 turns a given
# 127.0.0.1 (the head's address, --node-ip-address) into the address it finds by probing an
# outside one (8.8.8.8, `services.get_node_ip_address`) whenever multi-node clusters are on
LOOPBACK_START = (
    "import sys, ray._private.services as s\n"
    "s.get_node_ip_address = lambda address=None: '127.0.0.1'\n"
    "from ray.scripts.scripts import main\n"
    "sys.argv[0] = 'ray'\n"
    "sys.exit(main())\n"
)
QUIET = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_raylet_start_wait_time_s": "120",
    "RAY_worker_register_timeout_seconds": "300",  # a worker process starts slowly on 2 cores
}
LOOPBACK_HOSTS = ("127.", "::1", "::ffff:127.")
STARTS = 3


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def session_pids(sessions: set[int]) -> set[int]:
    """Every live process (zombies left out) in one of `sessions`."""
    import psutil

    found: set[int] = set()
    for proc in psutil.process_iter(["pid", "status"]):
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if proc.info["status"] != psutil.STATUS_ZOMBIE and os.getsid(proc.pid) in sessions:
                found.add(proc.pid)
    return found


@dataclass
class Node:
    """One `ray start --block` process (its own process group)."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """SIGKILL every process of the node at once: its session (`ray start` was started in
        a new one; Ray puts each worker process in a process group of its own, in the same
        session). The agent sessions a worker started die with it (`PR_SET_PDEATHSIG`)."""
        for pid in session_pids({self.proc.pid}):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)


@dataclass
class LocalCluster:
    """A head (`nodes[0]`) and worker nodes; `address` is the GCS at 127.0.0.1."""

    port: int
    temp: Path
    nodes: list[Node] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start_node(self, name: str, slots: int, env: dict[str, str], *, head: bool) -> Node:
        args = [
            sys.executable,
            "-c",
            LOOPBACK_START,
            "start",
            "--block",
            "--disable-usage-stats",
            "--num-cpus",
            "1",
            "--resources",
            json.dumps({"agent_slot": slots}),
            "--object-store-memory",
            str(80 * 1024 * 1024),
        ]
        # the agents' ports given: the raylet then waits (a fixed 15 s in Ray 2.60) only for
        # the dashboard agent's listen port, not for three port files
        args += ["--dashboard-agent-grpc-port", str(free_port())]
        args += ["--runtime-env-agent-port", str(free_port())]
        args += ["--metrics-export-port", str(free_port())]
        args += ["--dashboard-agent-listen-port", str(free_port())]
        # fewer Python processes starting beside the agent: no log monitor, no autoscaler
        args += ["--include-log-monitor=false", "--no-monitor"]
        # the fake CLIs' FAKE_* switches reach the sessions by name, as in tests/conftest.py (a
        # module-scoped cluster starts before that per-test setting)
        node_env = {**os.environ, **QUIET, "SKILLBENCH_PASS_ENV": "FAKE_*", **env}
        node_env.pop("RAY_ADDRESS", None)
        if head:
            args += [
                "--head",
                "--node-ip-address",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--include-dashboard=false",
                "--temp-dir",
                str(self.temp),
            ]
            node_env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
        else:
            args += ["--address", self.address, "--node-ip-address", "127.0.0.1"]
        log = self.temp.parent / f"{self.temp.name}-{name}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                args, env=node_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        node = Node(name, proc, log)
        self.nodes.append(node)
        return node

    def pids(self) -> set[int]:
        """Every live process of the nodes (their sessions)."""
        return session_pids({node.proc.pid for node in self.nodes})

    def connections(self) -> list[tuple[int, str]]:
        """(pid, remote host) of every inet socket of the cluster's processes with a peer."""
        import psutil

        found: list[tuple[int, str]] = []
        for pid in self.pids():
            with contextlib.suppress(psutil.Error):
                for conn in psutil.Process(pid).net_connections(kind="inet"):
                    if conn.raddr:
                        found.append((pid, conn.raddr.ip))
        return found

    def stop(self) -> None:
        """Kill every node's process group (workers first) and wait until none is left."""
        for node in reversed(self.nodes):
            node.kill()
        deadline = time.monotonic() + 30
        while self.pids() and time.monotonic() < deadline:
            for pid in self.pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)


def non_loopback(connections: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The connections whose peer is not a loopback address."""
    return [(pid, host) for pid, host in connections if not host.startswith(LOOPBACK_HOSTS)]


def wait_for_nodes(address: str, count: int, timeout: float) -> None:
    """Block until `count` nodes with agent slots are alive (the caller is `ray.init`-ed)."""
    import ray

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = [n for n in ray.nodes() if n.get("Alive") and n["Resources"].get("agent_slot")]
        if len(alive) >= count:
            return
        time.sleep(0.5)
    raise TimeoutError(f"{count} Ray nodes not up at {address} within {timeout:.0f} s")


def announce_agent(node: Node, done: set[str]) -> None:
    """Write, for each raylet of `node`, the port file its dashboard agent writes once up, with
    the value a minimal install's agent writes (-1: no HTTP service). Ray 2.60's raylet waits a
    fixed 15 s for that file (node_manager.cc, `WaitForPersistedPort`) and then aborts; on a
    loaded 2-core machine the agent's Python start takes longer. The other agent ports are given
    on the command line, so the raylet waits for no other file; the agent, once up, writes the
    same file again."""
    import psutil
    from ray._raylet import DASHBOARD_AGENT_LISTEN_PORT_NAME, persist_port

    for proc in psutil.process_iter(["pid", "cmdline"]):
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            argv = proc.info["cmdline"] or []
            if not argv or not argv[0].endswith("/raylet") or os.getsid(proc.pid) != node.proc.pid:
                continue
            flags = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--") and "=" in a)
            node_id, session = flags.get("node_id"), flags.get("session_dir")
            if node_id and session and node_id not in done:
                persist_port(session, node_id, DASHBOARD_AGENT_LISTEN_PORT_NAME, -1)
                done.add(node_id)


def gave_up(node: Node, since: float) -> bool:
    """Whether a raylet log written since `since` says it gave up waiting for an agent."""
    logs = node.log.parent.glob(
        f"{node.log.name.rsplit('-', 1)[0]}/session_latest/logs/raylet*.out"
    )
    return any(
        log.stat().st_mtime >= since
        and "Timed out waiting for file" in log.read_text(errors="replace")
        for log in logs
    )


def wait_for_started(node: Node, timeout: float) -> None:
    """Block until `ray start` says the node runs (its log), watching the file rather than
    asking Ray, which would compete for the CPU of a small machine."""
    deadline = time.monotonic() + timeout
    started = time.time()
    announced: set[str] = set()
    while "Ray runtime started" not in node.log.read_text(errors="replace"):
        announce_agent(node, announced)
        if gave_up(node, started):
            raise RuntimeError(f"the raylet of {node.name} gave up on its dashboard agent")
        if node.proc.poll() is not None:
            raise RuntimeError(
                f"ray start ({node.name}) exited: {node.log.read_text(errors='replace')[-3000:]}"
            )
        if time.monotonic() > deadline:
            raise TimeoutError(f"Ray node {node.name} not up within {timeout:.0f} s")
        time.sleep(0.2)


def start_with_retries(
    cluster: LocalCluster, name: str, slots: int, env: dict[str, str], timeout: float
) -> None:
    """Start node `name`, again (up to `STARTS` times) when its raylet gave up on its dashboard
    agent: Ray 2.60's raylet waits a fixed 15 s for the agent's port file, and on a loaded
    2-core machine the agent's Python start can take longer."""
    for attempt in range(1, STARTS + 1):
        node = cluster.start_node(name, slots, env, head=name == "head")
        try:
            wait_for_started(node, timeout)
            return
        except RuntimeError:
            cluster.nodes.remove(node)
            node.kill()
            node.log.unlink(missing_ok=True)
            if attempt == STARTS:
                raise


def connect(cluster: LocalCluster, timeout: float) -> None:
    """`ray.init` this process once the head's raylet has registered (the GCS answers first)."""
    import ray

    deadline = time.monotonic() + timeout
    while True:
        try:
            ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
            return
        except ConnectionError:
            head = cluster.nodes[0]
            if head.proc.poll() is not None:
                raise RuntimeError(
                    f"the Ray head exited: {head.log.read_text(errors='replace')[-3000:]}"
                ) from None
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


@contextlib.contextmanager
def local_cluster(
    slots: tuple[int, ...], env: dict[str, dict[str, str]] | None = None, timeout: float = 300
) -> Iterator[LocalCluster]:
    """A head with `slots[0]` agent slots and one worker node per further entry; `env[name]`
    adds variables to node `head`, `worker1`, …; the driver (this process) is connected."""
    import ray
    import ray._private.ray_constants as constants

    temp = Path(tempfile.mkdtemp(prefix="sbr", dir="/tmp"))  # short: unix socket paths
    cluster = LocalCluster(free_port(), temp)
    env = env or {}
    try:
        for index, count in enumerate(slots):  # one at a time: a 2-core machine
            name = "head" if index == 0 else f"worker{index}"
            start_with_retries(cluster, name, count, env.get(name, {}), timeout)
        os.environ.update(QUIET)
        constants.ENABLE_RAY_CLUSTER = False  # the driver keeps 127.0.0.1 as given
        connect(cluster, timeout)
        try:
            wait_for_nodes(cluster.address, len(slots), timeout)
        finally:
            ray.shutdown()
        yield cluster
    finally:
        with contextlib.suppress(Exception):
            ray.shutdown()
        cluster.stop()
        import shutil

        shutil.rmtree(temp, ignore_errors=True)
        for node in cluster.nodes:
            node.log.unlink(missing_ok=True)
