"""Sessions as Ray tasks: a judge or executor whose calls run on the cluster's nodes.

`RayExecutor` and `RayJudge` keep the wrapped object's name, model and identity (computed on
the driver, so cache keys are the single-machine ones) and send each call to `run_session`, a
Ray task needing one `agent_slot`. On the node the task finds (or makes) the node's proxy to the
provider the wrapped object calls (`api_upstream`), takes the object's copy for the node
(`placement.NodeSessions.on_node`: the node's CLI, whose version must be the driver's, and a key
forwarder sending the provider calls to that proxy; which variable or configuration file points
the agent there is the backend's business), unpacks the skill folder and input files, and runs
the unchanged single-machine code (`execute` / `judge`) there. The result
comes back to the driver, which alone caches and writes it: a task Ray retries after its node
died returns one result, written once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillbench.backends.base import TriggerOutcome, TriggerRequest
from skillbench.behavior.executors import RunTask, failed_result
from skillbench.behavior.run_files import ExecutionResult
from skillbench.cluster.payload import Packed, Shipper, unpack
from skillbench.errors import BackendError

SLOT = "agent_slot"
MAX_RETRIES = 3  # system failures (a node or worker died) only: a session's own error is a result
_node_cli: dict[str, str] = {}
_node_proxies: dict[tuple[str, str, str | None], tuple[Any, str]] = {}
_scratch: list[Path] = []


class ProxyLost(RuntimeError):
    """The node's proxy died during the session (its node is going down): Ray retries the task
    (`retry_exceptions`), on a node still alive."""


class NodeSetupError(BackendError):
    """A node cannot run sessions (no pinned CLI, another CLI version): one line naming the fix."""


def _node_scratch() -> Path:
    from skillbench.backends.scratch import make_scratch

    if not _scratch:
        _scratch.append(make_scratch("cluster"))
    return _scratch[0]


def _node_label() -> str:
    """`node <id>` inside a Ray task (never an IP lookup: Ray's probes an outside address)."""
    import ray

    if ray.is_initialized():
        return f"node {ray.get_runtime_context().get_node_id()[:12]}"
    return "this node"


@dataclass(frozen=True)
class Pinned:
    """What a node must run a backend's sessions with, as the driver has it: the CLI (its
    executable's name and version) and the fix naming the pinned package, both from the
    backend's spec (`cli`, `cli_make_target`, `cli_package`)."""

    cli: str
    version: str
    fix: str

    @classmethod
    def of(cls, inner: Any) -> Pinned:
        """The driver's CLI of `inner` (a `placement.NodeSessions`) and its backend's fix."""
        from skillbench.backends.registry import known_spec

        spec = known_spec(inner.name)
        cli = (spec.cli if spec is not None else None) or inner.name
        if spec is not None and spec.cli_make_target:
            fix = f"run `make {spec.cli_make_target}` there (the pinned {spec.cli_package})"
        elif spec is not None and spec.cli_package:
            fix = f"install the pinned {spec.cli_package} there"
        else:
            fix = f"install the {cli} CLI there"
        return cls(cli, inner.version(), fix)


def node_runner(runner: Any, pinned: Pinned, api_url: str) -> Any:
    """`runner`'s copy for this node (`NodeSessions.on_node`: this node's CLI, its provider calls
    sent to `api_url`), its CLI the driver's version; else NodeSetupError naming the fix."""
    try:
        local = runner.on_node(api_url, _node_cli)
    except (BackendError, subprocess.SubprocessError) as exc:
        raise NodeSetupError(f"{_node_label()}: {_one_line(exc)}: {pinned.fix}") from None
    found = local.version()
    if found != pinned.version:
        raise NodeSetupError(
            f"{_node_label()} has {pinned.cli} CLI {found}, the driver {pinned.version}: "
            f"{pinned.fix}"
        )
    return local


def _fetch(packed: Packed) -> Path:
    import ray

    return unpack(packed, ray.get(packed.ref), _node_scratch())


def _local_task(task: RunTask, skill: Packed | None, files: tuple[Packed, ...]) -> RunTask:
    source = task.skill
    if source is not None and skill is not None:
        source = dataclasses.replace(source, folder=_fetch(skill), folder_name=source.cli_name)
    local_files = tuple((rel, _fetch(p)) for (rel, _), p in zip(task.files, files, strict=True))
    return dataclasses.replace(task, skill=source, files=local_files)


def _local_request(request: TriggerRequest, folders: dict[str, Packed]) -> TriggerRequest:
    def entry(skill: Any) -> Any:
        packed = folders.get(skill.folder) if skill.folder else None
        return skill if packed is None else dataclasses.replace(skill, folder=str(_fetch(packed)))

    return dataclasses.replace(
        request, target=entry(request.target), catalog=tuple(entry(s) for s in request.catalog)
    )


def run_session(
    kind: str, runner: Any, pinned: Pinned, call: Any, shipped: Any, place: dict[str, Any]
) -> tuple[Any, list[str]]:
    """The Ray task: one session on this node, through this node's proxy. Returns the result
    (or outcome) and the runner's notes."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    proxy, url = _proxy_of(place, node)
    local = node_runner(runner, pinned, url)

    async def go() -> Any:
        try:
            if kind == "execute":
                return await local.execute(_local_task(call, *shipped))
            return await local.judge(_local_request(call, shipped))
        finally:
            await local.aclose()

    result = asyncio.run(go())
    if _failed(result):
        try:  # a session that failed because its node is dying is not the session's failure
            ray.get(proxy.url.remote(), timeout=30)
        except Exception:
            _node_proxies.pop((place["run"], node, place["upstream"]), None)  # a retry: anew
            raise ProxyLost(f"the proxy of node {node[:12]} died during the session") from None
    return result, list(getattr(local, "notes", []))


def _proxy_of(place: dict[str, Any], node: str) -> tuple[Any, str]:
    """This node's proxy to the run's upstream and its URL, looked up once per worker process (a
    named actor lookup and a call to it at every session cost CPU that paced sessions lack)."""
    import ray

    from skillbench.cluster.proxy import node_proxy

    key = (place["run"], node, place["upstream"])
    found = _node_proxies.get(key)
    if found is None:
        proxy = node_proxy(place["run"], node, place["limiter"], place["upstream"])
        found = _node_proxies[key] = (proxy, ray.get(proxy.url.remote()))
    return found


def _failed(result: Any) -> bool:
    return getattr(result, "status", None) == "error" or bool(getattr(result, "error", None))


def _one_line(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None) or exc
    text = str(cause).strip().splitlines()
    return text[-1] if text else type(cause).__name__


class _Remote:
    """What the executor and judge wrappers share: the wrapped object, the cluster, the task."""

    def __init__(self, inner: Any, cluster: Any) -> None:
        self.inner = inner
        self.cluster = cluster
        self.name = inner.name
        self.model = inner.model
        self.pinned = Pinned.of(inner)  # the driver's CLI: every node must run the same
        self.place = {**cluster.place, "upstream": inner.api_upstream()}
        self._ref: Any = None
        self._task: Any = None
        self.shipper = Shipper()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def identity(self) -> dict[str, Any]:
        """The wrapped object's identity: a cluster run shares the single-machine cache keys."""
        identity: dict[str, Any] = self.inner.identity()
        return identity

    async def _submit(self, kind: str, call: Any, shipped: Any) -> tuple[Any, list[str]]:
        import ray

        if self._ref is None:
            self._ref = ray.put(self.inner)
            self._task = ray.remote(run_session).options(
                num_cpus=0,
                resources={SLOT: 1},
                max_retries=MAX_RETRIES,
                retry_exceptions=[ProxyLost],  # and a dead node; a session's own error is a result
            )
        ref = self._task.remote(kind, self._ref, self.pinned, call, shipped, self.place)
        self.cluster.submitted += 1
        found: tuple[Any, list[str]] = await ref
        return found

    async def aclose(self) -> None:
        """Close the wrapped object (its own processes and folders, none on the driver)."""
        await self.inner.aclose()


class RayExecutor(_Remote):
    """An executor whose runs are sessions on the cluster (see the module docstring)."""

    def __init__(self, inner: Any, cluster: Any) -> None:
        super().__init__(inner, cluster)
        self.notes: list[str] = list(getattr(inner, "notes", []))

    async def execute(self, task: RunTask) -> ExecutionResult:
        """Run the task on a node; a node or Ray failure is an error result, never raised."""
        skill = self.shipper.folder(task.skill.folder) if task.skill is not None else None
        files = tuple(self.shipper.file(source) for _, source in task.files)
        try:
            result, notes = await self._submit("execute", task, (skill, files))
        except Exception as exc:
            return failed_result(_one_line(exc), task.prompt)
        self.notes.extend(n for n in notes if n not in self.notes)
        done: ExecutionResult = result
        return done


class RayJudge(_Remote):
    """A trigger judge whose runs are sessions on the cluster (see the module docstring)."""

    def __init__(self, inner: Any, cluster: Any) -> None:
        super().__init__(inner, cluster)
        self.is_proxy = inner.is_proxy

    def versions(self) -> dict[str, str]:
        """The wrapped judge's versions."""
        found: dict[str, str] = self.inner.versions()
        return found

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """Run the request on a node; a node or Ray failure is an error outcome."""
        folders = {
            s.folder: self.shipper.folder(Path(s.folder))
            for s in (request.target, *request.catalog)
            if s.folder
        }
        try:
            outcome, _ = await self._submit("judge", request, folders)
        except Exception as exc:
            return TriggerOutcome(triggered=False, fired=None, error=_one_line(exc))
        observe = getattr(self.inner, "observe_cached", None)
        if observe is not None:
            observe(outcome)
        done: TriggerOutcome = outcome
        return done
