"""The first run's cost against its dry-run estimate, with a prompt cache that fills late.

Issue 31 item 3. The API makes a prompt-cache entry readable only once the response that writes
it has begun; with 16 workers every call of the first wave used to write the ~27k-token prefix
again (a real first run: $0.245 estimated, $0.686 spent). The judges now prime the cache: one
call per breakpoint prefix goes first, the rest once its response has begun
(`backends/anthropic/priming.py`), and the estimate prices one write per prefix.

Offline: the loopback fake of billing_api.py (tests/prompt_cache_fake.py's cache: a written
prefix is readable only once its response begins, `FIRST_BYTE` seconds after the request),
dummy key. For each harness (replay, the default: Claude Code's captured request; minimal): the
`--dry-run` estimate, then the same trigger eval for real with 16 workers, then with
`--workers 1`, each with a cold call cache and a cold prompt cache. For comparison the 16-worker
run is repeated with priming switched off (the old behaviour). Targets: fanned-out run ≤ 1.15 ×
its estimate and ≤ 1.3 × the `--workers 1` run. Writes benchmarks/results/first_run_cost.json.
Skips the replay harness (exit 0) when the Claude Code CLI is not installed.

    .venv/bin/python benchmarks/bench_first_run_cost.py
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from billing_api import BillingServer

from skillbench.aio import blocking
from skillbench.backends.anthropic import priming
from skillbench.io import write_json
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import evaluate_skill_sync, plan_skill_eval

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "first_run_cost.json"
CLI = ROOT / ".tools" / "node_modules" / ".bin" / "claude"
SKILL = ROOT / "data" / "skills" / "commit-message-writer"
EVALS = ROOT / "data" / "evals" / "commit-message-writer.trigger.json"
CATALOG = ROOT / "data" / "catalog"
MODELS = ("claude-sonnet-4-5", "claude-haiku-4-5")
"""sonnet-4-5's caching minimum is 1,024 tokens: both harnesses' prefixes are cached; haiku-4-5's
is 4,096: the minimal harness's ~2,500-token prefix is not (the fake models the minimum)."""
FIRST_BYTE = 0.3  # seconds from a request to its first byte (the model reading the prompt)
WORKERS = 16
RUNS = 1
MAX_VS_ESTIMATE, MAX_VS_SERIAL = 1.15, 1.3


@contextmanager
def priming_off() -> Iterator[None]:
    """Every call goes at once, as before priming (the comparison row)."""

    async def no_wait(self: priming.CachePrimer, keys: Any) -> priming.Release:
        return priming._nothing

    original = priming.CachePrimer.acquire
    priming.CachePrimer.acquire = no_wait  # type: ignore[method-assign]
    try:
        yield
    finally:
        priming.CachePrimer.acquire = original  # type: ignore[method-assign]


def one_run(api: BillingServer, options: TriggerOptions) -> dict[str, Any]:
    api.ledger.forget()  # a cold prompt cache
    before = api.ledger.count()
    report = evaluate_skill_sync(SKILL, EVALS, options)
    assert report.cost is not None
    rows = api.ledger.rows[before:]
    return {
        "dollars": float(report.cost.dollars),
        "calls": report.cost.calls,
        "errors": report.summary.errored_runs or 0,
        "cache_writes": sum(1 for r in rows if r["cache_creation_input_tokens"]),
        "cache_creation_input_tokens": report.cost.tokens.cache_creation_input_tokens,
        "cache_read_input_tokens": report.cost.tokens.cache_read_input_tokens,
        "output_tokens": report.cost.tokens.output_tokens,
    }


