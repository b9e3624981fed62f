"""The cluster's parts without a cluster: the shared limiter's leases, the per-node proxy against
a loopback API, the payload round trip, the `--cluster` choice and its exit-2 answers."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from cluster_fakes import MockMessagesAPI

from skillbench.behavior.options import RunOptions
from skillbench.cli import main
from skillbench.cluster.connect import cluster_choice, connect
from skillbench.cluster.limiter import SharedLimiter
from skillbench.cluster.payload import Packed, pack_folder, unpack
from skillbench.cluster.proxy import LimitedProxy
from skillbench.cluster.slots import suggested_slots
from skillbench.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


# -- the shared limiter ---------------------------------------------------------------------------


async def test_the_limiter_grants_at_most_its_limit_and_reclaims_a_dead_nodes_leases() -> None:
    shared = SharedLimiter(2)
    first = await shared.acquire("node-a")
    await shared.acquire("node-b")
    waiting = asyncio.ensure_future(shared.acquire("node-b"))
    await asyncio.sleep(0.05)
    assert not waiting.done() and shared.stats()["in_flight"] == 2
    assert shared.reclaim(["node-b"]) == 1  # node-a died holding `first`
    third = await asyncio.wait_for(waiting, 1)
    shared.release(first, 200, {})  # the dead node's late answer changes nothing
    assert shared.stats()["in_flight"] == 2 and shared.stats()["peak"] == 2
    shared.release(third, 200, {})
    assert shared.stats() | {"window": 2.0} == shared.stats()


async def test_persistent_429s_halve_the_cluster_window_and_retry_after_pauses_every_node() -> None:
    shared = SharedLimiter(8, cooldown=0.0)
    for _ in range(8):
        shared.release(await shared.acquire("n"), 429, {"Retry-After": "0"})
    assert shared.limiter.window == 4.0 and shared.stats()["rate_limited"] == 8
    shared.release(await shared.acquire("n"), 429, {"retry-after": "0.3"})
    started = time.monotonic()
    shared.release(await shared.acquire("other-node"), 200, {})
    assert time.monotonic() - started >= 0.25


# -- the proxy ------------------------------------------------------------------------------------


class CountingGate:
    """A Gate holding at most `limit` leases, recording what each call got."""

    def __init__(self, limit: int) -> None:
        self.slots = threading.BoundedSemaphore(limit)
        self.lock = threading.Lock()
        self.answers: list[tuple[int, str | None]] = []
        self.held = 0
        self.peak = 0

    def acquire(self) -> int:
        self.slots.acquire()
        with self.lock:
            self.held += 1
            self.peak = max(self.peak, self.held)
        return 1

    def release(self, lease: int, status: int, headers: Mapping[str, str]) -> None:
        with self.lock:
            self.held -= 1
            self.answers.append((status, headers.get("x-mock") or headers.get("retry-after")))
        self.slots.release()


def post(url: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(
        url + "/v1/messages?beta=true",
        data=body,
        method="POST",
        headers={"content-type": "application/json", "x-api-key": "k-test"},
    )
    try:
        with opener.open(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_the_proxy_forwards_unchanged_streams_back_and_holds_calls_to_the_gates_limit() -> None:
    gate = CountingGate(2)
    with MockMessagesAPI(delay=0.3) as api:
        proxy = LimitedProxy(gate, api.url).start()
        try:
            body = json.dumps({"model": "m", "messages": []}).encode()
            results: list[tuple[int, dict[str, str], bytes]] = []
            threads = [
                threading.Thread(target=lambda: results.append(post(proxy.url, body)))
                for _ in range(6)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
        finally:
            proxy.stop()
    assert [status for status, _, _ in results] == [200] * 6
    assert all(b"event: message_stop" in data for _, _, data in results)
    assert results[0][1].get("x-mock") == "yes"
    assert api.peak == 2 and gate.peak == 2  # the gate's limit, as the API saw it
    assert [call["body"] for call in api.calls] == [body] * 6
    assert all(call["path"] == "/v1/messages?beta=true" for call in api.calls)
    assert gate.answers == [(200, "yes")] * 6 and gate.held == 0


def test_the_proxy_hands_a_429_and_its_retry_after_back_to_the_gate() -> None:
    gate = CountingGate(1)
    with MockMessagesAPI(delay=0.0, throttle=1, retry_after=7) as api:
        proxy = LimitedProxy(gate, api.url).start()
        try:
            status, headers, _ = post(proxy.url, b"{}")
            again, _, _ = post(proxy.url, b"{}")
        finally:
            proxy.stop()
    assert (status, headers.get("retry-after"), again) == (429, "7", 200)
    assert gate.answers == [(429, "7"), (200, "yes")]


def test_the_proxy_answers_502_and_frees_the_slot_when_the_upstream_is_down() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    gate = CountingGate(1)
    proxy = LimitedProxy(gate, dead).start()
    try:
        status, _, _ = post(proxy.url, b"{}")
    finally:
        proxy.stop()
    assert status == 502 and gate.answers == [(0, None)] and gate.held == 0


# -- payload --------------------------------------------------------------------------------------


def test_a_packed_skill_folder_unpacks_with_its_links_and_without_vcs(tmp_path: Path) -> None:
    skill = tmp_path / "my-skill"
    (skill / "scripts").mkdir(parents=True)
    (skill / ".git").mkdir()
    (skill / ".git" / "HEAD").write_text("ref")
    (skill / "SKILL.md").write_text("---\nname: my-skill\n---\nbody\n")
    (skill / "scripts" / "run.sh").write_text("echo hi\n")
    os.symlink("scripts/run.sh", skill / "run.sh")
    data = pack_folder(skill)
    packed = Packed(None, "d1", "my-skill", True)
    out = unpack(packed, data, tmp_path / "node")
    assert out == tmp_path / "node" / "d1" / "my-skill"
    assert (out / "SKILL.md").read_text() == (skill / "SKILL.md").read_text()
    assert os.readlink(out / "run.sh") == "scripts/run.sh" and (out / "run.sh").read_text()
    assert not (out / ".git").exists()
    assert unpack(packed, b"not read again", tmp_path / "node") == out  # once per digest


# -- the choice and its exit-2 answers ------------------------------------------------------------


def test_cluster_choice_reads_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SKILLBENCH_CLUSTER", raising=False)
    assert cluster_choice(None) is None and cluster_choice("none") is None
    assert cluster_choice("Ray") == "ray" and cluster_choice("auto") == "auto"
    monkeypatch.setenv("SKILLBENCH_CLUSTER", "ray")
    assert cluster_choice(None) == "ray" and cluster_choice("none") is None
    monkeypatch.setenv("SKILLBENCH_CLUSTER", "dask")
    with pytest.raises(InputError, match=r"\$SKILLBENCH_CLUSTER.*unknown cluster 'dask'"):
        cluster_choice(None)


def test_no_address_and_nothing_listening_are_exit_2_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with pytest.raises(InputError, match=r"RAY_ADDRESS.*not set.*--cluster auto"):
        connect("ray")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    started = time.monotonic()
    with pytest.raises(
        InputError, match=r"no Ray cluster answers at 127\.0\.0\.1:\d+.*ray start --head"
    ):
        connect("ray")
    assert time.monotonic() - started < 10


def make_skill(tmp_path: Path) -> Path:
    skill = tmp_path / "tiny"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tiny\ndescription: Does tiny things.\n---\nBody.\n")
    evals = {"skill_name": "tiny", "evals": [{"id": 1, "prompt": "do it", "expected_output": "x"}]}
    (skill / "evals" / "evals.json").write_text(json.dumps(evals))
    return skill


def test_run_with_cluster_and_no_cluster_is_exit_2_before_the_workspace_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path)
    monkeypatch.setenv(
        "SKILLBENCH_CLAUDE_BIN", str(ROOT / "tests" / "fake_claude_agent" / "claude")
    )
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    argv = ["run", str(skill), "--backend", "claude-code", "--runs", "1", "--no-cache"]
    assert main([*argv, "--cluster", "ray"]) == 2
    assert "RAY_ADDRESS" in capsys.readouterr().err
    assert not (tmp_path / "tiny-workspace").exists()
    assert main([*argv[:2], "--backend", "anthropic", "--no-cache", "--cluster", "auto"]) == 2
    assert "needs a backend that runs them (claude-code, codex, gemini, opencode)" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "tiny-workspace").exists()


def test_without_the_ray_extra_cluster_is_exit_2_naming_the_extra(tmp_path: Path) -> None:
    import subprocess

    skill = make_skill(tmp_path)
    probe = (
        "import sys; sys.modules['ray'] = None\n"
        "from skillbench.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    argv = ["run", str(skill), "--backend", "claude-code", "--runs", "1", "--no-cache"]
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv, "--cluster", "auto"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SKILLBENCH_CLAUDE_BIN": str(ROOT / "tests" / "fake_claude_agent" / "claude"),
        },
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'skillbench[ray]'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "tiny-workspace").exists()


def test_slots_follow_memory_and_cores() -> None:
    assert suggested_slots(2.0, 2) == 1  # 0.5 GB after the reserve
    assert suggested_slots(8.0, 2) == 4  # two per core
    assert suggested_slots(8.0, 16) == 13  # one per 0.5 GB
    assert suggested_slots(0.5, 1) == 1


# -- a node's CLI ---------------------------------------------------------------------------------


def test_a_node_without_the_cli_or_with_another_version_fails_naming_make_claude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.backends.claude_cli import session
    from skillbench.behavior.executors import ClaudeCodeExecutor
    from skillbench.cluster import remote
    from skillbench.errors import BackendError

    fake = ROOT / "tests" / "fake_claude_agent" / "claude"
    runner = ClaudeCodeExecutor(claude_bin=fake)
    pinned = remote.Pinned.of(runner)
    url = "http://127.0.0.1:9"
    assert remote.node_runner(runner, pinned, url).claude_bin == fake
    with pytest.raises(
        remote.NodeSetupError, match=r"has claude CLI 2\.1\.197.*the driver 9\.9\.9.*make claude"
    ):
        remote.node_runner(runner, dataclasses.replace(pinned, version="9.9.9"), url)
    runner.claude_bin = tmp_path / "gone" / "claude"  # the driver's path, absent on the node

    def none(*_: object) -> Path:
        raise BackendError("claude CLI not found")

    monkeypatch.setattr(session, "resolve_claude_bin", none)
    with pytest.raises(remote.NodeSetupError) as caught:
        remote.node_runner(runner, pinned, url)
    assert str(caught.value).count("\n") == 0 and "run `make claude` there" in str(caught.value)


def stand_in_codex(folder: Path, version: str) -> Path:
    """An executable answering `--version` as Codex CLI does (never run as an agent here)."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / "codex"
    binary.write_text(f"#!/bin/sh\necho 'codex-cli {version}'\n")
    binary.chmod(0o755)
    return binary


