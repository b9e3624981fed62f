"""Estimate versus actual spend: a trigger eval and an improvement loop against the local mock API.

The mock (`mock_messages_server.py`, loopback only, dummy key) reports usage like the real API:
uncached input, prompt-cache writes for the first request with a tools+system prefix and reads
after, output tokens. This script adds to it a `count_tokens` route and an improver that answers
with a `<new_description>`. For each workflow it first asks for the `--dry-run` estimate (fresh
cache), then runs it for real and prints estimate / actual for calls, each token kind and dollars;
then it checks the re-run estimate (everything cached: 0 calls, $0) and the cap: a cap below the
estimate is refused (CostCapError, exit 3) and a cap inside the run stops it cleanly.

Caveat: the mock counts tokens as characters / 4, the same rule as the offline estimate, so the
input ratios here check the accounting (which calls, which prefix is written or read, hits free),
not a tokenizer; against the real API use a key (count_tokens) for exact input counts.
Writes benchmarks/results/cost.json. Target: calls, each input kind and dollars within
[0.8, 1.25]. Output tokens are printed but not held to it: with an empty cache the estimate uses
the stated default (60 tokens per routing reply; the mock answers 25-40), which is the point
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

from mock_messages_server import MockMessagesServer, MockState, _Handler, _Server, _tokens

from skillbench.backends.budget import Budget
from skillbench.errors import CostCapError
from skillbench.improve.run import improve_skill_sync, plan_improve
from skillbench.io import write_json
from skillbench.schemas.cost import CostBlock
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


class CostState(MockState):
    """The mock, plus an improver that rewrites the description from the failing queries."""

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = super().reply(body)
        text = json.dumps(body.get("messages"))
        if not body.get("tools") and "new_description" in text:
            words = sorted(set(_WORD.findall(text.lower())))[: 20 + self.counts["improve"] % 7]
            with self.lock:
                self.counts["improve"] += 1
            new = (
                "Writes clear git commit messages from staged changes and diffs. Use when the "
                "user asks for a commit message, to summarise a change for git, or mentions "
                + ", ".join(words)
                + "."
            )
            reply["content"] = [
                {"type": "text", "text": f"<new_description>{new}</new_description>"}
            ]
            reply["stop_reason"] = "end_turn"
            reply["usage"]["output_tokens"] = _tokens(new) + 8
        return reply


class CostHandler(_Handler):
    """Adds POST /v1/messages/count_tokens (characters / 4, as the mock's usage)."""

    def do_POST(self) -> None:
        if self.path.split("?")[0] != "/v1/messages/count_tokens":
            super().do_POST()
            return
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        prefix = {"tools": body.get("tools") or [], "system": body.get("system")}
        with self.server.state.lock:
            self.server.state.counts["count_tokens"] += 1
        self._send(200, {"input_tokens": _tokens(prefix) + _tokens(body.get("messages"))})


class CostMock(MockMessagesServer):
    """The mock server with the improver and count_tokens additions."""

    def __init__(self) -> None:
        super().__init__(latency=0.0)
        self._server.server_close()
        self.state = CostState(latency=0.0)
        self._server = _Server(("127.0.0.1", 0), CostHandler)
        self._server.state = self.state
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)


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
    with CostMock() as mock, tempfile.TemporaryDirectory(prefix="bench-cost-") as tmp:
        os.environ["ANTHROPIC_BASE_URL"] = mock.url
        os.environ["ANTHROPIC_API_KEY"] = "bench-dummy-key-not-secret"
        cache = Path(tmp) / "cache.sqlite"
        common = {
            "backend": "anthropic",
            "model": MODEL,
            "cache_path": cache,
            "catalog_dir": CATALOG,
        }

        plan = plan_skill_eval_sync(SKILL, EVALS, runs=3, **common)
        report = evaluate_skill_sync(SKILL, EVALS, runs=3, **common)
        assert report.cost is not None
        results["trigger"] = show("trigger eval", plan.estimate, report.cost)
        results["trigger"]["basis"] = [line.basis for line in plan.estimate.lines]
        again = plan_skill_eval_sync(SKILL, EVALS, runs=3, **common)
        print(f"  re-run estimate: calls {again.estimate.calls}, ${again.estimate.dollars}")
        if again.estimate.calls != 0 or again.estimate.dollars != 0.0:
            failures.append("re-run estimate is not free")
        results["trigger"]["rerun_estimate_calls"] = again.estimate.calls

        loop = {**common, "rounds": 4, "runs": 2, "seed": 1}
        loop_plan = plan_improve_sync(SKILL, EVALS, **loop)
        out = Path(tmp) / "improve"
        result = improve_skill_sync(SKILL, EVALS, out=out, **loop)
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

        fresh = {**loop, "cache_path": Path(tmp) / "cap.sqlite", "seed": 2}
        estimate = float(plan_improve_sync(SKILL, EVALS, **fresh).estimate.dollars)
        try:
            improve_skill_sync(
                SKILL, EVALS, out=Path(tmp) / "refused", max_cost=estimate / 2, **fresh
            )
            failures.append("a cap below the estimate was not refused")
        except CostCapError as exc:
            print(f"  cap ${estimate / 2:.4f} < estimate: refused ({exc})")
        # The safety net: a session budget whose cap the run reaches (the estimate was not
        # checked against it), then a re-run with a higher cap that resumes from the cache.
        budget = Budget(estimate / 2)
        capped = improve_skill_sync(SKILL, EVALS, out=Path(tmp) / "capped", budget=budget, **fresh)
        cost = capped.summary.cost
        assert cost is not None
        print(
            f"  budget ${estimate / 2:.4f}: {capped.summary.stop_reason}; spent "
            f"{cost.dollars} in {cost.calls} calls; stopped_at_cap={cost.stopped_at_cap}"
        )
        if not cost.stopped_at_cap or not (Path(tmp) / "capped" / "loop_summary.json").is_file():
            failures.append("the capped loop did not stop cleanly with its outputs written")
        resumed = improve_skill_sync(
            SKILL, EVALS, out=Path(tmp) / "resumed", max_cost=estimate * 2, **fresh
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
            "mock_count_tokens_calls": mock.count("count_tokens"),
        }
    for name in ("trigger", "improve"):
        for key, value in results[name]["ratios"].items():
            if key != "output_tokens" and value is not None and not LOW <= value <= HIGH:
                failures.append(f"{name} {key} ratio {value} outside [{LOW}, {HIGH}]")
    results["failures"] = failures
    write_json(RESULTS, results)
    print("\n".join(f"MISSED: {f}" for f in failures) or "all estimate/actual ratios within target")
    return 1 if failures else 0


def plan_skill_eval_sync(skill: Path, evals: Path, **options: Any) -> Any:
    from skillbench.aio import run_sync

    return run_sync(lambda: plan_skill_eval(skill, evals, **options))


def plan_improve_sync(skill: Path, evals: Path, **options: Any) -> Any:
    from skillbench.aio import run_sync

    return run_sync(lambda: plan_improve(skill, evals, **options))


if __name__ == "__main__":
    raise SystemExit(main())
