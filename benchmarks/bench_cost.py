"""Estimate versus actual spend: trigger evals and an improvement loop against a local fake API.

The fake (`billing_api.BillingServer`, loopback only, dummy key) bills every request the way
prompt caching is billed, by breakpoint (see billing_api.py), answers `count_tokens`, routes
Skill-offering requests by word overlap, and answers an improver with a `<new_description>`.
Workflows: a trigger eval on the replay harness (the default: Claude Code's captured request,
whose last breakpoint is on the query) and on the minimal harness, and an improvement loop
(replay; one capture per candidate description). For each it first asks for the `--dry-run`
estimate (fresh cache), then runs it for real and prints estimate / actual for calls, each token
kind and dollars; then it checks the re-run estimate (everything cached: 0 calls, $0) and the
cap: a cap below the estimate is refused (CostCapError, exit 3) and a cap inside the run stops it
cleanly.

Caveat: the fake counts tokens as characters / 4, the same rule as the offline estimate, so the
input ratios here check the accounting (which calls, which prefix is written or read, hits free),
not a tokenizer; against the real API use a key (count_tokens) for exact input counts.
Writes benchmarks/results/cost.json. Target: calls, each input kind and dollars within
[0.8, 1.25]. Output tokens are printed but not held to it: with an empty cache the estimate uses
the stated default (60 tokens per routing reply; the fake answers ~20-30), which is the point
of stating it.

    .venv/bin/python benchmarks/bench_cost.py
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from billing_api import BillingServer

from skillbench.aio import blocking
from skillbench.cost.budget import Budget
from skillbench.errors import CostCapError
from skillbench.improve.options import ImproveOptions
from skillbench.improve.run import improve_skill_sync, plan_improve
from skillbench.io import write_json
from skillbench.schemas.cost import CostBlock
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import evaluate_skill_sync, plan_skill_eval

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "cost.json"
SKILL = ROOT / "data" / "skills" / "commit-message-writer"
EVALS = ROOT / "data" / "evals" / "commit-message-writer.trigger.json"
CATALOG = ROOT / "data" / "catalog"
MODEL = "claude-sonnet-4-5"
LOW, HIGH = 0.8, 1.25
_WORD = re.compile(r"[a-z]{4,}")


class CostApi(BillingServer):
    """The billing fake, plus an improver that rewrites the description from the failing
    queries (a request without tools asking for a `<new_description>`)."""

    def __init__(self) -> None:
        super().__init__(target=None)
        self.improves = 0
        self.lock = threading.Lock()

    def text_reply(self, body: dict[str, Any]) -> str:
        text = json.dumps(body.get("messages"))
        if body.get("tools") or "new_description" not in text:
            return "OK."
        with self.lock:
            self.improves += 1
            words = sorted(set(_WORD.findall(text.lower())))[: 20 + self.improves % 7]
        new = (
            "Writes clear git commit messages from staged changes and diffs. Use when the "
            "user asks for a commit message, to summarise a change for git, or mentions "
            + ", ".join(words)
            + "."
        )
        return f"<new_description>{new}</new_description>"


def ratios(estimate: CostBlock, actual: CostBlock) -> dict[str, float | None]:
    """estimate / actual for calls, each token kind and dollars (None when actual is 0)."""

    def ratio(est: float, act: float) -> float | None:
        return round(est / act, 3) if act else None

    e, a = estimate.tokens, actual.tokens
    return {
        "calls": ratio(estimate.calls, actual.calls),
        "input_tokens": ratio(e.input_tokens, a.input_tokens),
        "cache_creation_input_tokens": ratio(
            e.cache_creation_input_tokens, a.cache_creation_input_tokens
        ),
        "cache_read_input_tokens": ratio(e.cache_read_input_tokens, a.cache_read_input_tokens),
        "output_tokens": ratio(e.output_tokens, a.output_tokens),
        "dollars": ratio(float(estimate.dollars), float(actual.dollars)),
    }


def show(name: str, estimate: CostBlock, actual: CostBlock) -> dict[str, Any]:
    """Print one workflow's estimate, actual and ratios; return them for the results file."""
    r = ratios(estimate, actual)
    print(f"{name}: estimate ${float(estimate.dollars):.4f}, actual ${float(actual.dollars):.4f}")
    for key, value in r.items():
        print(f"  estimate/actual {key:<28} {value}")
    return {"estimate": estimate.to_json_dict(), "actual": actual.to_json_dict(), "ratios": r}


