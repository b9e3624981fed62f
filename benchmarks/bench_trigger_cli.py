"""The whole `skillbench trigger` command against the loopback mock API, then its cached re-run.

Unlike bench_anthropic.py (the judge alone), this times what a user runs: a fresh
`python -m skillbench trigger ... --backend anthropic --workers 8` process (imports, eval-set
loading, catalog, report writing included) against the mock with 300 ms latency, and then the
same command again with the same cache. The re-run must make zero calls (the mock's counter
does not move) and finish in under 2 s of wall time. Dummy key, loopback only.
Writes benchmarks/results/trigger_cli.json.

    .venv/bin/python benchmarks/bench_trigger_cli.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_anthropic import mock_process

from skillbench.io import write_json

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "trigger_cli.json"
SKILL = ROOT / "data" / "skills" / "csv-cleanup"
EVALS = ROOT / "data" / "evals" / "csv-cleanup.trigger.json"
LATENCY = 0.3
WORKERS = 8
RUNS = 3


class Pass(BaseModel):
    """One invocation of the CLI."""

    exit_code: int
    wall_seconds: float
    server_requests: int
    report_calls: int | None
    report_cache_hits: int | None
    errored_runs: int = 0


class TriggerCliBench(BaseModel):
    """benchmarks/results/trigger_cli.json."""

    benchmark: str = "skillbench-trigger-cli-vs-mock"
    queries: int
    runs: int
    workers: int
    latency_seconds: float
    bound_calls_per_second: float
    first: Pass
    first_calls_per_second: float
    rerun: Pass
    rerun_ok: bool
    note: str


def run_cli(url: str, cache: Path, out: Path) -> tuple[int, float]:
    """One `skillbench trigger` process; returns (exit code, wall seconds)."""
    env = dict(os.environ, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="dummy-local-mock-key")
    cmd = [
        sys.executable, "-m", "skillbench", "trigger", str(SKILL), "--evals", str(EVALS),
        "--backend", "anthropic", "--workers", str(WORKERS), "--runs", str(RUNS),
        "--cache", str(cache), "--out", str(out), "--json",
    ]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, check=False)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"skillbench trigger failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.returncode, wall


def one_pass(server_url: str, count: int, cache: Path, out: Path, counter: object) -> Pass:
    """Run the CLI once and read what the report and the mock say."""
    code, wall = run_cli(server_url, cache, out)
    served = counter.count() - count  # type: ignore[attr-defined]
    summary = json.loads(out.read_text(encoding="utf-8"))["summary"]
    return Pass(
        exit_code=code,
        wall_seconds=round(wall, 3),
        server_requests=served,
        report_calls=summary.get("calls"),
        report_cache_hits=summary.get("cache_hits"),
        errored_runs=int(summary.get("errored_runs") or 0),
    )


def main() -> int:
    """Two passes; print and write the figures; exit 1 when the re-run target is missed."""
    queries = len(json.loads(EVALS.read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory() as tmp, mock_process(LATENCY) as server:
        cache, out = Path(tmp) / "cache.sqlite", Path(tmp) / "report.json"
        first = one_pass(server.url, server.count(), cache, out, server)
        rerun = one_pass(server.url, server.count(), cache, out, server)
    result = TriggerCliBench(
        queries=queries,
        runs=RUNS,
        workers=WORKERS,
        latency_seconds=LATENCY,
        bound_calls_per_second=round(WORKERS / LATENCY, 2),
        first=first,
        first_calls_per_second=round(first.server_requests / first.wall_seconds, 2),
        rerun=rerun,
        # an errored run is never cached: a re-run of errors would "pass" by failing again
        rerun_ok=first.errored_runs == 0
        and rerun.server_requests == 0
        and rerun.wall_seconds < 2.0,
        note="wall time of whole CLI processes, Python start-up and imports included; the "
        "first pass's calls/s is therefore below the judge-only figure of bench_anthropic.py",
    )
    write_json(RESULTS, result)
    print(
        f"first:  {first.server_requests} calls, {first.wall_seconds:.2f} s wall "
        f"({result.first_calls_per_second} calls/s incl. start-up), exit {first.exit_code}, "
        f"{first.errored_runs} errored run(s) (target 0)"
    )
    print(
        f"re-run: {rerun.server_requests} calls, {rerun.report_cache_hits} cache hits, "
        f"{rerun.wall_seconds:.2f} s wall (target < 2 s, zero calls): "
        f"{'ok' if result.rerun_ok else 'MISSED'}"
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0 if result.rerun_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
