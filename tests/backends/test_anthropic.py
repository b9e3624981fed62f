"""AnthropicJudge / AnthropicTextModel against an in-process mock of the Messages API (no network)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic._base_client as sdk_base
import httpx2
import pytest
from mock_batches import BatchEndpoints
from pydantic import BaseModel

from skillbench.backends.anthropic import routing_prompt
from skillbench.backends.anthropic.sdk import AnthropicJudge, AnthropicTextModel, api_version
from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TextRequest,
    TriggerJudge,
    TriggerRequest,
)
from skillbench.errors import BackendError
from skillbench.schemas.prices import cost

KEY = "sk-ant-api03-TESTSECRET-abcdefghijklmnopqrstuvwxyz0123456789"
TARGET = SkillEntry(
    "csv-cleanup", "Clean messy CSV files. Use when a CSV has bad rows or encodings."
)
CATALOG = (
    SkillEntry("pdf-tools", "Fill and merge PDF forms. Use when working with PDF files."),
    SkillEntry("git-helper", "Write commit messages. Use when committing changes."),
    SkillEntry("csv-cleanup", "an installed copy of the target that must not be listed twice"),
)
Handler = Callable[[httpx2.Request], Any]


def request(query: str = "fix the broken rows in data.csv", run_index: int = 0) -> TriggerRequest:
    return TriggerRequest(target=TARGET, catalog=CATALOG, query=query, run_index=run_index)


def message(content: list[dict[str, Any]], **usage: int) -> dict[str, Any]:
    """A Messages API reply body."""
    has_tool = any(block["type"] == "tool_use" for block in content)
    return {
        "id": "msg_01Test",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": content,
        "stop_reason": "tool_use" if has_tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 10, **usage},
    }


def skill_use(name: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_01", "name": "Skill", "input": {"skill": name}}


def reply_with(body: dict[str, Any], calls: list[httpx2.Request] | None = None) -> Handler:
    def handler(req: httpx2.Request) -> httpx2.Response:
        if calls is not None:
            calls.append(req)
        return httpx2.Response(200, json=body)

    return handler


def client(handler: Handler) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


def judge_for(handler: Handler, **kwargs: Any) -> AnthropicJudge:
    return AnthropicJudge(api_key=KEY, http_client=client(handler), **kwargs)


def recorder(slept: list[float]) -> Callable[[float], Awaitable[None]]:
    """A sleep that records its argument and returns at once."""

    async def record(seconds: float) -> None:
        slept.append(seconds)

    return record


@pytest.fixture
def sdk_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the SDK's retry sleeps instead of sleeping."""
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(sdk_base.anyio, "sleep", fake_sleep)
    return slept


async def test_request_shape_follows_claude_code_routing() -> None:
    calls: list[httpx2.Request] = []
    judge = judge_for(reply_with(message([skill_use("csv-cleanup")]), calls))
    await judge.judge(request())
    assert len(calls) == 1
    sent = json.loads(calls[0].content)
    assert calls[0].url.path == "/v1/messages"
    assert calls[0].headers["authorization"] == f"Bearer {KEY}"  # SDK 2.x auth header
    assert calls[0].headers["anthropic-version"] == api_version()
    assert sent["model"] == "claude-haiku-4-5"
    assert not {"temperature", "top_p", "top_k"} & set(sent)  # rejected by API 2026-10-21
    assert sent["tool_choice"] == {"type": "auto"}
    assert sent["messages"] == [{"role": "user", "content": "fix the broken rows in data.csv"}]
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "Skill tool" in sent["system"][0]["text"]
    names = [t["name"] for t in sent["tools"]]
    assert names[-1] == "Skill" and {"Bash", "Read", "Write"} <= set(names)
    skill = sent["tools"][-1]
    assert skill["cache_control"] == {"type": "ephemeral"}
    assert skill["input_schema"]["required"] == ["skill"]
    listing = skill["description"]
    assert f"csv-cleanup: {TARGET.description}" in listing
    assert "pdf-tools: Fill and merge PDF forms." in listing
    assert "git-helper: Write commit messages." in listing
    assert listing.count("csv-cleanup:") == 1  # the catalog's copy of the target is dropped
    assert all("cache_control" not in t for t in sent["tools"][:-1])
    await judge.aclose()


