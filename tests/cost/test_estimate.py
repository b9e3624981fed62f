"""Estimators: token counting, prompt-cache split, output sources, prices, the registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from cost_fakes import flat_factory

from skillbench.backends.base import CallUsage, SkillEntry, TextRequest, TriggerRequest
from skillbench.backends.cache import CallCache
from skillbench.cost import estimate
from skillbench.cost.estimate import (
    AnthropicEstimator,
    ApiTokenCounter,
    CharTokenCounter,
    ClaudeCodeEstimator,
    LocalEstimator,
    ReplayEstimator,
    get_estimator,
    min_cacheable_tokens,
    register_estimator,
    split_prefix_calls,
    unregister_estimator,
)
from skillbench.cost.prices import dollars_or_unknown
from skillbench.errors import InputError
from skillbench.schemas.cost import TokenCounts
from skillbench.schemas.prices import load_prices

TARGET = SkillEntry("pdf", "Reads and fills PDF forms. Use when a PDF is involved.")
CATALOG = (SkillEntry("xlsx", "Edits spreadsheets."), SkillEntry("docx", "Edits Word files."))


def requests(queries: list[str], runs: int) -> list[TriggerRequest]:
    return [TriggerRequest(TARGET, CATALOG, q, run) for q in queries for run in range(runs)]


class CountingCounter:
    """A counter with fixed answers that records its calls."""

    exact = True
    basis = "test counter"

    def __init__(self, prefix: int, per_message_char: bool = True) -> None:
        self.prefix = prefix
        self.calls = 0

    def __call__(self, system: Any, tools: Any, messages: Any) -> int:
        self.calls += 1
        return (self.prefix if tools else 0) + estimate.char_tokens(list(messages))


def test_char_counter_counts_the_json_the_api_receives() -> None:
    text = "x" * 400
    assert estimate.char_tokens(text) == 100
    assert estimate.char_tokens("") == 0
    messages = [{"role": "user", "content": text}]
    assert CharTokenCounter()(None, [], messages) == estimate.char_tokens(messages) > 100


def test_first_call_per_prefix_writes_the_rest_read() -> None:
    counts = split_prefix_calls(["a", "a", "b", "a"], 2000, [5, 6, 7, 8], "claude-sonnet-4-5")
    assert counts.cache_creation_input_tokens == 2 * 2000
    assert counts.cache_read_input_tokens == 2 * 2000
    assert counts.input_tokens == 26


def test_a_prefix_below_the_model_minimum_is_never_cached() -> None:
    assert min_cacheable_tokens("claude-haiku-4-5-20251001") == 4096
    assert min_cacheable_tokens("claude-sonnet-4-5") == 1024
    counts = split_prefix_calls(["a", "a"], 3000, [5, 5], "claude-haiku-4-5")
    assert counts.cache_creation_input_tokens == counts.cache_read_input_tokens == 0
    assert counts.input_tokens == 6010


def test_anthropic_estimate_counts_the_template_once_per_listing() -> None:
    counter = CountingCounter(prefix=3000)
    est = AnthropicEstimator("claude-sonnet-4-5", backend="anthropic", counter=counter)
    counts = est.trigger_calls(requests(["make a pdf", "fill the form", "weather"], runs=2))
    assert counter.calls == 1  # one listing content: the run order does not change the count
    # two runs → two listing orders → two prefixes written, the other four calls read them
    assert counts.cache_creation_input_tokens == 2 * (3000 - 0)
    assert counts.cache_read_input_tokens == 4 * 3000
    assert counts.output_tokens == 6 * estimate.DEFAULT_OUTPUT_TOKENS["trigger"]
    assert "stated default" in est.basis() and "test counter" in est.basis()


def test_output_tokens_come_from_what_the_cache_has_seen(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        for i, out in enumerate((30, 50)):
            cache.put(
                f"k{i}",
                {"usage": {"output_tokens": out}},
                backend="anthropic",
                kind="trigger",
                model="claude-sonnet-4-5",
            )
        cache.put(
            "other",
            {"usage": {"output_tokens": 900}},
            backend="anthropic",
            kind="trigger",
            model="claude-opus-4-5",
        )
        est = AnthropicEstimator(
            "claude-sonnet-4-5", backend="anthropic", cache=cache, counter=CountingCounter(10)
        )
        counts = est.trigger_calls(requests(["q"], runs=1))
    assert counts.output_tokens == 40
    assert "mean of 2 cached replies" in est.basis()


MARK = estimate.QUERY_MARKER
EPHEMERAL = {"type": "ephemeral"}


def claude_code_template(*, before_query: bool = False) -> dict[str, Any]:
    """Claude Code's layout: breakpoints on the system prompt and on the query's own block."""
    listing: dict[str, Any] = {"type": "text", "text": "listing " * 500}
    if before_query:
        listing["cache_control"] = EPHEMERAL
    query = {"type": "text", "text": MARK, "cache_control": EPHEMERAL}
    return {
        "system": [{"type": "text", "text": "harness", "cache_control": EPHEMERAL}],
        "tools": [{"name": "Skill"}],
        "messages": [{"role": "user", "content": [listing, query]}],
    }


def test_replay_estimate_follows_claude_codes_breakpoints() -> None:
    counter = CountingCounter(prefix=5000)
    est = ReplayEstimator(claude_code_template(), "claude-sonnet-4-5", counter, query_marker=MARK)
    assert counter.calls == 3  # shared prefix, prefix to the last breakpoint, whole: once
    shared, upto = est.shared_tokens, est.cached_tokens
    assert shared == 5000 and upto > shared + 800  # the listing is between them
    assert est.layout.query_cached
    counts = est.trigger_calls(requests(["a", "b", "c"], runs=2))
    assert counter.calls == 3
    later = est.trigger_calls(requests(["a"], runs=1))  # a later round: a new description
    assert later.cache_read_input_tokens == shared  # the tools and system prompt stay cached
    assert later.cache_creation_input_tokens == upto + estimate.char_tokens("a") - shared
    q = estimate.char_tokens("a")
    # first query: all written; its repeat: all read; each new query: shared part read and the
    # listing + query written again (Claude Code's own request rewrites the listing per query)
    assert counts.cache_creation_input_tokens == (upto + q) + 2 * (upto + q - shared)
    assert counts.cache_read_input_tokens == 3 * (upto + q) + 2 * shared
    assert counts.input_tokens == 6 * (est.whole_tokens + q) - (
        counts.cache_creation_input_tokens + counts.cache_read_input_tokens
    )


def test_a_breakpoint_before_the_query_makes_the_listing_a_cache_read() -> None:
    counter = CountingCounter(prefix=5000)
    plain = ReplayEstimator(claude_code_template(), "claude-sonnet-4-5", counter, query_marker=MARK)
    extra = ReplayEstimator(
        claude_code_template(before_query=True), "claude-sonnet-4-5", counter, query_marker=MARK
    )
    # the listing joined the shared prefix (everything but the query's own block)
    assert plain.shared_tokens + 800 < extra.shared_tokens < plain.cached_tokens
    reqs = requests([f"query {i}" for i in range(10)], runs=1)
    a, b = plain.trigger_calls(reqs), extra.trigger_calls(reqs)
    assert a.total_input == b.total_input  # the same tokens, billed differently
    first_a = ReplayEstimator(
        claude_code_template(), "claude-sonnet-4-5", counter, query_marker=MARK
    ).trigger_calls(reqs[:1])
    first_b = ReplayEstimator(
        claude_code_template(before_query=True), "claude-sonnet-4-5", counter, query_marker=MARK
    ).trigger_calls(reqs[:1])
    later_a = a.cache_creation_input_tokens - first_a.cache_creation_input_tokens
    later_b = b.cache_creation_input_tokens - first_b.cache_creation_input_tokens
    assert later_a > 9 * 1000 and later_b < later_a / 20  # per later query: ~1k vs the query
    assert b.cache_read_input_tokens > a.cache_read_input_tokens


def test_a_template_without_breakpoints_or_below_the_minimum_is_plain_input() -> None:
    counter = CountingCounter(prefix=5000)
    bare = {
        "system": [{"type": "text", "text": "harness"}],
        "tools": [{"name": "Skill"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "listing " + MARK}]}],
    }
    est = ReplayEstimator(bare, "claude-sonnet-4-5", counter, query_marker=MARK)
    counts = est.trigger_calls(requests(["a", "b"], runs=2))
    assert counts.cache_creation_input_tokens == counts.cache_read_input_tokens == 0
    assert counts.input_tokens == 4 * (est.whole_tokens + estimate.char_tokens("a")) > 4 * 5000
    small = ReplayEstimator(
        claude_code_template(), "claude-haiku-4-5", CountingCounter(prefix=100), query_marker=MARK
    )  # haiku-4-5 caches nothing shorter than 4,096 tokens
    counts = small.trigger_calls(requests(["a"], runs=3))
    assert counts.cache_creation_input_tokens == counts.cache_read_input_tokens == 0
    with pytest.raises(InputError, match="no 'tools'"):
        ReplayEstimator({"system": [], "messages": []}, "claude-sonnet-4-5", counter)


def test_api_counter_uses_count_tokens_and_falls_back_without_leaking_the_key() -> None:
    seen: list[dict[str, Any]] = []

    def ok(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == "/v1/messages/count_tokens"
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json={"input_tokens": 1234})

    counter = ApiTokenCounter(
        "claude-sonnet-4-5",
        api_key="sk-ant-test-SECRETKEY123",
        base_url="http://127.0.0.1:9",
        http_client=httpx2.Client(transport=httpx2.MockTransport(ok)),
    )
    assert counter("sys", [{"name": "t"}], [{"role": "user", "content": "hi"}]) == 1234
    assert seen[0]["model"] == "claude-sonnet-4-5" and seen[0]["tools"] == [{"name": "t"}]

    def fail(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            400,
            json={
                "type": "error",
                "error": {"type": "x", "message": "sk-ant-test-SECRETKEY123 bad"},
            },
        )

    broken = ApiTokenCounter(
        "claude-sonnet-4-5",
        api_key="sk-ant-test-SECRETKEY123",
        base_url="http://127.0.0.1:9",
        http_client=httpx2.Client(transport=httpx2.MockTransport(fail)),
    )
    messages = [{"role": "user", "content": "x" * 40}]
    assert broken(None, [], messages) == CharTokenCounter()(None, [], messages)
    assert "count_tokens failed" in broken.basis and "SECRETKEY" not in broken.basis


def test_claude_code_uses_cached_sessions_else_the_stated_default(tmp_path: Path) -> None:
    est = ClaudeCodeEstimator("claude-sonnet-4-5", backend="claude-code")
    assert "stated default" in est.basis()
    assert est.trigger_calls(requests(["a", "b"], 1)) == estimate.CLAUDE_CODE_SESSION_DEFAULT * 2
    assert est.price_known()
    assert not ClaudeCodeEstimator(
        None, backend="claude-code"
    ).price_known()  # CLI default model: no price, no sessions
    with CallCache(tmp_path / "c.sqlite") as cache:
        usage = CallUsage(100, 200, 3000, 4000, cost_usd=0.02).__dict__
        for i in range(3):
            cache.put(f"k{i}", {"usage": usage}, backend="claude-code", kind="trigger", model=None)
        cached = ClaudeCodeEstimator(None, backend="claude-code", cache=cache)
    assert "mean of 3 cached trigger sessions" in cached.basis()
    assert cached.price_known()
    tokens = cached.trigger_calls(requests(["a", "b"], 1))
    assert tokens.cache_creation_input_tokens == 8000
    assert cached.dollars(tokens, 2) == pytest.approx(0.04)


def test_local_is_free_and_unknown_models_are_unknown_never_zero() -> None:
    local = LocalEstimator(backend="local")
    assert local.dollars(local.trigger_calls(requests(["a"], 3)), 3) == 0.0
    tokens = TokenCounts(input_tokens=1000)
    assert dollars_or_unknown(load_prices(), "claude-nonexistent-9", tokens) == "unknown"
    assert not AnthropicEstimator(
        "claude-nonexistent-9", backend="anthropic", counter=CharTokenCounter()
    ).price_known()
    assert dollars_or_unknown(load_prices(), "claude-sonnet-4-5", tokens) == pytest.approx(0.003)


def test_registry_plugs_in_a_backend_by_name() -> None:
    with pytest.raises(InputError, match="--backend"):
        get_estimator("replay-test")
    register_estimator("replay-test", flat_factory("replay-test"))
    try:
        est = get_estimator("replay-test", model="m")
        assert est.backend == "replay-test" and est.model == "m"
    finally:
        unregister_estimator("replay-test")
    assert isinstance(get_estimator("local"), LocalEstimator)


def test_text_call_output_is_bounded_by_max_tokens() -> None:
    est = AnthropicEstimator("claude-sonnet-4-5", backend="anthropic", counter=CharTokenCounter())
    counts = est.text_call(
        TextRequest(prompt="improve this " * 100, max_tokens=100, purpose="improve")
    )
    assert counts.output_tokens == 100
    assert counts.input_tokens > 300


class FakeTemplate:
    def __init__(self, target: SkillEntry) -> None:
        self.target = target

    def body_for(self, query: str) -> dict[str, Any]:
        listing = f"- {self.target.name}: {self.target.description}"
        return {
            "system": [{"type": "text", "text": "harness " * 50, "cache_control": EPHEMERAL}],
            "tools": [{"name": "Skill", "description": "tools " * 2000}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": listing + query}]}],
        }


class ReplayingJudge:
    """Duck-types the replay harness: one captured template per skill set."""

    def __init__(self) -> None:
        self.captured: list[str] = []

    def template_for(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> FakeTemplate:
        self.captured.append(target.name)
        return FakeTemplate(target)


def test_a_replaying_judge_gets_one_counted_template_per_skill_set() -> None:
    counter = CountingCounter(prefix=6000)
    base = AnthropicEstimator("claude-sonnet-4-5", backend="anthropic", counter=counter)
    judge = ReplayingJudge()
    est = estimate.for_judge(type("Wrapper", (), {"inner": judge})(), base)
    assert isinstance(est, estimate.TemplateEstimator)
    other = SkillEntry("xlsx", "Edits spreadsheets.")
    reqs = [*requests(["a", "b"], runs=2), TriggerRequest(other, CATALOG, "c", 0)]
    counts = est.trigger_calls(reqs)
    assert judge.captured == ["pdf", "xlsx"]  # one template per skill set, captured once
    assert counter.calls == 4  # two counts per template
    # the two templates share their tools and system prompt: one write, read by the rest
    assert counts.cache_creation_input_tokens == 6000
    assert counts.cache_read_input_tokens == 4 * 6000
    assert "2 captured template(s)" in est.basis()
    assert estimate.for_judge(object(), base) is base  # not a replaying judge: unchanged


def test_a_template_that_cannot_be_captured_falls_back_with_a_note() -> None:
    class Broken:
        def template_for(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> Any:
            raise RuntimeError("claude CLI not found")

    base = AnthropicEstimator(
        "claude-sonnet-4-5", backend="anthropic", counter=CountingCounter(prefix=3000)
    )
    est = estimate.for_judge(Broken(), base)
    counts = est.trigger_calls(requests(["a"], runs=1))
    assert counts.total_input > 0
    assert "no captured template (RuntimeError: claude CLI not found)" in est.basis()
