"""Run every benchmark in this folder in turn and print one summary line each (`make bench`).

Each script writes its own figures to benchmarks/results/<name>.json and exits non-zero when
it misses its target; this runner reports every outcome and exits 1 if any script did.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "bench_local.py",
    "bench_cache.py",
    "bench_anthropic.py",
    "bench_trigger_cli.py",
    "bench_scale.py",
    "bench_claude_code.py",
    "bench_cost.py",
    "bench_replay_cost.py",
    "bench_first_run_cost.py",
    "bench_library.py",
    "bench_library_scale.py",
    "bench_validate_library.py",
    "bench_limiter.py",
    "bench_agents.py",
    "bench_gemini_codex.py",
    "bench_startup.py",
    "bench_demo.py",
    "bench_gate.py",
    "bench_listing_rules.py",
    "bench_cluster.py",
    "bench_field_import.py",
]


def main() -> int:
    """Run each benchmark script; the exit code says whether all met their targets."""
    failed = []
    for name in SCRIPTS:
        print(f"== {name}", flush=True)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, str(HERE / name)], check=False, timeout=900)
        print(f"-- {name}: exit {proc.returncode} in {time.perf_counter() - start:.1f} s\n")
        if proc.returncode != 0:
            failed.append(name)
    if failed:
        print("missed a target: " + ", ".join(failed))
        return 1
    print("all benchmarks met their targets; figures in benchmarks/results/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