def test_listing_order_is_deterministic_and_varies_between_runs() -> None:
    catalog = tuple(SkillEntry(f"skill-{i}", f"does thing {i}") for i in range(8))

    def order(run: int, query: str = "q") -> list[str]:
        req = TriggerRequest(target=TARGET, catalog=catalog, query=query, run_index=run)
        return [s.name for s in routing_prompt.ordered_skills(req)]

    assert order(0) == order(0)
    assert order(0, "q") == order(0, "another query")  # one cacheable prefix per run
    positions = {order(run).index("csv-cleanup") for run in range(10)}
    assert len(positions) > 1
    req = TriggerRequest(target=TARGET, catalog=catalog, query="a", run_index=0)
    req_b = TriggerRequest(target=TARGET, catalog=catalog, query="b", run_index=0)
    per_query = {
        tuple(s.name for s in routing_prompt.ordered_skills(r, per_query=True))
        for r in (req, req_b)
    }
    assert len(per_query) == 2


@pytest.mark.parametrize(
    ("content", "triggered", "fired", "tools"),
    [
        (
            [{"type": "text", "text": "Loading."}, skill_use("csv-cleanup")],
            True,
            "csv-cleanup",
            ["Skill"],
        ),
        ([skill_use("pdf-tools")], False, "pdf-tools", ["Skill"]),
        ([{"type": "text", "text": "Here is how to fix it."}], False, None, []),
        (
            [
                {
                    "type": "tool_use",
                    "id": "t",
                    "name": "Bash",
                    "input": {"command": "head data.csv"},
                }
            ],
            False,
            None,
            ["Bash"],
        ),
        ([skill_use("/csv-cleanup")], True, "csv-cleanup", ["Skill"]),
    ],
    ids=["target", "other-skill", "no-tool", "non-skill-tool", "slash-name"],
)
async def test_reply_classification(
    content: list[dict[str, Any]], triggered: bool, fired: str | None, tools: list[str]
) -> None:
    judge = judge_for(reply_with(message(content)))
    outcome = await judge.judge(request())
    assert outcome.error is None
    assert (outcome.triggered, outcome.fired) == (triggered, fired)
    assert outcome.detail["tool_uses"] == tools
    await judge.aclose()


async def test_usage_and_cost_include_prompt_cache() -> None:
    body = message(
        [skill_use("csv-cleanup")],
        input_tokens=12,
        output_tokens=30,
        cache_read_input_tokens=4000,
        cache_creation_input_tokens=0,
    )
    judge = judge_for(reply_with(body))
    outcome = await judge.judge(request())
    usage = outcome.usage
    assert (usage.input_tokens, usage.output_tokens) == (12, 30)
    assert usage.cache_read_input_tokens == 4000
    expected = cost("claude-haiku-4-5", CallUsage(12, 30, 4000, 0))
    assert expected is not None and expected > 0
    assert usage.cost_usd == pytest.approx(expected)
    # haiku 4.5: $1/M input, $5/M output, $0.10/M cache read
    assert usage.cost_usd == pytest.approx((12 * 1.0 + 30 * 5.0 + 4000 * 0.1) / 1e6)
    await judge.aclose()


async def test_429_with_retry_after_then_success(sdk_sleeps: list[float]) -> None:
    attempts = 0

    def handler(req: httpx2.Request) -> httpx2.Response:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            error = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
            return httpx2.Response(429, json=error, headers={"retry-after": "7"})
        return httpx2.Response(200, json=message([skill_use("csv-cleanup")]))

    judge = judge_for(handler)
    slept: list[float] = []
    judge.sleep = recorder(slept)
    outcome = await judge.judge(request())
    assert attempts == 2 and judge.attempts == 2
    assert slept == [7.0]  # the server's retry-after was honoured, by the limiter
    assert sdk_sleeps == []  # the SDK's own retries are off
    assert judge.limiter.rate_limited == 1 and judge.limiter.in_flight == 0
    assert outcome.error is None and outcome.triggered
    await judge.aclose()


