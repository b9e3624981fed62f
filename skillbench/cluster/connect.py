"""`--cluster`: which cluster, checked before any work, and the session that places runs on it.

`--cluster ray` (or `$SKILLBENCH_CLUSTER=ray`) joins the running cluster at `$RAY_ADDRESS`
(`host:port` of its head); `--cluster auto` starts a local one on this machine (loopback only,
`agent_slot`s from `slots.this_machine_slots`) and stops it at the end; `none` (or nothing) runs
on this machine as always. Every problem — the `ray` extra missing, no address, nothing answering
there, no `agent_slot` declared — is an InputError (exit 2) naming the fix, raised before a
workspace is touched or a session started.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from skillbench.backends.placement import placed
from skillbench.errors import InputError
from skillbench.extras import needs_extra

CLUSTER_ENV = "SKILLBENCH_CLUSTER"
ADDRESS_ENV = "RAY_ADDRESS"
CHOICES = ("ray", "auto", "none")
DEFAULT_CALLS = 8
CONNECT_TIMEOUT = 5.0
LOOPBACK = "127.0.0.1"
NAMESPACE = "skillbench"


def cluster_choice(option: str | None) -> str | None:
    """`ray`, `auto` or None (this machine): the option, else `$SKILLBENCH_CLUSTER`."""
    where = "--cluster"
    raw = option
    if raw is None:
        raw, where = os.environ.get(CLUSTER_ENV, ""), f"${CLUSTER_ENV}"
    value = raw.strip().lower()
    if value in ("", "none", "off"):
        return None
    if value not in CHOICES:
        raise InputError(
            f"unknown cluster {raw!r}: ray (the cluster at ${ADDRESS_ENV}), auto (start one on "
            "this machine) or none",
            path=where,
        )
    return value


def _require_ray() -> Any:
    try:
        import ray
    except ModuleNotFoundError:
        raise InputError(needs_extra("ray", "ray", "--cluster"), path="--cluster") from None
    return ray


def _address() -> str:
    address = os.environ.get(ADDRESS_ENV, "").strip()
    if not address:
        raise InputError(
            f"--cluster ray joins the cluster at ${ADDRESS_ENV}, which is not set: set it to the "
            "head's host:port (e.g. 10.0.0.5:6379) or use --cluster auto for one on this machine",
            path=f"${ADDRESS_ENV}",
        )
    if address.startswith("ray://"):
        raise InputError(
            "Ray Client addresses (ray://) are not supported: run skillbench on a node of the "
            "cluster (the head, or a KubeRay submitter pod) with the GCS address host:port",
            path=f"${ADDRESS_ENV}",
        )
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host or LOOPBACK, int(port)), timeout=CONNECT_TIMEOUT):
            pass
    except (OSError, ValueError):
        raise InputError(
            f"no Ray cluster answers at {address}: start its head (`ray start --head "
            "--resources '{\"agent_slot\": N}'`, docs/cluster.md) or fix the address",
            path=f"${ADDRESS_ENV}",
        ) from None
    return address


def _on_loopback(address: str | None) -> bool:
    host = (address or "").rpartition(":")[0].strip("[]")
    return host in ("127.0.0.1", "localhost", "::1")


def _quiet_env() -> None:
    """Nothing about the cluster leaves it: no usage report (Ray's default otherwise)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


@dataclass
class ClusterSession:
    """A connected cluster and the placer (`backends.placement.Placer`) that uses it."""

    slots: int
    nodes: int
    limiter: Any
    started_here: bool
    run: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    submitted: int = 0

    @property
    def place(self) -> dict[str, Any]:
        """What every task needs to find its node's proxy (the wrapper adds the `upstream` its
        sessions call: one proxy per node and upstream)."""
        return {"run": self.run, "limiter": self.limiter}

    def judge(self, judge: Any) -> Any:
        """The judge, its sessions run on the cluster."""
        from skillbench.cluster.remote import RayJudge

        return RayJudge(judge, self)

    def executor(self, executor: Any) -> Any:
        """The executor, its runs made on the cluster."""
        from skillbench.cluster.remote import RayExecutor

        return RayExecutor(executor, self)

    def workers(self, asked: int) -> int:
        """Runs in flight from the driver: every slot filled and one more per slot queued at
        Ray's scheduler, so a slot that frees starts its next session without a round trip to
        the driver (the cap of MAX_WORKERS)."""
        from skillbench.limits import MAX_WORKERS

        return min(MAX_WORKERS, max(asked, 2 * self.slots))

    def stats(self) -> dict[str, Any]:
        """The limiter's figures: window, peak of calls in flight, grants, 429/529 seen."""
        import ray

        found: dict[str, Any] = ray.get(self.limiter.stats.remote())
        return found

    def close(self) -> None:
        """End this run's proxies and disconnect (stopping the cluster `auto` started)."""
        import ray

        from skillbench.cluster.proxy import stop_proxies

        try:
            stop_proxies(self.run)
        finally:
            ray.shutdown()


def connect(choice: str, *, calls: int = DEFAULT_CALLS) -> ClusterSession:
    """Join (`ray`) or start (`auto`) the cluster and create its limiter; InputError (exit 2)
    naming the fix when that cannot be done."""
    from skillbench.limits import MAX_WORKERS, check_int

    check_int(calls, "--cluster-calls", 1, 16 * MAX_WORKERS)
    _quiet_env()
    address = _address() if choice == "ray" else None
    if choice == "auto":
        # a one-machine cluster: Ray takes its node address as given (127.0.0.1) instead of
        # probing an outside address to find one (it does so for multi-node clusters)
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        os.environ.pop(ADDRESS_ENV, None)
    ray = _require_ray()
    if choice == "auto" or _on_loopback(address):
        # everything on this machine: Ray (2.60) would otherwise turn 127.0.0.1 into the address
        # it finds by probing an outside one (8.8.8.8); this keeps the driver on loopback
        import ray._private.ray_constants as constants

        constants.ENABLE_RAY_CLUSTER = False
    from skillbench.cluster.slots import this_machine_slots

    options: dict[str, Any] = {
        "logging_level": logging.WARNING,
        "log_to_driver": False,
        "namespace": NAMESPACE,  # the proxies are named, detached actors (`proxy.node_proxy`)
    }
    if choice == "auto":
        options.update(
            num_cpus=max(1, os.cpu_count() or 1),
            resources={"agent_slot": this_machine_slots()},
            include_dashboard=False,
            _node_ip_address=LOOPBACK,
        )
    try:
        ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, TimeoutError) as exc:
        raise InputError(
            f"could not join the Ray cluster at {address or 'a new local one'}: {exc}",
            path=f"${ADDRESS_ENV}" if address else "--cluster",
        ) from None
    try:
        resources = ray.cluster_resources()
        slots = int(resources.get("agent_slot", 0))
        if slots < 1:
            raise InputError(
                "the Ray cluster declares no agent_slot: start each node with --resources "
                "'{\"agent_slot\": N}' (docs/cluster.md: one per 0.5 GB, at most 2 per core)",
                path=f"${ADDRESS_ENV}",
            )
        from skillbench.cluster.limiter import create_limiter

        limiter = create_limiter(calls)
        ray.get(limiter.stats.remote(), timeout=120)
        nodes = sum(1 for n in ray.nodes() if n.get("Alive") and n["Resources"].get("agent_slot"))
    except BaseException:
        ray.shutdown()
        raise
    return ClusterSession(slots, nodes, limiter, started_here=choice == "auto")


@contextlib.contextmanager
def open_cluster(
    choice: str | None, *, calls: int = DEFAULT_CALLS
) -> Iterator[ClusterSession | None]:
    """The cluster for a command (None: this machine); sessions placed on it inside the block."""
    if choice is None:
        yield None
        return
    session = connect(choice, calls=calls)
    try:
        with placed(session):
            yield session
    finally:
        session.close()
