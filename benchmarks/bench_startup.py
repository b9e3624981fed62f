"""Whole-process start-up: `validate`, `--help`, `schema check`, a local `trigger`; the local
backend's cold start and peak memory.

Each command runs as a fresh `python -m skillbench ...` process from the project folder (the
median of several runs is kept); the local backend's cold start is a fresh process that imports
it, loads the embedder and decides one run, and its peak RSS comes from the kernel's rusage of
that child. Targets: `validate` of one skill ≤ 0.3 s; local cold start ≤ 1.5 s; peak RSS ≤ 300 MB.
Writes benchmarks/results/bench_startup.json; exits 1 if a target is missed.

    .venv/bin/python benchmarks/bench_startup.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "bench_startup.json"
REPEAT = 5
VALIDATE_TARGET = 0.3
COLD_START_TARGET = 1.5
RSS_TARGET_MB = 300.0
COLD_START = """
import time
start = time.perf_counter()
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.offline.local import LocalJudge
skill = SkillEntry("csv-cleanup", "Repairs messy CSV exports. Use when a CSV will not load.")
LocalJudge().decide(TriggerRequest(skill, (), "my csv export will not load in pandas", 0))
print(time.perf_counter() - start)
"""


class Command(BaseModel):
    """One command's whole-process wall time (median of `runs`) and peak RSS."""

    command: str
    runs: int
    median_seconds: float
    min_seconds: float
    median_cpu_seconds: float
    peak_rss_mb: float
    exit_code: int


class StartupBench(BaseModel):
    """benchmarks/results/bench_startup.json."""

    load_average: float
    commands: list[Command]
    local_cold_start_seconds: float
    local_cold_start_process_seconds: float
    local_peak_rss_mb: float
    validate_ok: bool
    cold_start_ok: bool
    rss_ok: bool


def run_child(args: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS MB, exit code, stdout) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024, proc.returncode, out


def measure(label: str, args: list[str], env: dict[str, str], runs: int = REPEAT) -> Command:
    times, cpus, peaks, code = [], [], [], 0
    for _ in range(runs):
        seconds, cpu, rss, code, _ = run_child([sys.executable, "-m", "skillbench", *args], env)
        times.append(seconds)
        cpus.append(cpu)
        peaks.append(rss)
    return Command(
        command=label,
        runs=runs,
        median_seconds=round(statistics.median(times), 3),
        min_seconds=round(min(times), 3),
        median_cpu_seconds=round(statistics.median(cpus), 3),
        peak_rss_mb=round(max(peaks), 1),
        exit_code=code,
    )


def main() -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="skillbench-bench-startup-") as tmp:
        env["SKILLBENCH_CACHE"] = str(Path(tmp) / "cache.sqlite")
        commands = [
            measure("--help", ["--help"], env),
            measure(
                "validate data/skills/csv-cleanup", ["validate", "data/skills/csv-cleanup"], env
            ),
            measure("validate data/skills (11 skills)", ["validate", "data/skills"], env),
            measure(
                "schema check data/evals/csv-cleanup.trigger.json",
                ["schema", "check", "data/evals/csv-cleanup.trigger.json"],
                env,
            ),
            measure(
                "trigger csv-cleanup --runs 1 --no-cache (local)",
                [
                    "trigger",
                    "data/skills/csv-cleanup",
                    "--evals",
                    "data/evals/csv-cleanup.trigger.json",
                    "--runs",
                    "1",
                    "--no-cache",
                ],
                env,
                runs=3,
            ),
        ]
        colds, walls, peaks = [], [], []
        for _ in range(3):
            wall, _, rss, code, out = run_child([sys.executable, "-c", COLD_START], env)
            if code != 0:
                raise RuntimeError("the local backend's cold-start probe failed")
            colds.append(float(out.strip().splitlines()[-1]))
            walls.append(wall)
            peaks.append(rss)
    validate = commands[1]
    result = StartupBench(
        load_average=round(os.getloadavg()[0], 2),
        commands=commands,
        local_cold_start_seconds=round(statistics.median(colds), 3),
        local_cold_start_process_seconds=round(statistics.median(walls), 3),
        local_peak_rss_mb=round(max(peaks), 1),
        validate_ok=validate.median_seconds <= VALIDATE_TARGET,
        cold_start_ok=statistics.median(colds) <= COLD_START_TARGET,
        rss_ok=max(peaks) <= RSS_TARGET_MB,
    )
    from skillbench.io import write_json

    print(
        f"whole-process start-up, median of runs ({os.cpu_count()} cores, "
        f"load average {result.load_average:.1f}: other work slows every figure)"
    )
    for c in commands:
        print(
            f"  {c.command:<50} {c.median_seconds:5.2f} s (min {c.min_seconds:.2f}, "
            f"CPU {c.median_cpu_seconds:.2f} s) peak {c.peak_rss_mb:4.0f} MB  exit {c.exit_code}"
        )
    flag = {True: "ok", False: "MISSED"}
    print(
        f"validate one skill: {validate.median_seconds:.2f} s = "
        f"{validate.median_seconds / VALIDATE_TARGET:.2f}x the 0.3 s target {flag[result.validate_ok]}"
    )
    print(
        f"local backend cold start (import + load + one decision): "
        f"{result.local_cold_start_seconds:.2f} s = "
        f"{result.local_cold_start_seconds / COLD_START_TARGET:.2f}x the 1.5 s target "
        f"{flag[result.cold_start_ok]} (whole process {result.local_cold_start_process_seconds:.2f} s)"
    )
    print(
        f"local backend peak RSS: {result.local_peak_rss_mb:.0f} MB = "
        f"{result.local_peak_rss_mb / RSS_TARGET_MB:.2f}x the 300 MB target {flag[result.rss_ok]}"
    )
    write_json(RESULTS, result)
    print(f"wrote {RESULTS}")
    return 0 if result.validate_ok and result.cold_start_ok and result.rss_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