async def test_persistent_500_is_an_error_not_a_miss(sdk_sleeps: list[float]) -> None:
    attempts = 0

    def handler(req: httpx2.Request) -> httpx2.Response:
        nonlocal attempts
        attempts += 1
        error = {"type": "error", "error": {"type": "api_error", "message": "Internal error"}}
        return httpx2.Response(500, json=error)

    judge = judge_for(handler, max_retries=3)
    slept: list[float] = []
    judge.sleep = recorder(slept)
    outcome = await judge.judge(request())
    assert attempts == 4
    assert len(slept) == 3 and all(0 < s <= 8 for s in slept)  # backoff, no overload tail
    assert outcome.error is not None and "500" in outcome.error
    assert outcome.fired is None
    await judge.aclose()


async def test_overloaded_gets_bounded_outer_retry(sdk_sleeps: list[float]) -> None:
    attempts = 0

    def handler(req: httpx2.Request) -> httpx2.Response:
        nonlocal attempts
        attempts += 1
        if attempts <= 2:
            error = {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
            }
            return httpx2.Response(529, json=error)
        return httpx2.Response(200, json=message([skill_use("pdf-tools")]))

    outer: list[float] = []

    async def record(seconds: float) -> None:
        outer.append(seconds)

    judge = judge_for(handler, max_retries=0, overload_retries=2)
    judge.sleep = record
    outcome = await judge.judge(request())
    assert attempts == 3 and judge.attempts == 3
    assert len(outer) == 2 and all(0 < s <= 30 for s in outer)
    assert outcome.error is None and outcome.fired == "pdf-tools"

    attempts = -10  # never succeeds within the budget
    judge2 = judge_for(handler, max_retries=0, overload_retries=1)
    judge2.sleep = record
    failed = await judge2.judge(request())
    assert failed.error is not None and "529" in failed.error
    assert judge2.attempts == 2
    await judge.aclose()
    await judge2.aclose()


def test_missing_key_is_a_backend_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(BackendError, match="ANTHROPIC_API_KEY"):
        AnthropicJudge()
    with pytest.raises(BackendError):
        AnthropicTextModel(api_key="   ")


async def test_key_never_in_errors_repr_or_identity(
    monkeypatch: pytest.MonkeyPatch, sdk_sleeps: list[float]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)

    def handler(req: httpx2.Request) -> httpx2.Response:
        echoed = req.headers["authorization"]
        error = {
            "type": "error",
            "error": {"type": "authentication_error", "message": f"bad key {echoed}"},
        }
        return httpx2.Response(401, json=error)

    judge = AnthropicJudge(http_client=client(handler))
    outcome = await judge.judge(request())
    assert outcome.error is not None and "401" in outcome.error
    for text in (outcome.error, repr(judge), json.dumps(judge.identity()), str(outcome)):
        assert KEY not in text and KEY[-12:] not in text
    text_model = AnthropicTextModel(http_client=client(handler))
    with pytest.raises(BackendError) as caught:
        await text_model.complete(TextRequest(prompt="hi"))
    assert KEY not in str(caught.value) and KEY not in repr(text_model)
    assert isinstance(judge, TriggerJudge)
    await judge.aclose()
    await text_model.aclose()


def test_identity_holds_answer_changing_settings() -> None:
    a = AnthropicJudge(api_key=KEY)
    ident = a.identity()
    assert ident["model"] == "claude-haiku-4-5"
    assert ident["prompt_version"] == routing_prompt.PROMPT_VERSION
    assert ident["tool_schema_version"] == routing_prompt.TOOL_SCHEMA_VERSION
    assert ident["api_version"] == api_version()
    assert ident["max_tokens"] == 1024
    assert AnthropicJudge(api_key=KEY, max_tokens=64).identity() != ident
    assert AnthropicJudge("claude-sonnet-4-6", api_key=KEY).identity() != ident
    assert AnthropicJudge(api_key=KEY, per_query_shuffle=True).identity() != ident
    same = AnthropicJudge(api_key=KEY, max_concurrency=2, batch=True, temperature=1.0)
    assert same.identity() == ident  # concurrency, batching: same answers


def test_sampling_parameters_are_refused() -> None:
    with pytest.raises(BackendError, match="sampling"):
        AnthropicJudge(api_key=KEY, temperature=0.0)


