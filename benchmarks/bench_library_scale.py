"""`skillbench library` on 10,000 skills with the lexical backend (issue 38): time and memory.

Before the fix 10,000 skills printed nothing in 400 s and grew past 1.7 GB (15 GB in another
run); 2,000 took 58 s and 1.57 GB: the overlap pre-screen held a skills × skills matrix of Python
floats, the lexical backend re-tokenised the whole catalog for every query-run, the per-skill
figures walked every flow for every skill, and the confusion matrix was dense.

A generated library (`build_library`: every skill a distinct description of pseudo-words, some
shared with its neighbour, and an eval set of 2 should-trigger queries and 1 should-not-trigger
query) is routed by the real CLI in a child process, as a user runs it:
`skillbench library DIR --backend lexical` (3 runs per query, the default; the lexical overlap
pre-screen, the default; a fresh call cache; the report written with `--out`). The child's wall
seconds, CPU seconds and peak RSS (`RUSAGE_CHILDREN`, the library's process alone, not this
generator) are compared with the bounds.

Targets at 10,000 skills: at most 60 s and 1 GiB (ratios ≤ 1). The machine is shared (2 cores,
several agents), so the wall figure moves with the load: the CPU seconds are the steadier one and
are reported beside it. Writes benchmarks/results/library_scale.json; exits 1 when a bound is
missed.

    .venv/bin/python benchmarks/bench_library_scale.py [--sizes 1000,10000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, Field

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from skillbench.io import write_json  # noqa: E402

RESULTS = HERE / "results" / "library_scale.json"
SIZES = (10_000,)
RUNS = 3
BOUND_SECONDS = 60.0
BOUND_MB = 1024.0


class Size(BaseModel):
    """One library size routed once."""

    skills: int
    queries: int
    calls: int
    exit_code: int
    seconds: float
    cpu_seconds: float
    peak_mb: float
    report_mb: float
    seconds_ratio: float = Field(description="seconds / 60")
    cpu_seconds_ratio: float = Field(description="CPU seconds / 60")
    peak_ratio: float = Field(description="peak RSS / 1 GiB")


class LibraryScaleBench(BaseModel):
    """benchmarks/results/library_scale.json."""

    benchmark: str = "skillbench-library-scale"
    command: str
    runs_per_query: int = RUNS
    bound_seconds: float = BOUND_SECONDS
    bound_mb: float = BOUND_MB
    sizes: list[Size]
    within_bounds: bool
    note: str


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))


def build_library(root: Path, n: int) -> None:
    """`n` skills, each a SKILL.md with a distinct description and evals/trigger.json holding 2
    should-trigger queries (one word of its neighbour in each) and 1 should-not-trigger query."""
    rng = random.Random(38)
    vocab = [[pseudo_word(rng) for _ in range(6)] for _ in range(n)]
    for i in range(n):
        name = f"skill-{i:05d}"
        words = vocab[i]
        description = (
            f"Handles {' '.join(words)} work for the team. Use when the user asks about "
            f"{words[0]} or {words[1]}."
        )
        folder = root / name
        (folder / "evals").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n", encoding="utf-8"
        )
        neighbour = vocab[(i + 1) % n]
        queries = [
            {
                "query": f"query {i}-{k}: sort out the "
                f"{' '.join(rng.sample(words, 2) + rng.sample(neighbour, 1))} thing",
                "should_trigger": True,
            }
            for k in range(2)
        ]
        queries.append({"query": f"what is the weather like in town {i}", "should_trigger": False})
        (folder / "evals" / "trigger.json").write_text(json.dumps(queries), encoding="utf-8")


def route(root: Path, n: int) -> Size:
    """The CLI in a child process on a fresh cache; its wall and CPU seconds and peak RSS."""
    library, report = root / f"library-{n}", root / f"report-{n}.json"
    build_library(library, n)
    argv = [
        sys.executable, "-m", "skillbench", "library", str(library), "--backend", "lexical",
        "--runs", str(RUNS), "--cache", str(root / f"cache-{n}.sqlite"), "--out", str(report),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"skillbench library exited {proc.returncode}: {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = after.ru_maxrss / 1024  # the largest child so far: sizes run smallest first
    data = json.loads(report.read_text(encoding="utf-8"))
    return Size(
        skills=len(data["skills"]),
        queries=len(data["queries"]),
        calls=data["calls"],
        exit_code=proc.returncode,
        seconds=round(seconds, 2),
        cpu_seconds=round(cpu, 2),
        peak_mb=round(peak, 1),
        report_mb=round(report.stat().st_size / 2**20, 1),
        seconds_ratio=round(seconds / BOUND_SECONDS, 3),
        cpu_seconds_ratio=round(cpu / BOUND_SECONDS, 3),
        peak_ratio=round(peak / BOUND_MB, 3),
    )


def main() -> int:
    """Route each size; write and print the figures; exit 1 when the largest misses a bound."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="library sizes")
    args = parser.parse_args()
    sizes = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(int(s) for s in args.sizes.split(",")):
            size = route(Path(tmp), n)
            sizes.append(size)
            print(
                f"{n:>6} skills, {size.queries} queries, {size.calls} calls: {size.seconds:.1f} s "
                f"wall ({size.seconds_ratio:.2f} of {BOUND_SECONDS:.0f} s), {size.cpu_seconds:.1f} s "
                f"CPU ({size.cpu_seconds_ratio:.2f}), peak {size.peak_mb:.0f} MB "
                f"({size.peak_ratio:.2f} of 1 GiB), report {size.report_mb} MB, exit {size.exit_code}",
                flush=True,
            )
    largest = sizes[-1]
    result = LibraryScaleBench(
        command=f"skillbench library DIR --backend lexical --runs {RUNS} --cache C --out R",
        sizes=sizes,
        within_bounds=largest.seconds_ratio <= 1 and largest.peak_ratio <= 1,
        note="the CLI in a child process on a fresh call cache; peak RSS of that process only; "
        "the machine is shared (2 cores, several agents), so the wall figure moves with the "
        "load: CPU seconds are the steadier figure",
    )
    write_json(RESULTS, result)
    return 0 if result.within_bounds else 1


if __name__ == "__main__":
    sys.exit(main())