def main() -> int:
    """Run both workflows; exit 1 when a ratio falls outside the target or a check fails."""
    results: dict[str, Any] = {}
    failures: list[str] = []
    with CostApi() as api, tempfile.TemporaryDirectory(prefix="bench-cost-") as tmp:
        os.environ["ANTHROPIC_BASE_URL"] = api.url
        os.environ["ANTHROPIC_API_KEY"] = "bench-dummy-key-not-secret"
        cache = Path(tmp) / "cache.sqlite"
        common = {
            "backend": "anthropic",
            "model": MODEL,
            "cache_path": cache,
            "catalog_dir": CATALOG,
        }

        for name, harness in (("trigger", "replay"), ("trigger_minimal", "minimal")):
            run = TriggerOptions(**common, runs=3, harness=harness)
            plan = plan_skill_eval_sync(SKILL, EVALS, run)
            api.ledger.forget()  # each workflow starts with a cold prompt cache
            report = evaluate_skill_sync(SKILL, EVALS, run)
            assert report.cost is not None
            errors = report.summary.errored_runs or 0
            results[name] = show(f"trigger eval ({harness} harness)", plan.estimate, report.cost)
            results[name]["basis"] = [line.basis for line in plan.estimate.lines]
            results[name]["errors"] = errors
            if errors:
                failures.append(f"{name}: {errors} run(s) errored")
            again = plan_skill_eval_sync(SKILL, EVALS, run)
            print(f"  re-run estimate: calls {again.estimate.calls}, ${again.estimate.dollars}")
            if again.estimate.calls != 0 or again.estimate.dollars != 0.0:
                failures.append(f"{name}: re-run estimate is not free")
            results[name]["rerun_estimate_calls"] = again.estimate.calls

        loop = ImproveOptions(trigger=TriggerOptions(**common, runs=2, seed=1), rounds=4)
        loop_plan = plan_improve_sync(SKILL, EVALS, loop)
        out = Path(tmp) / "improve"
        api.ledger.forget()
        result = improve_skill_sync(SKILL, EVALS, loop, out=out)
        actual = result.summary.cost
        assert actual is not None
        rounds = result.summary.total_rounds
        results["improve"] = show(f"improve loop ({rounds} rounds run)", loop_plan.estimate, actual)
        results["improve"]["rounds_run"] = rounds
        results["improve"]["stop_reason"] = result.summary.stop_reason
        results["improve"]["per_round_dollars"] = [
            it.cost.dollars if it.cost else None for it in result.summary.iterations
        ]
        print(f"  per round: {results['improve']['per_round_dollars']}")

        fresh = loop.but(trigger=loop.trigger.but(cache_path=Path(tmp) / "cap.sqlite", seed=2))
        estimate = float(plan_improve_sync(SKILL, EVALS, fresh).estimate.dollars)
        try:
            improve_skill_sync(
                SKILL, EVALS, capped_at(fresh, estimate / 2), out=Path(tmp) / "refused"
            )
            failures.append("a cap below the estimate was not refused")
        except CostCapError as exc:
            print(f"  cap ${estimate / 2:.4f} < estimate: refused ({exc})")
        # The safety net: a session budget whose cap the run reaches (the estimate was not
        # checked against it), then a re-run with a higher cap that resumes from the cache.
        budget = Budget(estimate / 2)
        capped = improve_skill_sync(SKILL, EVALS, fresh, out=Path(tmp) / "capped", budget=budget)
        cost = capped.summary.cost
        assert cost is not None
        print(
            f"  budget ${estimate / 2:.4f}: {capped.summary.stop_reason}; spent "
            f"{cost.dollars} in {cost.calls} calls; stopped_at_cap={cost.stopped_at_cap}"
        )
        if not cost.stopped_at_cap or not (Path(tmp) / "capped" / "loop_summary.json").is_file():
            failures.append("the capped loop did not stop cleanly with its outputs written")
        resumed = improve_skill_sync(
            SKILL, EVALS, capped_at(fresh, estimate * 2), out=Path(tmp) / "resumed"
        )
        rcost = resumed.summary.cost
        assert rcost is not None
        print(
            f"  re-run with cap ${estimate * 2:.4f}: {rcost.calls} calls, "
            f"{rcost.cache_hits} cache hits ({rcost.cache_hit_share}), {resumed.summary.stop_reason}"
        )
        results["cap"] = {
            "budget_usd": estimate / 2,
            "stop_reason": capped.summary.stop_reason,
            "spent_usd": cost.dollars,
            "resumed_calls": rcost.calls,
            "resumed_cache_hits": rcost.cache_hits,
            "fake_count_tokens_calls": api.ledger.counted,
        }
    for name in ("trigger", "trigger_minimal", "improve"):
        for key, value in results[name]["ratios"].items():
            if key != "output_tokens" and value is not None and not LOW <= value <= HIGH:
                failures.append(f"{name} {key} ratio {value} outside [{LOW}, {HIGH}]")
    results["failures"] = failures
    write_json(RESULTS, results)
    print("\n".join(f"MISSED: {f}" for f in failures) or "all estimate/actual ratios within target")
    return 1 if failures else 0


def capped_at(options: ImproveOptions, dollars: float) -> ImproveOptions:
    return options.but(trigger=options.trigger.but(max_cost=dollars))


plan_skill_eval_sync = blocking(plan_skill_eval)
plan_improve_sync = blocking(plan_improve)


if __name__ == "__main__":
    raise SystemExit(main())