async def test_concurrency_is_bounded() -> None:
    in_flight = 0
    peak = 0

    async def handler(req: httpx2.Request) -> httpx2.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return httpx2.Response(200, json=message([skill_use("csv-cleanup")]))

    judge = judge_for(handler, max_concurrency=3)
    outcomes = await judge.judge_many([request(run_index=i) for i in range(12)])
    assert len(outcomes) == 12 and all(o.triggered for o in outcomes)
    assert peak == 3
    await judge.aclose()


class BatchServer(BatchEndpoints):
    """Two routing answers and one errored request."""

    def result_lines(self) -> list[dict[str, Any]]:
        usage = {"input_tokens": 100, "output_tokens": 20}
        return [
            {
                "custom_id": "r2",
                "result": {
                    "type": "succeeded",
                    "message": message([skill_use("pdf-tools")], **usage),
                },
            },
            {
                "custom_id": "r0",
                "result": {
                    "type": "succeeded",
                    "message": message([skill_use("csv-cleanup")], **usage),
                },
            },
            {
                "custom_id": "r1",
                "result": {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": "bad params"},
                    },
                },
            },
        ]


async def test_batch_flow_matches_custom_ids_and_prices_at_half() -> None:
    server = BatchServer()
    judge = judge_for(server, batch=True, batch_poll_seconds=1.0)
    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    judge.sleep = record
    requests = [request("q0", 0), request("q1", 0), request("q2", 0)]
    outcomes = await judge.judge_many(requests)  # batch=True routes to judge_batch
    assert len(server.created) == 1
    sent = server.created[0]["requests"]
    assert [r["custom_id"] for r in sent] == ["r0", "r1", "r2"]
    assert sent[1]["params"]["messages"][0]["content"] == "q1"
    assert sent[0]["params"]["tools"][-1]["name"] == "Skill"
    assert server.polls == 3 and slept == [1.0]  # in_progress, ended, + one by results()
    assert (outcomes[0].triggered, outcomes[0].fired, outcomes[0].error) == (
        True,
        "csv-cleanup",
        None,
    )
    assert outcomes[1].error is not None and "bad params" in outcomes[1].error
    assert (outcomes[2].triggered, outcomes[2].fired) == (False, "pdf-tools")
    full = cost("claude-haiku-4-5", CallUsage(100, 20))
    assert full is not None
    assert outcomes[0].usage.cost_usd == pytest.approx(full / 2)
    await judge.aclose()


async def test_batch_create_failure_gives_errors_for_every_request(sdk_sleeps: list[float]) -> None:
    def handler(req: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            500, json={"type": "error", "error": {"type": "api_error", "message": "boom"}}
        )

    judge = judge_for(handler, batch=True, max_retries=0)
    outcomes = await judge.judge_batch([request("a"), request("b")])
    assert [o.error is not None for o in outcomes] == [True, True]
    assert outcomes[0] is not outcomes[1]
    await judge.aclose()


class Verdict(BaseModel):
    passed: bool
    score: int
    reason: str


async def test_structured_output_via_messages_parse() -> None:
    calls: list[httpx2.Request] = []
    body = message([{"type": "text", "text": '{"passed": true, "score": 4, "reason": "ok"}'}])
    model = AnthropicTextModel(api_key=KEY, http_client=client(reply_with(body, calls)))
    req = TextRequest(prompt="grade this", system="You are a grader.", temperature=0.0)
    with pytest.warns(UserWarning, match="temperature"):
        verdict = await model.complete_structured(req, Verdict)
    assert verdict == Verdict(passed=True, score=4, reason="ok")
    sent = json.loads(calls[0].content)
    assert sent["output_config"]["format"]["type"] == "json_schema"
    assert set(sent["output_config"]["format"]["schema"]["properties"]) == {
        "passed",
        "score",
        "reason",
    }
    assert sent["system"] == "You are a grader." and "temperature" not in sent
    text = await model.complete(TextRequest(prompt="say hi"))
    assert text.text.startswith('{"passed"') and text.usage.input_tokens == 20
    await model.aclose()


