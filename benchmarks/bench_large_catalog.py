"""The local backend on a large catalog (issue 27.4): linear in the number of skills.

`skillbench trigger --backend local --catalog DIR` runs in-process (catalog loading, cache keys,
the embedding, routing, the report) against generated catalogs of 2,000 and 20,000 skills
(descriptions varied from `sample_catalog.SKILLS`, so every text is new to the model), one
query set of 10 queries, 3 runs each, on a fresh call cache ("cold"), then again with 10 other
queries on another fresh call cache but the embedding store kept ("warm": the catalog's vectors
are read from `embeddings.sqlite` beside the cache). Before the fix a catalog of more
than ~4,095 skills never finished (the 8,192-text embedding cache evicted, cleared and
re-embedded in a loop).

Two modes: `--model` (the default) embeds with the real int8 MiniLM model, so the figure is
what a user waits; `--instant` swaps in an instant embedder, so the figure is skillbench's own
cost per skill. Target: per-skill time at 20,000 at most `MAX_RATIO` × that at 2,000.
Writes benchmarks/results/large_catalog.json (or large_catalog_instant.json).

    .venv/bin/python benchmarks/bench_large_catalog.py [--instant] [--workers N] [--sizes 2000,20000]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field
from sample_catalog import SKILLS

from skillbench.backends.offline import local
from skillbench.cli import main as cli_main
from skillbench.io import write_json

RESULTS = Path(__file__).resolve().parent / "results"
SIZES = (2_000, 20_000)
QUERIES = 10
RUNS = 3
MAX_RATIO = 1.5


class InstantEmbedder:
    """Hash-seeded unit vectors at once: isolates skillbench's own cost per skill."""

    def encode(self, texts: list[str]) -> NDArray[np.float32]:
        rows = [
            np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(local.DIMENSION)
            for t in texts
        ]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), local.DIMENSION)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


class Size(BaseModel):
    """One catalog size, one run: `cold` (fresh call cache and embedding store) or `warm` (a
    fresh call cache and other queries, the embedding store kept from the cold run)."""

    skills: int
    run: str
    texts_embedded: int
    seconds: float
    cpu_seconds: float
    milliseconds_per_skill: float


class LargeCatalogBench(BaseModel):
    """benchmarks/results/large_catalog*.json."""

    benchmark: str = "skillbench-local-large-catalog"
    embedder: str
    workers: int
    queries: int = QUERIES
    runs_per_query: int = RUNS
    sizes: list[Size]
    ratio_largest_to_smallest_per_skill: float = Field(description="cold runs")
    max_ratio: float = MAX_RATIO
    linear: bool
    note: str


def write_catalog(folder: Path, n: int) -> None:
    """`n` skill folders, each a SKILL.md with a distinct description."""
    for i in range(n):
        base = SKILLS[i % len(SKILLS)]
        name = f"{base.name}-{i}"
        skill = folder / name
        skill.mkdir(parents=True)
        description = f"{base.description} Variant {i} for team {i % 97}."
        (skill / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\nBody {i}.\n"
        )


def one_run(root: Path, n: int, workers: int, run: str) -> tuple[float, float]:
    """`skillbench trigger` once on a fresh cache; (wall, CPU) seconds (output swallowed). On
    a shared machine the CPU seconds are the steadier figure."""
    argv = [
        "trigger", str(root / "target"), "--evals", str(root / f"evals-{run}.json"),
        "--backend", "local", "--runs", str(RUNS), "--workers", str(workers),
        "--catalog", str(root / f"catalog-{n}"),
        "--cache", str(root / f"cache-{n}" / f"calls-{run}.sqlite"),
        "--out", str(root / f"report-{n}-{run}.json"),
    ]  # fmt: skip
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(argv)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if code not in (0, 1):
        raise RuntimeError(f"skillbench trigger exited {code}")
    return seconds, cpu


def main() -> int:
    """Time each size; write and print the figures; exit 1 when scaling is not linear."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instant", action="store_true", help="instant embedder (no model)")
    parser.add_argument("--workers", type=int, default=1, help="onnxruntime threads")
    parser.add_argument(
        "--sizes", default=",".join(map(str, SIZES)), help="catalog sizes, comma-separated"
    )
    parser.add_argument("--results", help="file name under benchmarks/results/")
    args = parser.parse_args()
    sizes_wanted = [int(n) for n in args.sizes.split(",")]
    counted = {"texts": 0}
    if args.instant:
        fake = InstantEmbedder()
        local.load_model = lambda *a, **k: fake  # type: ignore[assignment]
    real_encode = local.Embedder.encode

    def counting(self: local.Embedder, texts: list[str]) -> NDArray[np.float32]:
        counted["texts"] += len(texts)
        return real_encode(self, texts)

    local.Embedder.encode = counting  # type: ignore[method-assign]
    original = InstantEmbedder.encode

    def counting_fake(self: InstantEmbedder, texts: list[str]) -> NDArray[np.float32]:
        counted["texts"] += len(texts)
        return original(self, texts)

    InstantEmbedder.encode = counting_fake  # type: ignore[method-assign]
    sizes: list[Size] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "target").mkdir()
        (root / "target" / "SKILL.md").write_text(
            "---\nname: target-skill\ndescription: Repairs broken CSV exports. Use when a CSV "
            "will not load.\n---\nBody.\n"
        )
        for run in ("cold", "warm"):
            queries = [
                {"query": f"my csv export number {i} will not load ({run})", "should_trigger": True}
                for i in range(QUERIES)
            ]
            (root / f"evals-{run}.json").write_text(json.dumps(queries))
        if not args.instant:
            local.load_model(threads=args.workers).encode(["warm up"])  # model load not counted
        for n in sizes_wanted:
            write_catalog(root / f"catalog-{n}", n)
            for run in ("cold", "warm"):
                counted["texts"] = 0
                seconds, cpu = one_run(root, n, args.workers, run)
                sizes.append(
                    Size(
                        skills=n,
                        run=run,
                        texts_embedded=counted["texts"],
                        seconds=round(seconds, 2),
                        cpu_seconds=round(cpu, 2),
                        milliseconds_per_skill=round(seconds / n * 1e3, 3),
                    )
                )
                print(
                    f"{n:>6} skills, {run}: {seconds:7.1f} s wall, {cpu:7.1f} s CPU, "
                    f"{counted['texts']} texts embedded",
                    flush=True,
                )
    cold = [s for s in sizes if s.run == "cold"]
    ratio = cold[-1].milliseconds_per_skill / cold[0].milliseconds_per_skill
    result = LargeCatalogBench(
        embedder="instant (no model)" if args.instant else local.MODEL_NAME,
        workers=args.workers,
        sizes=sizes,
        ratio_largest_to_smallest_per_skill=round(ratio, 3),
        linear=ratio <= MAX_RATIO,
        note="in-process CLI on a fresh call cache; cold: every catalog text embedded once; "
        "warm: other queries, the vectors read from the embedding store beside the cache; "
        "the machine is shared (8 agents on 2 cores), so wall figures vary: CPU seconds are "
        "the steadier figure",
    )
    name = args.results or ("large_catalog_instant.json" if args.instant else "large_catalog.json")
    write_json(RESULTS / name, result)
    print(
        f"per-skill time ratio (cold) {cold[-1].skills} / {cold[0].skills}: {ratio:.2f} "
        f"(target ≤ {MAX_RATIO})"
    )
    return 0 if result.linear else 1


if __name__ == "__main__":
    sys.exit(main())
