"""The pull-request gate on a fake judge with known per-query trigger probabilities.

Twenty queries (14 should trigger, 6 should not) with pass probabilities drawn once in
[0.6, 0.95] (seeded). Three figures, each with its target:

(a) power: the head lowers the pass rate of 4 of the 20 queries by 0.3; `gate --runs planned
    --effect 0.3 --affected 0.2 --power 0.9` must say "regressed" in ≥ 90 % of 50 seeded gates;
(b) A/A: 100 gates with base = head on fresh runs (`--aa 100`, planned runs likewise): the
    false-alarm rate must be ≤ alpha = 0.05, or its Wilson interval must reach down to it;
(c) a re-run of an unchanged pull request (same base, same head, same cache) makes 0 calls.

No network, no model: the judge (tests/gate_fakes.py) draws each run from a hash of (seed, run
index, query, description). Writes benchmarks/results/gate.json.

    .venv/bin/python benchmarks/bench_gate.py [--gates 50] [--aa 100]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from gate_fakes import ProbabilityJudge, skill_repo, table_rates  # noqa: E402

from skillbench.aio import run_sync  # noqa: E402
from skillbench.backends import registry  # noqa: E402
from skillbench.gate.aa import run_aa  # noqa: E402
from skillbench.gate.run import GateOptions, run_gate  # noqa: E402
from skillbench.io import write_json  # noqa: E402
from skillbench.stats import wilson_interval  # noqa: E402
from skillbench.trigger.options import TriggerOptions  # noqa: E402

RESULTS = HERE / "results" / "gate.json"
ALPHA = 0.05
EFFECT, AFFECTED, POWER = 0.3, 0.2, 0.9
BASE_TEXT, HEAD_TEXT = "Clean CSV files before analysis.", "Clean CSV files (worse wording)."


def eval_set(
    rng: random.Random,
) -> tuple[list[dict[str, object]], dict[str, float], dict[str, float]]:
    """Queries, their trigger probabilities under the base, and under the regressed head."""
    queries, base = [], {}
    for i in range(20):
        text, should = f"bench query {i}: tidy up this spreadsheet export", i < 14
        passing = rng.uniform(0.6, 0.95)
        base[text] = passing if should else 1 - passing
        queries.append({"query": text, "should_trigger": should})
    head = {}
    for row in rng.sample(queries, 4):  # 4 of 20 queries lose 0.3 of their pass rate
        text = str(row["query"])
        head[text] = base[text] - EFFECT if row["should_trigger"] else base[text] + EFFECT
    return queries, base, head


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gates", type=int, default=50)
    parser.add_argument("--aa", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(25)
    queries, base, head = eval_set(rng)
    judge = ProbabilityJudge(table_rates(base, {HEAD_TEXT: head}))
    registry.register_judge("fake-p", lambda **_: judge)
    tmp = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    skill = skill_repo(tmp / "repo", BASE_TEXT, HEAD_TEXT)
    evals = tmp / "evals.json"
    evals.write_text(json.dumps(queries), encoding="utf-8")

    def options(seed: int, **more: object) -> GateOptions:
        trigger = TriggerOptions(backend="fake-p", use_cache=False, seed=seed)
        return GateOptions(trigger=trigger, runs="planned", effect=EFFECT,
                           affected=AFFECTED, power=POWER, alpha=ALPHA, **more)  # type: ignore[arg-type]  # fmt: skip

    started = time.perf_counter()
    caught, planned = 0, []
    for seed in range(args.gates):
        report = run_sync(lambda s=seed: run_gate(skill, evals, options(s), base_ref="main"))
        caught += report.verdict == "regressed"
        planned.append(report.runs)
    power_seconds = time.perf_counter() - started
    low, high = wilson_interval(caught, args.gates)

    started = time.perf_counter()
    aa = run_sync(lambda: run_aa(skill, evals, options(10_000), args.aa))
    aa_seconds = time.perf_counter() - started

    cache = tmp / "cache.sqlite"
    cached = GateOptions(
        trigger=TriggerOptions(backend="fake-p", cache_path=cache), runs=10, alpha=ALPHA
    )
    run_sync(lambda: run_gate(skill, evals, cached, base_ref="main"))
    judge.calls = 0
    again = run_sync(lambda: run_gate(skill, evals, cached, base_ref="main"))
    rerun_calls = judge.calls

    figures = {
        "queries": len(queries),
        "regressed_queries": len(head),
        "effect": EFFECT,
        "power_planned": POWER,
        "gates": args.gates,
        "planned_runs_min": min(planned),
        "planned_runs_median": sorted(planned)[len(planned) // 2],
        "planned_runs_max": max(planned),
        "caught": caught,
        "caught_rate": caught / args.gates,
        "caught_interval": [round(low, 4), round(high, 4)],
        "aa_gates": aa.repetitions,
        "aa_false_alarms": aa.false_alarms,
        "aa_false_alarm_rate": aa.false_alarm_rate,
        "aa_interval": [round(x, 4) for x in aa.interval],
        "aa_false_regressions": aa.false_regressions,
        "rerun_calls": rerun_calls,
        "rerun_report_calls": again.cost.calls if again.cost else None,
        "seconds_power": round(power_seconds, 1),
        "seconds_aa": round(aa_seconds, 1),
    }
    targets = {
        "caught in >= 90% of gates": caught / args.gates >= 0.9,
        "A/A false alarms <= alpha (+ interval)": aa.interval[0] <= ALPHA,
        "unchanged re-run makes 0 calls": rerun_calls == 0,
    }
    write_json(RESULTS, {"figures": figures, "targets": targets})
    for key, value in figures.items():
        print(f"{key}: {value}")
    for name, met in targets.items():
        print(f"{'met' if met else 'MISSED'}: {name}")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
