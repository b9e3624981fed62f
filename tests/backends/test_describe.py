"""`backends.describe`: what a judge declares for its reports, looked up through wrappers."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from skillbench.backends.base import SkillEntry
from skillbench.backends.describe import (
    CACHE_BEFORE_QUERY_NOTE,
    MINIMAL_NOTE,
    captured_request,
    describe,
    stored_request,
)
from skillbench.schemas.trigger import HarnessInfo


class _Replay:
    name, model, is_proxy, harness = "anthropic", "claude-haiku-4-5", False, "replay"
    cache_before_query = True
    batch = True

    def __init__(self) -> None:
        self.limiter = object()
        self.max_concurrency = 12
        self.notes = ["batch 1 forgotten"]

    def template_for(self, target: SkillEntry, catalog: Any) -> Any:
        return SimpleNamespace(body={"b": target.name}, settings={"X": "1"}, listing_budget=900)

    def known_template(self, target: SkillEntry, catalog: Any) -> Any:
        return None

    async def judge_many(self, requests: Any) -> list[Any]:
        return []


class _Wrapper:
    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.model = inner, inner.name, inner.model

    async def judge_many(self, requests: Any) -> list[Any]:
        return []


def test_a_replay_judge_is_described_through_its_wrappers() -> None:
    info = describe(_Wrapper(_Replay()))
    assert info.harness == HarnessInfo(
        name="replay",
        claude_code_request=True,
        note=CACHE_BEFORE_QUERY_NOTE,
        cache_before_query=True,
        cli_mode="print",  # a replay judge built without a mode captures `claude -p`
    )
    assert info.listing == "captured" and info.own_request and info.listing_model
    assert info.batch and info.whole_waves and info.self_limited and info.max_concurrency == 12
    assert info.notes == ("batch 1 forgotten",)


def test_a_wrapper_without_judge_many_keeps_runs_one_by_one() -> None:
    class Bare:
        def __init__(self, inner: Any) -> None:
            self.inner, self.name, self.model = inner, inner.name, inner.model

    assert not describe(Bare(_Replay())).whole_waves


def test_the_captured_request_is_read_and_a_missing_one_never_captured() -> None:
    entry = SkillEntry("a", "does a")
    captured = captured_request(_Wrapper(_Replay()), entry, ())
    assert (captured.body, captured.listing_budget) == ({"b": "a"}, 900)
    assert dict(captured.settings) == {"X": "1"}
    assert stored_request(_Wrapper(_Replay()), entry, ()) is None


def test_minimal_proxy_and_plain_judges() -> None:
    minimal = SimpleNamespace(name="anthropic", model="m", is_proxy=False, harness="minimal")
    assert describe(minimal).harness == HarnessInfo(
        name="minimal", claude_code_request=False, note=MINIMAL_NOTE
    )
    assert describe(minimal).listing == "full"
    proxy = SimpleNamespace(name="lexical", model="words", is_proxy=True)
    info = describe(proxy)
    assert info.listing == "proxy" and info.listing_model is None and not info.own_request
    plain = SimpleNamespace(name="toy", model=None)
    assert describe(plain).harness is None and describe(plain).listing == "none"


def test_a_judge_that_describes_itself_is_asked() -> None:
    own = HarnessInfo(name="gemini replay", claude_code_request=False)
    judge = SimpleNamespace(
        name="gemini",
        model="g",
        agent=SimpleNamespace(title="Gemini CLI"),
        harness_info=lambda: own,
        listing_info=lambda target, catalog: (None, None),
    )
    info = describe(judge)
    assert info.harness is own and info.listing == "agent" and info.agent_title == "Gemini CLI"
