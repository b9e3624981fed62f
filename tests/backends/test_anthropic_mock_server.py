"""AnthropicJudge end to end against benchmarks/mock_messages_server.py on 127.0.0.1 (no latency)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from mock_messages_server import MockMessagesServer, choose_skill

from skillbench.backends.anthropic.sdk import AnthropicJudge
from skillbench.backends.base import SkillEntry, TriggerRequest

TARGET = SkillEntry(
    "csv-cleanup", "Repairs messy CSV exports: encodings, delimiters and broken quoting."
)
CATALOG = (SkillEntry("regex-builder", "Builds regular expressions from examples."),)


@pytest.fixture
def server() -> Iterator[MockMessagesServer]:
    with MockMessagesServer(latency=0.0) as mock:
        yield mock


def req(query: str, run: int = 0) -> TriggerRequest:
    return TriggerRequest(TARGET, CATALOG, query, run_index=run)


def test_mock_choice_is_deterministic() -> None:
    skills = {TARGET.name: TARGET.description, "regex-builder": "Builds regular expressions"}
    assert choose_skill("fix the broken quoting in my csv exports", skills) == "csv-cleanup"
    assert choose_skill("what time is it", skills) is None


async def test_judge_through_base_url_env(
    server: MockMessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    judge = AnthropicJudge(api_key="dummy-key", max_retries=0)
    hit = await judge.judge(req("my csv exports have broken quoting and odd encodings"))
    miss = await judge.judge(req("what is the capital of France"))
    again = await judge.judge(req("and another question about France"))
    await judge.aclose()
    assert hit.error is None and hit.triggered and hit.fired == "csv-cleanup"
    assert miss.error is None and not miss.triggered and miss.fired is None
    assert hit.usage.cache_creation_input_tokens > 0  # first request with this prefix
    assert again.usage.cache_read_input_tokens > 0  # same run → same prefix → cache read
    assert server.count() == 3


async def test_batch_round_trip(server: MockMessagesServer) -> None:
    judge = AnthropicJudge(api_key="dummy-key", base_url=server.url, batch=True, max_retries=0)
    judge.batch_poll_seconds = 0.0
    queries = ["clean the broken quoting in these csv exports", "tell me a joke"]
    outcomes = await judge.judge_many([req(q, run) for run in range(2) for q in queries])
    await judge.aclose()
    assert [o.triggered for o in outcomes] == [True, False, True, False]
    assert all(o.error is None and o.detail.get("batch") for o in outcomes)
    assert server.count("batches") == 1 and server.count("batch_requests") == 4
    assert server.count("messages") == 0


async def test_requests_are_written_one_at_a_time_and_answers_overlap() -> None:
    """httpcore's `trace` extension reports each written request to the limiter (serial
    sends), and the calls still wait for the server together."""
    with MockMessagesServer(latency=0.1) as slow:
        judge = AnthropicJudge(
            api_key="dummy-key", base_url=slow.url, max_retries=0, max_concurrency=4
        )
        await judge.judge(req("warm up"))
        assert judge.limiter._reports_sends  # the request hook's trace reached the limiter
        start = time.perf_counter()
        outcomes = await judge.judge_many([req(f"query {i}", i) for i in range(8)])
        elapsed = time.perf_counter() - start
        await judge.aclose()
    assert all(o.error is None for o in outcomes)
    assert judge.limiter.peak == 4 and slow.count() == 9
    assert elapsed < 0.6  # two rounds of four 100 ms waits, not eight in a row


def test_mock_answers_claude_codes_replayed_request_streamed(server: MockMessagesServer) -> None:
    """The replay harness (the default) sends Claude Code's request: the listing sits in a
    system reminder of the user turn and the answer is streamed. The mock routes it too."""
    import json
    import urllib.request

    listing = (
        "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n"
        f"- {TARGET.name}: {TARGET.description}\n- regex-builder: {CATALOG[0].description}\n"
        "</system-reminder>"
    )
    body = {
        "model": "claude-haiku-4-5",
        "stream": True,
        "tools": [{"name": "Skill", "description": "Execute a skill", "input_schema": {}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": listing},
                    {"type": "text", "text": "repair the broken quoting in this csv export"},
                ],
            }
        ],
    }
    request = urllib.request.Request(
        f"{server.url}/v1/messages",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": "dummy"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.headers["content-type"] == "text/event-stream"
        events = [
            json.loads(line[len("data: ") :])
            for line in reply.read().decode().splitlines()
            if line.startswith("data: ")
        ]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    tool = next(e for e in events if e.get("delta", {}).get("type") == "input_json_delta")
    assert json.loads(tool["delta"]["partial_json"]) == {"skill": TARGET.name}
