"""`skillbench run --cluster ray` on a real local Ray cluster: a head and a worker node, each a
`ray start` process of its own, fake-CLI sessions (tests/fake_claude_agent) across both, each
making model calls through its node's proxy to a loopback stand-in of the API. The worker node
is killed mid-run; then the driver is killed mid-run and started again.

Checked: every run recorded exactly once and the same as a single-machine run, sessions on both
nodes, never more API calls in flight (as the API saw them) than `--cluster-calls`, a killed
driver resumes from what it wrote, and no process of the cluster had a socket to anything but
loopback. A hermetic case runs on the nodes with the fake CLI and with another agent's real CLI
against its scripted loopback provider (Codex in `make test`; Gemini CLI and opencode too in
`make test-full`). Skipped without the `ray` extra. One cluster for the module
(`tests/local_ray.py`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

from agent_session_fakes import Step, agent_param, scripted_agent
from cluster_fakes import MockMessagesAPI
from local_ray import LocalCluster, local_cluster, non_loopback
from loopback_listener import Listener
from matrix import FULL

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "tests" / "fake_claude_agent" / "claude"
CALLS_PER_SESSION = 2
CALL_LIMIT = 2
RUNS = 5  # x 2 configurations x 1 case = 10 sessions
HERMETIC_COMMAND = "gh pr create --title x; gh repo delete o/old --yes; echo done"
NODE_KEYS = {
    "codex": ("OPENAI_API_KEY", "sk-proj-clusternodekey0123456789abcdefABCDEF"),
    "gemini": ("GEMINI_API_KEY", "AIzaSyClusterNodeKey0123456789abcdefghijk"),
    "opencode": ("ANTHROPIC_API_KEY", "sk-ant-api03-clusternodekey-0123456789abcdef"),
}
"""Each agent's key variable and the nodes' own key in it (the driver's differs): a node's
sessions use the node's."""
DEAD_URL = "http://127.0.0.1:9/v1"
"""The nodes' own provider base URLs: nothing listens there, so a session reaches the provider
only through the node's proxy, whose upstream is the driver's."""


@pytest.fixture(scope="module")
def api() -> Iterator[MockMessagesAPI]:
    with MockMessagesAPI(delay=0.25) as server:
        yield server


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sessions")


@pytest.fixture(scope="module")
def cluster(record: Path) -> Iterator[LocalCluster]:
    common = {
        "FAKE_AGENT_SKILL": "*",
        "FAKE_AGENT_API_CALLS": str(CALLS_PER_SESSION),
        "FAKE_AGENT_SLEEP": "0.5",
        "FAKE_AGENT_RECORD": str(record),
        "FAKE_AGENT_HERMETIC_RUN": HERMETIC_COMMAND,  # only where a case has an environment
        **{variable: key for variable, key in NODE_KEYS.values()},
        "OPENAI_BASE_URL": DEAD_URL,
        "GOOGLE_GEMINI_BASE_URL": DEAD_URL,
    }
    env = {
        "head": {**common, "FAKE_AGENT_NODE": "head"},
        "worker1": {**common, "FAKE_AGENT_NODE": "worker1"},
    }
    with local_cluster((2, 2), env) as started:
        yield started
    assert not started.pids(), "a process of the test cluster outlived it"


def make_skill(root: Path) -> Path:
    skill = root / "tiny"
    (skill / "evals").mkdir(parents=True)
    (skill / "scripts").mkdir()
    (skill / "scripts" / "helper.py").write_text("print('help')\n")
    (skill / "SKILL.md").write_text(
        "---\nname: tiny\ndescription: Summarises tiny CSV files.\n---\nUse scripts/helper.py.\n"
    )
    evals = {
        "skill_name": "tiny",
        "evals": [{"id": 1, "prompt": "Summarise it.", "expected_output": "a summary"}],
    }
    (skill / "evals" / "evals.json").write_text(json.dumps(evals))
    return skill


def run_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "skillbench", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def driver_env(api: MockMessagesAPI, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "SKILLBENCH_"))}
    return {
        **env,
        "PYTHONPATH": str(ROOT),
        "SKILLBENCH_CLAUDE_BIN": str(FAKE),
        "ANTHROPIC_BASE_URL": api.url,  # the proxies' upstream
        "RAY_USAGE_STATS_ENABLED": "0",
        "SKILLBENCH_PASS_ENV": "FAKE_*",  # the fake CLI's switches reach its sessions by name
        **extra,
    }


def sessions(record: Path) -> list[dict[str, Any]]:
    """The recorded sessions; one still being written is left for the next look (the watcher
    thread read a half-written file once and died, so the worker was never killed)."""
    found = []
    for path in sorted(record.glob("call-*.json")):
        try:
            found.append(json.loads(path.read_text()))
        except ValueError:
            continue
    return found