async def test_structured_output_mismatch_is_a_backend_error_that_keeps_the_paid_usage() -> None:
    """A reply that does not validate was still made and paid: the error carries its usage
    (`messages.parse` discarded the message, so a meter counted no call; issue 31)."""
    from skillbench.backends.base import PaidReplyError

    for text in ('{"passed": "maybe"}', "I think it passed."):
        body = message([{"type": "text", "text": text}])
        model = AnthropicTextModel(api_key=KEY, http_client=client(reply_with(body)))
        with pytest.raises(PaidReplyError, match="Verdict") as raised:
            await model.complete_structured(TextRequest(prompt="grade"), Verdict)
        assert isinstance(raised.value, BackendError)
        assert (raised.value.usage.input_tokens, raised.value.usage.output_tokens) == (20, 10)
        assert raised.value.usage.cost_usd > 0
        await model.aclose()


async def test_a_structured_request_is_the_one_messages_parse_sends() -> None:
    """`complete_json` validates the reply itself but sends `messages.parse`'s exact body."""
    calls: list[httpx2.Request] = []
    body = message([{"type": "text", "text": '{"passed": true, "score": 4, "reason": "ok"}'}])
    model = AnthropicTextModel(api_key=KEY, http_client=client(reply_with(body, calls)))
    req = TextRequest(prompt="grade this", system="You are a grader.")
    await model.complete_json(req, Verdict)
    await model.client.messages.parse(output_format=Verdict, **model._kwargs(req))
    assert json.loads(calls[0].content) == json.loads(calls[1].content)
    await model.aclose()


@pytest.mark.needs_api_key
@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="needs ANTHROPIC_API_KEY")
async def test_real_api_smoke() -> None:
    judge = AnthropicJudge(max_concurrency=1)
    outcome = await judge.judge(
        request("Our export data.csv has broken rows and mixed encodings; please clean it up.")
    )
    assert outcome.error is None
    assert outcome.usage.input_tokens > 0
    await judge.aclose()


async def test_ratelimit_headers_reach_the_limiter_and_pause_the_next_call() -> None:
    from datetime import UTC, datetime, timedelta

    reset = (datetime.now(UTC) + timedelta(seconds=2)).isoformat()
    answered = 0

    def handler(req: httpx2.Request) -> httpx2.Response:
        nonlocal answered
        answered += 1
        headers = {"anthropic-ratelimit-requests-remaining": "0" if answered == 1 else "9"}
        headers["anthropic-ratelimit-requests-reset"] = reset
        return httpx2.Response(200, json=message([skill_use("csv-cleanup")]), headers=headers)

    judge = judge_for(handler, max_concurrency=4)
    slept: list[float] = []
    judge.sleep = recorder(slept)
    first = await judge.judge(request())
    assert slept == []
    second = await judge.judge(request(run_index=1))
    assert first.triggered and second.triggered
    assert len(slept) >= 1 and 1.0 < slept[0] <= 2.0  # waited for the budget's reset
    await judge.aclose()


async def test_send_tracing_keeps_a_trace_extension_already_set() -> None:
    from skillbench.backends.anthropic.sdk import trace_sends
    from skillbench.backends.limiter import AdaptiveLimiter

    seen: list[str] = []

    async def previous(event: str, info: dict[str, Any]) -> None:
        seen.append(event)

    request_ = httpx2.Request(
        "POST", "http://127.0.0.1/v1/messages", extensions={"trace": previous}
    )
    await trace_sends(request_)
    trace = request_.extensions["trace"]
    limiter = AdaptiveLimiter(2, serial_sends=True)

    async def call() -> None:
        await trace("http11.send_request_headers.started", {})
        await trace("http11.send_request_body.complete", {})

    await limiter.run(call, lambda exc: None)
    assert seen == ["http11.send_request_headers.started", "http11.send_request_body.complete"]
    assert limiter._reports_sends


@pytest.mark.parametrize("body", [b"", b"{not json", b"<html>bad gateway</html>"])
async def test_a_text_reply_that_is_not_json_is_a_backend_error(body: bytes) -> None:
    """An empty or broken 200 body is the backend's failure, never a JSONDecodeError traceback
    (grade and analyze call the text model directly)."""

    def handler(req: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    model = AnthropicTextModel(api_key=KEY, http_client=client(handler))
    with pytest.raises(BackendError, match="not a JSON message"):
        await model.complete(TextRequest(prompt="hi", max_tokens=16))