def measure(api: BillingServer, tmp: Path, harness: str, model: str) -> dict[str, Any]:
    def options(name: str, workers: int) -> TriggerOptions:
        return TriggerOptions(
            backend="anthropic",
            model=model,
            harness=harness,
            catalog_dir=CATALOG,
            runs=RUNS,
            workers=workers,
            cache_path=tmp / f"{model}-{harness}-{name}.sqlite",  # a cold call cache per run
        )

    plan = blocking(plan_skill_eval)(SKILL, EVALS, options("fanned", WORKERS))
    estimate = {
        "dollars": float(plan.estimate.dollars),
        "calls": plan.estimate.calls,
        "cache_creation_input_tokens": plan.estimate.tokens.cache_creation_input_tokens,
        "cache_read_input_tokens": plan.estimate.tokens.cache_read_input_tokens,
        "output_tokens": plan.estimate.tokens.output_tokens,
    }
    fanned = one_run(api, options("fanned", WORKERS))
    serial = one_run(api, options("serial", 1))
    with priming_off():
        unprimed = one_run(api, options("unprimed", WORKERS))
    result = {
        "estimate": estimate,
        f"workers_{WORKERS}": fanned,
        "workers_1": serial,
        f"workers_{WORKERS}_without_priming": unprimed,
        "actual_over_estimate": round(fanned["dollars"] / estimate["dollars"], 3),
        "fanned_over_serial": round(fanned["dollars"] / serial["dollars"], 3),
        "unprimed_over_estimate": round(unprimed["dollars"] / estimate["dollars"], 3),
    }
    print(f"{harness} harness ({model}, {plan.estimate.calls} calls, first byte {FIRST_BYTE} s):")
    print(f"  dry-run estimate            ${estimate['dollars']:.4f}")
    for label, row in (
        (f"--workers {WORKERS}", fanned),
        ("--workers 1", serial),
        (f"--workers {WORKERS}, no priming", unprimed),
    ):
        print(
            f"  {label:<27} ${row['dollars']:.4f}  (calls {row['calls']}, cache writes "
            f"{row['cache_writes']}: {row['cache_creation_input_tokens']} tokens, errors "
            f"{row['errors']})"
        )
    print(
        f"  actual / estimate {result['actual_over_estimate']} (target ≤ {MAX_VS_ESTIMATE}); "
        f"{WORKERS} workers / 1 worker {result['fanned_over_serial']} (target ≤ {MAX_VS_SERIAL}); "
        f"without priming: actual / estimate {result['unprimed_over_estimate']}"
    )
    return result


def main() -> int:
    """Measure both harnesses; exit 1 when a target is missed."""
    harnesses = ["replay", "minimal"]
    if not CLI.exists() and not shutil.which("claude"):
        print("SKIP replay: the Claude Code CLI is not installed (make claude)")
        harnesses = ["minimal"]
    results: dict[str, Any] = {"first_byte_seconds": FIRST_BYTE, "workers": WORKERS}
    failures: list[str] = []
    with BillingServer() as api, tempfile.TemporaryDirectory(prefix="bench-first-run-") as tmp:
        api.first_byte_delay = FIRST_BYTE
        os.environ["ANTHROPIC_BASE_URL"] = api.url
        os.environ["ANTHROPIC_API_KEY"] = "bench-dummy-key-not-secret"
        for model in MODELS:
            for harness in harnesses:
                r = results[f"{model} {harness}"] = measure(api, Path(tmp), harness, model)
                name = f"{model} {harness}"
                if r["actual_over_estimate"] > MAX_VS_ESTIMATE:
                    failures.append(f"{name}: actual / estimate {r['actual_over_estimate']}")
                if r["fanned_over_serial"] > MAX_VS_SERIAL:
                    failures.append(f"{name}: fanned-out / workers 1 {r['fanned_over_serial']}")
                for key in (f"workers_{WORKERS}", "workers_1"):
                    if r[key]["errors"]:
                        failures.append(f"{name} {key}: {r[key]['errors']} run(s) errored")
    results["failures"] = failures
    write_json(RESULTS, results)
    print("\n".join(f"MISSED: {f}" for f in failures) or "all targets met")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
