"""Linear scaling of `skillbench trigger` in the number of queries (1k to 50k).

Runs the whole command in-process (`skillbench.cli.main`: eval-set loading and checks, the call
cache, the run loop, progress, report building, the capped terminal table, `--out` writing)
with an instant in-process judge, so the figure is skillbench's own overhead per query. Each
size runs on a fresh call cache, best of `REPEATS`. Target: the time per query at 50,000
queries is at most `MAX_RATIO` times that at 1,000 (linear; it was superlinear before the
terminal table was capped and redaction made linear).
Writes benchmarks/results/scale.json.

    .venv/bin/python benchmarks/bench_scale.py
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from skillbench.backends import registry
from skillbench.backends.base import CallUsage, TriggerOutcome, TriggerRequest
from skillbench.cli import main as cli_main
from skillbench.io import write_json

RESULTS = Path(__file__).resolve().parent / "results" / "scale.json"
SIZES = (1_000, 5_000, 20_000, 50_000)
REPEATS = 2
MAX_RATIO = 1.5


class InstantJudge:
    """Answers at once (no model): isolates skillbench's per-query cost."""

    name, model, is_proxy = "instant", "instant-1", False

    def identity(self) -> dict[str, Any]:
        return {"backend": "instant"}

    def versions(self) -> dict[str, str]:
        return {"instant": "1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        return TriggerOutcome(len(request.query) % 2 == 0, fired=None, usage=CallUsage())

    async def aclose(self) -> None:
        return None


class Size(BaseModel):
    """One eval-set size."""

    queries: int
    seconds: float
    microseconds_per_query: float


class ScaleBench(BaseModel):
    """benchmarks/results/scale.json."""

    benchmark: str = "skillbench-trigger-scaling"
    runs_per_query: int = 1
    repeats: int = REPEATS
    sizes: list[Size]
    ratio_largest_to_smallest_per_query: float
    max_ratio: float = MAX_RATIO
    linear: bool
    note: str


def one_run(root: Path, skill: Path, evals: Path, tag: str) -> float:
    """`skillbench trigger` once on a fresh cache; wall seconds (stdout swallowed)."""
    argv = [
        "trigger", str(skill), "--evals", str(evals), "--backend", "instant", "--runs", "1",
        "--catalog", str(root / "catalog"), "--cache", str(root / f"cache-{tag}.sqlite"),
        "--out", str(root / f"report-{tag}.json"),
    ]  # fmt: skip
    sink = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(argv)
    seconds = time.perf_counter() - start
    if code not in (0, 1):
        raise RuntimeError(f"skillbench trigger exited {code}")
    return seconds


def main() -> int:
    """Time each size; write and print the figures; exit 1 when scaling is not linear."""
    registry.register_judge("instant", lambda **_: InstantJudge())
    sizes: list[Size] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "catalog").mkdir()
        skill = root / "scale-skill"
        skill.mkdir()
        (skill / "SKILL.md").write_text(
            "---\nname: scale-skill\ndescription: Answers scale questions.\n---\nBody.\n"
        )
        for n in (200, *SIZES):  # 200: warm-up (imports, first-use costs), not reported
            evals = root / f"evals-{n}.json"
            items = [
                {"query": f"query {i} about scale", "should_trigger": i % 2 == 0} for i in range(n)
            ]
            evals.write_text(json.dumps(items))
            best = min(one_run(root, skill, evals, f"{n}-{k}") for k in range(REPEATS))
            if n in SIZES:
                sizes.append(
                    Size(
                        queries=n,
                        seconds=round(best, 3),
                        microseconds_per_query=round(best / n * 1e6, 1),
                    )
                )
                print(f"{n:>6} queries: {best:7.2f} s  {best / n * 1e6:7.1f} µs/query", flush=True)
    ratio = sizes[-1].microseconds_per_query / sizes[0].microseconds_per_query
    result = ScaleBench(
        sizes=sizes,
        ratio_largest_to_smallest_per_query=round(ratio, 3),
        linear=ratio <= MAX_RATIO,
        note="in-process CLI with an instant judge: skillbench's own cost per query; a real "
        "model adds its latency per call on top; the machine is shared, so figures vary",
    )
    write_json(RESULTS, result)
    print(
        f"per-query time ratio {SIZES[-1]} / {SIZES[0]} queries: {ratio:.2f} (target ≤ {MAX_RATIO})"
    )
    return 0 if result.linear else 1


if __name__ == "__main__":
    sys.exit(main())