def test_another_agents_executor_on_a_node_checks_its_cli_and_forwards_to_the_node_proxy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35 on Ray, for the agent session executor (codex here; gemini and opencode share
    the runner): it crosses to the node pickled (no forwarder), the node's copy runs the node's
    CLI when the driver's path is absent there and refuses another version or none, naming
    `make agents` and the pinned package; its key forwarder holds the node's key and forwards
    to the node's proxy (which forwards to the provider the driver's sessions call)."""
    import pickle
    import urllib.request

    from agent_fake_api import FakeAgentAPI

    from skillbench.backends.codex.behavior import CODEX_SESSION
    from skillbench.backends.codex.spec import CODEX_PACKAGE
    from skillbench.behavior.agent_executor import AgentSessionExecutor
    from skillbench.cluster import remote

    driver_bin = stand_in_codex(tmp_path / "driver", "0.169.0")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-driverkey0123456789abcdefABCDEF")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.invalid/v1")
    executor = AgentSessionExecutor(CODEX_SESSION, "gpt-6.1-sol", binary=driver_bin)
    executor.runner.forwarder()  # the driver's own forwarder: never shipped
    pinned = remote.Pinned.of(executor)
    assert (pinned.cli, pinned.version) == ("codex", "0.169.0")
    assert executor.api_upstream() == "https://api.example.invalid/v1"
    shipped = pickle.loads(pickle.dumps(executor))
    assert shipped.runner._forwarder is None
    driver_bin.unlink()  # the node has not the driver's path: it finds its own
    node_bin = stand_in_codex(tmp_path / "node", "0.169.0")
    node_key = "sk-proj-nodekey0123456789abcdefABCDEFGH"
    monkeypatch.setenv("SKILLBENCH_CODEX_BIN", str(node_bin))
    monkeypatch.setenv("OPENAI_API_KEY", node_key)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # the node's: never used
    with FakeAgentAPI() as node_proxy:
        local = remote.node_runner(shipped, pinned, node_proxy.url)
        try:
            assert local.runner.binary == node_bin and local.version() == "0.169.0"
            forwarder = local.runner.forwarder()
            [dummy] = forwarder.session_keys().values()
            request = urllib.request.Request(
                forwarder.url + "/responses",
                data=b'{"model": "m", "input": []}',
                headers={"authorization": f"Bearer {dummy}", "content-type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                assert answer.status == 200
            assert [r.path for r in node_proxy.requests] == ["/responses"]
            assert node_proxy.keys == [f"Bearer {node_key}"]
        finally:
            asyncio.run(local.aclose())
            asyncio.run(executor.aclose())
    older = stand_in_codex(tmp_path / "older", "0.100.0")
    monkeypatch.setenv("SKILLBENCH_CODEX_BIN", str(older))
    with pytest.raises(remote.NodeSetupError) as caught:
        remote.node_runner(shipped, pinned, "http://127.0.0.1:9")
    message = str(caught.value)
    assert "has codex CLI 0.100.0, the driver 0.169.0" in message, message
    assert f"run `make agents` there (the pinned {CODEX_PACKAGE})" in message, message
    monkeypatch.setenv("SKILLBENCH_CODEX_BIN", str(tmp_path / "none" / "codex"))
    with pytest.raises(remote.NodeSetupError) as caught:
        remote.node_runner(shipped, pinned, "http://127.0.0.1:9")
    message = str(caught.value)
    assert message.count("\n") == 0 and "no codex CLI: run `make agents` there" in message


# -- the placement seam ---------------------------------------------------------------------------


class Wrapped:
    def __init__(self, inner: object) -> None:
        self.inner = inner


class RecordingPlacer:
    def judge(self, judge: object) -> object:
        return Wrapped(judge)

    def executor(self, executor: object) -> object:
        return Wrapped(executor)


def test_only_session_backends_are_placed_and_only_inside_the_block() -> None:
    from skillbench.backends import placement
    from skillbench.backends.registry import get_judge
    from skillbench.behavior.executors import ClaudeCodeExecutor

    fake = ROOT / "tests" / "fake_claude_agent" / "claude"
    assert not isinstance(get_judge("claude-code", claude_bin=fake), Wrapped)
    with placement.placed(RecordingPlacer()):
        assert isinstance(get_judge("claude-code", claude_bin=fake), Wrapped)
        assert not isinstance(get_judge("lexical"), Wrapped)
        executor = ClaudeCodeExecutor(claude_bin=fake)
        assert isinstance(placement.place_executor(executor, True), Wrapped)
        assert placement.place_executor(executor, False) is executor
    assert placement.active() is None


class Counting:
    """An executor wrapper (what a placer returns) counting the runs it made."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.model, self.runs = inner, inner.name, inner.model, 0

    def identity(self) -> dict[str, Any]:
        return self.inner.identity()

    async def execute(self, task: Any) -> Any:
        self.runs += 1
        return await self.inner.execute(task)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_run_cases_hands_a_session_backends_executor_to_the_placer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.backends import placement
    from skillbench.behavior.run import run_cases
    from skillbench.behavior.workspace import Workspace, evals_path, init_workspace, read_evals

    skill = make_skill(tmp_path)
    monkeypatch.setenv(
        "SKILLBENCH_CLAUDE_BIN", str(ROOT / "tests" / "fake_claude_agent" / "claude")
    )
    monkeypatch.setenv("FAKE_AGENT_SKILL", "*")
    made: list[Counting] = []

    class Placer:
        def judge(self, judge: object) -> object:
            return judge

        def executor(self, executor: Any) -> Any:
            made.append(Counting(executor))
            return made[-1]

    init_workspace(skill)
    workspace = Workspace.for_skill(skill)
    with placement.placed(Placer()):
        batch = run_cases(
            workspace,
            read_evals(evals_path(skill)),
            RunOptions(runs=2, backend="claude-code"),
            skill_dir=skill,
        )
    assert len(made) == 1 and made[0].runs == 4 == len(batch)
    assert all(r.status == "ok" for r in batch)