def run_records(workspace: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in sorted(workspace.glob("runs/*/*/run-*/run.json")):
        data = json.loads(path.read_text())
        summary = (path.parent / "outputs" / "out" / "summary.md").read_text()
        found[str(path.parent.relative_to(workspace))] = {
            "status": data["status"],
            "final_text": data["final_text"],
            "summary": summary,
        }
    return found


def test_runs_across_two_nodes_survive_a_killed_worker_under_one_call_limit(
    cluster: LocalCluster, api: MockMessagesAPI, record: Path, tmp_path: Path
) -> None:
    skill = make_skill(tmp_path)
    args = ["run", str(skill), "--backend", "claude-code", "--runs", str(RUNS)]
    args += ["--cache", str(tmp_path / "cache.sqlite")]
    env = driver_env(api, {"RAY_ADDRESS": cluster.address})
    seen: list[tuple[int, str]] = []
    stop = threading.Event()

    def watch() -> None:  # sockets of every cluster process, all along, and the worker's end
        killed = False
        while not stop.is_set():
            seen.extend(cluster.connections())
            started = sessions(record)
            on_worker = [s for s in started if s["node"] == "worker1"]
            if not killed and on_worker and len(started) >= 4:
                cluster.nodes[1].kill()
                killed = True
            time.sleep(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    proc = run_cli([*args, "--cluster", "ray", "--cluster-calls", str(CALL_LIMIT)], env, tmp_path)
    _, err = proc.communicate(timeout=600)
    stop.set()
    watcher.join(10)
    assert proc.returncode == 0, err[-3000:]
    assert "cluster: 2 node(s), 4 agent slots" in err
    assert cluster.nodes[1].proc.poll() is not None, "the worker node was not killed mid-run"
    nodes = {s["node"] for s in sessions(record)}
    assert nodes == {"head", "worker1"}, nodes
    clustered = run_records(tmp_path / "tiny-workspace")
    assert len(clustered) == 2 * RUNS  # every run once, the killed node's ones too
    assert all(r["status"] == "ok" for r in clustered.values()), clustered
    assert len(api.calls) >= CALLS_PER_SESSION * 2 * RUNS
    assert api.peak <= CALL_LIMIT  # across both nodes, as the API saw it
    assert seen and not non_loopback(seen), non_loopback(seen)

    # the same eval on this machine alone gives the same results, run for run
    alone = tmp_path / "alone"
    alone.mkdir()
    single = make_skill(alone)
    local_env = driver_env(
        api,
        {
            "FAKE_AGENT_SKILL": "*",
            "FAKE_AGENT_RECORD": str(tmp_path / "alone-record"),
        },
    )
    (tmp_path / "alone-record").mkdir()
    done = run_cli(
        ["run", str(single), "--backend", "claude-code", "--runs", str(RUNS), "--no-cache"],
        local_env,
        alone,
    )
    _, err_alone = done.communicate(timeout=600)
    assert done.returncode == 0, err_alone[-3000:]
    assert run_records(alone / "tiny-workspace") == clustered


def test_a_killed_driver_resumes_from_what_it_wrote(
    cluster: LocalCluster, api: MockMessagesAPI, record: Path, tmp_path: Path
) -> None:
    skill = make_skill(tmp_path)
    cache = tmp_path / "cache.sqlite"
    args = ["run", str(skill), "--backend", "claude-code", "--runs", str(RUNS)]
    args += ["--cache", str(cache), "--cluster", "ray", "--cluster-calls", str(CALL_LIMIT)]
    env = driver_env(api, {"RAY_ADDRESS": cluster.address})
    workspace = tmp_path / "tiny-workspace"
    first = run_cli(args, env, tmp_path)
    deadline = time.monotonic() + 300
    while len(list(workspace.glob("runs/*/*/run-*/run.json"))) < 3:
        assert first.poll() is None, first.communicate()[1][-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.2)
    first.kill()  # SIGKILL: no cleanup of its own
    first.communicate(timeout=60)
    written = len(list(workspace.glob("runs/*/*/run-*/run.json")))
    assert 3 <= written < 2 * RUNS
    second = run_cli(args, env, tmp_path)
    _, err = second.communicate(timeout=600)
    assert second.returncode == 0, err[-3000:]
    records = run_records(workspace)
    assert len(records) == 2 * RUNS and all(r["status"] == "ok" for r in records.values())
    hits = int(err.split(" from the cache)")[0].rsplit(", ", 1)[-1])
    assert hits >= written  # what the killed driver wrote was not run again


def test_a_hermetic_case_on_the_cluster(
    cluster: LocalCluster, api: MockMessagesAPI, tmp_path: Path
) -> None:
    """A case with an `environment` block, its sessions on the Ray nodes: each node builds the
    world (fakes first on PATH, the call log, the network namespace with the API bridged), and
    the run folders on the driver get each session's calls."""
    skill = make_skill(tmp_path)
    evals = json.loads((skill / "evals" / "evals.json").read_text())
    evals["evals"][0]["environment"] = {
        "network": "api-only",
        "fakes": {
            "gh": [
                {"match": "^pr create", "stdout": "https://github.com/o/r/pull/7"},
                {"match": "^repo delete", "refuse": "destructive"},
            ]
        },
    }
    (skill / "evals" / "evals.json").write_text(json.dumps(evals))
    env = driver_env(api, {"RAY_ADDRESS": cluster.address})
    args = ["run", str(skill), "--backend", "claude-code", "--runs", "2", "--no-cache"]
    proc = run_cli([*args, "--configs", "with_skill", "--cluster", "ray"], env, tmp_path)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    assert "acting on the real world" not in err
    for run in sorted((tmp_path / "tiny-workspace" / "runs" / "with_skill").glob("*/run-*")):
        calls = [json.loads(line) for line in (run / "calls.jsonl").read_text().splitlines()]
        assert [(c["command"], c["argv"][0], c["refused"]) for c in calls] == [
            ("gh", "pr", False),
            ("gh", "repo", True),
        ], run
        world = json.loads((run / "environment.json").read_text())
        assert world["network_confined"] and world["shell_checked"], world
        output = (run / "outputs" / "hermetic-output.txt").read_text()
        assert "https://github.com/o/r/pull/7" in output and "refused (destructive)" in output


@pytest.mark.parametrize(
    "agent",
    # Codex in `make test`; Gemini CLI and opencode take the same runner (`AgentSessionRunner`)
    # with their own CLI, key and provider: `make test-full` runs them too
    [agent_param("codex"), agent_param("gemini", FULL), agent_param("opencode", FULL)],
)
def test_a_hermetic_case_of_another_agents_real_cli_on_the_cluster(
    cluster: LocalCluster, api: MockMessagesAPI, tmp_path: Path, agent: str
) -> None:
    """Issue 35 on Ray for the other agents' session harness: `run --backend <agent> --cluster
    ray`, the agent's real CLI on a node against its scripted loopback provider. The node runs its
    own pinned CLI, its key forwarder (the node's key) forwards to the node's proxy, whose
    upstream is the driver's base URL; the case's world is built on the node: `gh pr create` is
    answered by the fake and graded `called`, `gh repo delete` is refused and fails
    `not_called`, and a loopback listener outside the session is never reached under
    `api-only`."""
    listener = Listener()
    probe = listener.probe()
    # one tool turn (each turn is a model round trip of the real CLI): the three commands
    steps = [Step(f"gh pr create --title Fix --body Body; gh repo delete o/old --yes; {probe}")]
    skill = tmp_path / "pr-helper"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: pr-helper\ndescription: Use when opening pull requests.\n---\n# PR\n"
    )
    checks = [
        {"type": "called", "target": "gh", "pattern": "^pr create"},
        {"type": "not_called", "target": "gh", "pattern": "^repo delete"},
        {"type": "no_egress", "target": "calls"},
    ]
    case = {
        "id": "open-pr",
        "prompt": "Open a pull request and tidy up the old repo.",
        "expectations": [
            {"criterion": c["type"], "description": c["type"], "required": True, "check": c}
            for c in checks
        ],
        "environment": {
            "network": "api-only",
            "fakes": {
                "gh": [
                    {"match": "^pr create", "stdout": "https://github.com/o/r/pull/7"},
                    {"match": "^repo delete", "refuse": "destructive"},
                ]
            },
        },
    }
    (skill / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    try:
        with scripted_agent(agent, steps) as scripted:
            env = driver_env(api, {"RAY_ADDRESS": cluster.address, **scripted.caller_env()})
            args = ["run", str(skill), "--backend", agent, "--runs", "1", "--no-cache"]
            args += ["--configs", "with_skill", "--timeout", "180", "--cluster", "ray"]
            proc = run_cli(args, env, tmp_path)
            _, err = proc.communicate(timeout=600)
            results, keys = list(scripted.results), list(scripted.keys)
        graded = run_cli(["grade", str(skill), "--backend", "local"], env, tmp_path)
        _, grade_err = graded.communicate(timeout=300)
    finally:
        listener.close()
    run = tmp_path / "pr-helper-workspace" / "runs" / "with_skill" / "open-pr" / "run-1"
    record = json.loads((run / "run.json").read_text())
    assert proc.returncode == 0, (record.get("error"), err[-3000:])
    assert "cluster: " in err and record["status"] == "ok", record.get("error")
    node_key = NODE_KEYS[agent][1]
    assert keys and all(node_key in k for k in keys), keys  # the node's forwarder
    calls = [json.loads(line) for line in (run / "calls.jsonl").read_text().splitlines()]
    assert [(c["command"], c["argv"][:2], c["refused"]) for c in calls] == [
        ("gh", ["pr", "create"], False),
        ("gh", ["repo", "delete"], True),
    ], calls
    assert len(results) == 1 and "https://github.com/o/r/pull/7" in results[0], results
    assert "refused" in results[0] and "REACHED" not in results[0], results
    assert listener.accepted == 0
    world = json.loads((run / "environment.json").read_text())
    assert world["network"] == "api-only" and world["network_confined"], world
    assert world["shell_checked"], world
    grading = json.loads((run / "grading.json").read_text())
    verdicts = {e["text"].split(":")[0].strip(): e["passed"] for e in grading["expectations"]}
    assert verdicts == {"called": True, "not_called": False, "no_egress": True}, verdicts
    assert graded.returncode == 1, grade_err[-2000:]  # a required expectation failed
