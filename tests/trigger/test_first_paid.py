"""A report built from cached calls states what the measurement cost when first paid, marked as
served from the cache (issue 31, item 5): never just "$0.0000: 0 calls". The cache's keys and
stored answers are unchanged, so existing caches stay valid."""

from __future__ import annotations

from pathlib import Path

from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TriggerOutcome,
    TriggerRequest,
    cache_key,
)
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.cost.budget import SpendMeter
from skillbench.schemas.cost import cost_lines, cost_summary
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import run_trigger_eval_sync
from tests.trigger_fakes import ScriptedJudge

QUERIES = [EvalQuery("tidy my csv", True), EvalQuery("what is the weather", False)]
OPTIONS = TriggerOptions(runs=2, workers=1)


def _eval(cache: CallCache) -> object:
    judge = CachingJudge(ScriptedJudge({"tidy my csv": "T"}), cache)
    return run_trigger_eval_sync("csv-cleanup", "Cleans CSV files.", QUERIES, judge, OPTIONS)


def test_a_cached_report_states_what_its_calls_cost_when_first_paid(tmp_path: Path) -> None:
    with CallCache(tmp_path / "cache.sqlite") as cache:
        first = _eval(cache)
        again = _eval(cache)
    paid, cached = first.cost, again.cost  # type: ignore[attr-defined]
    assert paid.calls == 4 and paid.dollars == 0.004 and paid.first_paid_dollars is None
    assert cached.calls == 0 and cached.cache_hits == 4 and cached.dollars == 0.0
    assert cached.first_paid_dollars == paid.dollars
    assert cached.lines[0].first_paid_dollars == paid.dollars
    summary = cost_summary(cached)
    assert summary.startswith("$0.0000: 0 calls")
    assert "4 answer(s) served from the call cache, first paid $0.0040" in summary
    assert any("first paid $0.0040" in line for line in cost_lines(cached))
    assert not any("first paid" in line for line in cost_lines(paid))


def test_the_meter_counts_what_cache_hits_first_cost() -> None:
    meter = SpendMeter()
    usage = CallUsage(input_tokens=100, output_tokens=10, cost_usd=0.25)
    meter.record("scripted", "fake-1", "improve", usage, cached=False, priced=True)
    meter.record("scripted", "fake-1", "improve", usage, cached=True, priced=True)
    meter.record("scripted", "fake-1", "improve", usage, cached=True, priced=True)
    block = meter.block(as_of="2026-01-01")
    assert block.calls == 1 and block.cache_hits == 2 and block.dollars == 0.25
    assert block.first_paid_dollars == 0.5
    unpriced = SpendMeter()
    unpriced.record("x", "m", "grade", CallUsage(), cached=True, priced=False)
    assert unpriced.block(as_of=None).first_paid_dollars == "unknown"


def test_cache_keys_and_stored_answers_are_unchanged(tmp_path: Path) -> None:
    """Pinned: the key of one trigger request and the stored form of its answer, as caches
    written before this change hold them (a changed key would make every cache miss)."""
    target = SkillEntry("csv-cleanup", "Cleans CSV files.", "body")
    request = TriggerRequest(target, (), "tidy my csv", 0, 0)
    key = cache_key({"backend": "scripted", "model": "fake-1"}, request.cache_fields())
    assert key == PINNED_KEY
    outcome = TriggerOutcome(True, fired="csv-cleanup", usage=CallUsage(10, 1, cost_usd=0.001))
    with CallCache(tmp_path / "cache.sqlite") as cache:
        cache.put(key, outcome.to_cache(), backend="scripted", kind="trigger", model="fake-1")
        stored = cache.get(key)
    assert stored is not None and stored["usage"]["cost_usd"] == 0.001
    assert set(stored) == {"triggered", "fired", "error", "undecided", "usage",
                           "duration_seconds", "detail"}  # fmt: skip
    assert TriggerOutcome.from_cache(stored).usage.cost_usd == 0.001


PINNED_KEY = "d76c7183d2b9c9ee788d8772b063d5e0cb46cb2bd0ac1ff9a737faab7b3525ae"
"""The key written by skillbench before this change (commit c98940e)."""