AGREEMENT = ["agreement", "{skill}", "--evals", "{queries}", "--backend-a", "local"]
AGREEMENT += ["--backend-b", "lexical", "--runs", "1"]


@pytest.mark.parametrize(
    "command",
    [
        ["trigger", "{skill}", "--evals", "{queries}", "--backend", "lexical"],
        AGREEMENT,
        ["library", "{library}", "--backend", "lexical"],
        ["gate", "{skill}", "--evals", "{queries}", "--backend", "lexical", "--base", "HEAD"],
    ],
)
def test_cluster_with_no_session_backend_is_exit_2_before_any_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    skill = make_skill(tmp_path / "lib")
    queries = tmp_path / "queries.json"
    queries.write_text(json.dumps([{"query": "summarise this csv", "should_trigger": True}]))
    (skill / "evals" / "trigger.json").write_text(queries.read_text())
    places = {"{skill}": str(skill), "{queries}": str(queries), "{library}": str(skill.parent)}
    argv = [places.get(a, a) for a in command]
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--no-cache", "--cluster", "ray"]) == 2
    assert "--cluster runs agent sessions" in capsys.readouterr().err
    monkeypatch.setenv("SKILLBENCH_CLUSTER", "ray")  # a default: ignored by such backends
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    main([*argv, "--no-cache"])
    err = capsys.readouterr().err.lower()
    assert "--cluster" not in err and "cluster:" not in err  # (the tmp path may say "cluster")


