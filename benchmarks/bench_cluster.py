"""Agent sessions on a local Ray cluster (`run --cluster ray`): span, driver memory, a killed node.

A real cluster on this machine (tests/local_ray.py: a head and a worker node, each a `ray start`
process with 4 `agent_slot`s, nothing past loopback) runs `skillbench run --backend claude-code`
with the fake agent CLI (tests/fake_claude_agent) paced at 1 s per session and one model call
per session through the node's proxy (a loopback stand-in of the API answering in 50 ms), under
`--cluster-calls 8`. 200 sessions (1 case × 100 runs × with_skill and baseline). Figures:

- span / ideal, ideal = 200 / 8 slots × 1 s (target ≤ 1.2); the span is the driver's "N runs
  in X s" (first submission to last result written); the cluster's start is not in it;
- the driver's peak resident memory (target ≤ 300 MB): `ru_maxrss` of the driver process;
- the worker node killed (SIGKILL of its process group) once half the runs are written: 200 run
  folders, 200 cache entries (none twice), every run ok; the sessions Ray retried are counted;
- API calls in flight as the API saw them, never above `--cluster-calls`;
- the same 200 sessions on this machine alone (`--workers 8`, no Ray): what the machine's two
  cores make of the sessions themselves, the reference for what the cluster adds;
- the CPU the machine spent during the clean run (`/proc/stat`, all processes: run it on a quiet
  machine) and the CPU floor, that time over the cores: a span near the floor is bound by this
  machine's cores, not by the scheduling.

The fake CLI runs on this interpreter without `site` (`-S`), not through `/usr/bin/env python3`
(pyenv's shim starts three bash scripts per call): a paced session's own CPU is the fake's, not
what is measured, and the shim tripled it.

Writes benchmarks/results/cluster.json; exits 1 if a target is missed; skipped (exit 0, said)
without the `ray` extra.

    .venv/bin/python benchmarks/bench_cluster.py [--sessions 200] [--session-seconds 1]

`--session-seconds 4` (written to results/cluster-4s.json) shows what the span is when the
sessions' own CPU no longer fills the cores: the same work, paced four times slower.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
RESULTS = HERE / "results" / "cluster.json"
FAKE = ROOT / "tests" / "fake_claude_agent" / "claude"
SLOTS = 4
SESSION_SECONDS = 1.0
CALLS = 8
DRIVER = """
import json, resource, sys
from skillbench.cli import main
code = main(sys.argv[1:])
sys.stderr.write("DRIVER " + json.dumps({"code": code,
    "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}) + "\\n")
sys.exit(code)
"""


def light_fake(folder: Path) -> Path:
    """The fake agent CLI with this interpreter (without `site`) as its interpreter."""
    body = FAKE.read_text(encoding="utf-8").split("\n", 1)[1]
    fake = folder / "claude"
    fake.write_text(f"#!{sys.executable} -S\n{body}", encoding="utf-8")
    fake.chmod(0o755)
    return fake


def cpu_busy_seconds() -> float:
    """CPU seconds the machine has spent busy since boot, all cores (`/proc/stat`)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def make_skill(root: Path) -> Path:
    skill = root / "paced"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: paced\ndescription: Paced sessions.\n---\nGo.\n")
    evals = {"skill_name": "paced", "evals": [{"id": 1, "prompt": "Go.", "expected_output": "x"}]}
    (skill / "evals" / "evals.json").write_text(json.dumps(evals))
    return skill


def drive(
    root: Path,
    address: str | None,
    api_url: str,
    runs: int,
    fake: Path,
    kill: Any = None,
    sessions: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One `skillbench run --cluster ray` in a child process; `kill(written)` is polled. Without
    an address: the same run on this machine alone (`--workers` = the slots), the sessions'
    environment given."""
    root.mkdir()
    skill = make_skill(root)
    cache = root / "cache.sqlite"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "SKILLBENCH_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        SKILLBENCH_CLAUDE_BIN=str(fake),
        ANTHROPIC_BASE_URL=api_url,
        RAY_USAGE_STATS_ENABLED="0",
    )
    args = ["run", str(skill), "--backend", "claude-code", "--runs", str(runs)]
    args += ["--cache", str(cache)]
    if address is None:
        env.update(sessions or {})
        args += ["--workers", str(2 * SLOTS)]
    else:
        env["RAY_ADDRESS"] = address
        args += ["--cluster", "ray", "--cluster-calls", str(CALLS)]
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, *args],
        env=env,
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    workspace = root / "paced-workspace"
    if kill is not None:

        def watch() -> None:
            while proc.poll() is None:
                if kill(len(list(workspace.glob("runs/*/*/run-*/run.json")))):
                    return
                time.sleep(0.2)

        threading.Thread(target=watch, daemon=True).start()
    busy = cpu_busy_seconds()
    _, err = proc.communicate(timeout=3600)
    busy = cpu_busy_seconds() - busy
    driver = json.loads(err.split("DRIVER ", 1)[1].splitlines()[0]) if "DRIVER " in err else {}
    span = None
    for line in err.splitlines():
        if line.strip().endswith(" s") and " runs in " in line:
            span = float(line.split(" runs in ")[1].split()[0])
    records = [json.loads(p.read_text()) for p in workspace.glob("runs/*/*/run-*/run.json")]
    with sqlite3.connect(cache) as db:
        cached = db.execute("select count(*) from calls").fetchone()[0]
    return {
        "exit": proc.returncode,
        "span_s": span,
        "driver_maxrss_mb": round(driver.get("maxrss_mb", 0.0), 1),
        "runs_written": len(records),
        "runs_ok": sum(1 for r in records if r["status"] == "ok"),
        "cache_entries": cached,
        "cpu_busy_s": round(busy, 1),
        "tail": err[-1500:] if proc.returncode else "",
    }


def _on_the_cluster(
    cluster: Any, api: Any, tmp: Path, runs: int, fake: Path, record: Path
) -> dict[str, Any]:
    """The clean run, then the run whose worker node is killed at half way."""
    from local_ray import non_loopback

    figures: dict[str, Any] = {}
    figures["clean"] = drive(tmp / "clean", cluster.address, api.url, runs, fake)
    figures["api_peak_clean"] = api.peak
    api.peak = 0
    total = 2 * runs

    def kill(written: int) -> bool:
        if written >= total // 2:
            cluster.nodes[1].kill()
            return True
        return False

    before = len(list(record.glob("call-*.json")))
    figures["killed"] = drive(tmp / "killed", cluster.address, api.url, runs, fake, kill)
    figures["sessions_started_killed_run"] = len(list(record.glob("call-*.json"))) - before
    figures["api_peak_killed"] = api.peak
    figures["non_loopback_sockets"] = len(non_loopback(cluster.connections()))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--session-seconds", type=float, default=SESSION_SECONDS)
    opts = parser.parse_args()
    try:
        import ray  # noqa: F401
    except ModuleNotFoundError:
        print("skipped: needs the ray extra (pip install 'skillbench[ray]')")
        return 0
    from cluster_fakes import MockMessagesAPI
    from local_ray import local_cluster

    runs = opts.sessions // 2
    record = Path(tempfile.mkdtemp(prefix="sb-bench-sessions-"))
    node_env = {
        "FAKE_AGENT_SKILL": "*",
        "FAKE_AGENT_API_CALLS": "1",
        "FAKE_AGENT_SLEEP": str(opts.session_seconds),
        "FAKE_AGENT_RECORD": str(record),
    }
    figures: dict[str, Any] = {"sessions": 2 * runs, "slots": 2 * SLOTS, "calls_limit": CALLS}
    ideal = 2 * runs / (2 * SLOTS) * opts.session_seconds
    figures["session_seconds"] = opts.session_seconds
    env = {"head": node_env, "worker1": node_env}
    with (
        tempfile.TemporaryDirectory(prefix="sb-bench-cluster-") as tmp,
        MockMessagesAPI(delay=0.05) as api,
    ):
        fake = light_fake(Path(tmp))
        alone = drive(Path(tmp) / "alone", None, api.url, runs, fake, sessions=node_env)
        figures["this_machine_alone"] = alone
        api.peak = 0
        started = time.monotonic()
        with local_cluster((SLOTS, SLOTS), env) as cluster:
            figures["cluster_start_s"] = round(time.monotonic() - started, 1)
            figures.update(_on_the_cluster(cluster, api, Path(tmp), runs, fake, record))
    clean_span = figures["clean"]["span_s"]
    figures["ideal_s"] = ideal
    figures["span_over_ideal"] = round(clean_span / ideal, 3) if clean_span else None
    alone_span = figures["this_machine_alone"]["span_s"]
    if clean_span and alone_span:
        figures["span_over_this_machine_alone"] = round(clean_span / alone_span, 3)
    cores = len(os.sched_getaffinity(0))
    figures["cores"] = cores
    figures["cpu_floor_s"] = round(figures["clean"]["cpu_busy_s"] / cores, 1)
    if clean_span:
        figures["span_over_cpu_floor"] = round(clean_span / figures["cpu_floor_s"], 3)
    total = 2 * runs
    targets = {
        "span_over_ideal_le_1.2": bool(clean_span) and clean_span / ideal <= 1.2,
        "driver_peak_le_300MB": 0 < figures["clean"]["driver_maxrss_mb"] <= 300,
        "killed_all_runs_once": figures["killed"]["runs_written"] == total
        and figures["killed"]["cache_entries"] == total
        and figures["killed"]["runs_ok"] == total,
        "api_peak_le_limit": max(figures["api_peak_clean"], figures["api_peak_killed"]) <= CALLS,
        "clean_all_runs": figures["clean"]["runs_ok"] == total,
    }
    figures["targets"] = targets
    figures["load_average"] = os.getloadavg()
    results = RESULTS
    if opts.session_seconds != SESSION_SECONDS:
        results = RESULTS.with_name(f"cluster-{opts.session_seconds:g}s.json")
    results.parent.mkdir(exist_ok=True)
    results.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