def test_a_session_shipped_to_a_node_gets_the_same_env_and_its_own_key_forwarder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 38 on Ray: the runner crosses to the node as Ray ships it (pickled: no forwarder,
    no process); on the node (`node_runner`, given the node's proxy as `run_session` gives it)
    its sessions get the same allowlisted environment, a dummy key and a
    forwarder of their own in the worker that adds the real key on the way to the node proxy."""
    import pickle
    import urllib.request

    from mock_agentic_sse import AgenticMock

    from skillbench.behavior.executors import ClaudeCodeExecutor
    from skillbench.cluster import remote

    real = "sk-ant-api03-REALnodekey0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", real)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_CANARYnode0123456789")
    runner = ClaudeCodeExecutor(claude_bin=ROOT / "tests" / "fake_claude_agent" / "claude")
    runner.route()  # the driver's own forwarder (started by a local session): never shipped
    shipped = pickle.loads(pickle.dumps(runner))
    assert shipped._forwarder is None
    with AgenticMock() as node_proxy:
        local = remote.node_runner(shipped, remote.Pinned.of(runner), node_proxy.base_url)
        try:
            env = local.build_env(None)
            assert env["ANTHROPIC_API_KEY"].startswith("sk-ant-api03-skillbench-dummy-")
            assert "GITHUB_TOKEN" not in env and real not in env.values()
            assert env["ANTHROPIC_BASE_URL"] not in (
                node_proxy.base_url,
                runner.route()["ANTHROPIC_BASE_URL"],
            )
            request = urllib.request.Request(
                env["ANTHROPIC_BASE_URL"] + "/v1/messages",
                data=b'{"model": "m", "max_tokens": 1, "messages": []}',
                headers={"x-api-key": env["ANTHROPIC_API_KEY"], "content-type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                assert answer.status == 200
            assert node_proxy.keys == [real]
        finally:
            asyncio.run(local.aclose())
            asyncio.run(runner.aclose())
