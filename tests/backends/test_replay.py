"""The replay harness offline: a stored template, the SDK over httpx2.MockTransport."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mock_anthropic_sse import (
    _sse,
    message_end_events,
    message_start_event,
    text_stream,
    tool_use_stream,
)
from mock_batches import BatchEndpoints

from skillbench.backends.anthropic.capture import (
    SENTINEL,
    billing_suffix,
    provider_model,
    request_settings,
    template_key,
)
from skillbench.backends.anthropic.replay import ReplayJudge
from skillbench.backends.base import SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.backends.limiter import RetryPolicy
from skillbench.backends.replay.store import TemplateStore
from skillbench.backends.replay.template import ReplayTemplate

TARGET = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
CATALOG = (SkillEntry("csv-cleaner", "Use when cleaning CSV tables.", "# CSV\n"),)
VERSION = "2.1.197"
MODEL = "claude-haiku-4-5"


def fake_cli(tmp_path: Path) -> Path:
    script = tmp_path / "claude"
    script.write_text(f'#!/bin/sh\necho "{VERSION} (Claude Code)"\n')
    script.chmod(0o755)
    return script


def captured_body() -> dict[str, Any]:
    return {
        "model": MODEL,
        "max_tokens": 32000,
        "system": [
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.197.44f;"},
            {"type": "text", "text": "You are Claude.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Harness prompt.", "cache_control": {"type": "ephemeral"}},
        ],
        "tools": [
            {"name": "Bash", "input_schema": {"type": "object"}},
            {"name": "Skill", "input_schema": {"type": "object"}},
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- csv-cleaner: Use when cleaning CSV tables.\n- pdf-tools: Use when merging PDF files.\n</system-reminder>",
                    },
                    {"type": "text", "text": SENTINEL, "cache_control": {"type": "ephemeral"}},
                ],
            }
        ],
        "thinking": {"type": "enabled", "budget_tokens": 31999},
        "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
    }


def seeded_store(tmp_path: Path) -> Path:
    folder = tmp_path / "templates"
    settings = request_settings()
    key = template_key(TARGET, CATALOG, MODEL, VERSION, settings)
    TemplateStore(folder).save(
        ReplayTemplate(
            key=key,
            model=MODEL,
            cli_version=VERSION,
            path="/v1/messages?beta=true",
            headers={
                "anthropic-version": "2023-06-01",
                "anthropic-beta": "claude-code-20250219,context-management-2025-06-27",
            },
            body=captured_body(),
            settings=settings,
            skills=["pdf-tools", "csv-cleaner"],
        )
    )
    return folder


Handler = Callable[[httpx2.Request], httpx2.Response]


def make_judge(tmp_path: Path, handler: Handler, **options: Any) -> ReplayJudge:
    return ReplayJudge(
        MODEL,
        api_key="sk-ant-test-key-0123456789",
        base_url="http://mock.local",
        claude_bin=fake_cli(tmp_path),
        template_dir=seeded_store(tmp_path),
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
        **options,
    )


def sse(body: bytes) -> httpx2.Response:
    return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})


async def judge_one(
    tmp_path: Path, reply: bytes, query: str = "merge a.pdf and b.pdf"
) -> tuple[TriggerOutcome, list[httpx2.Request]]:
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return sse(reply)

    judge = make_judge(tmp_path, handler)
    outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, query, 0))
    await judge.aclose()
    return outcome, seen


async def test_the_request_sent_is_the_template_with_only_the_query_swapped(tmp_path: Path) -> None:
    query = 'merge "a.pdf" and b\\c.pdf {json}'
    outcome, seen = await judge_one(
        tmp_path, tool_use_stream(MODEL, "Skill", {"skill": "pdf-tools"}), query
    )
    assert outcome.error is None and outcome.triggered is True
    (request,) = seen
    assert request.url.path == "/v1/messages" and request.url.params.get("beta") == "true"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["anthropic-beta"] == "claude-code-20250219,context-management-2025-06-27"
    sent = json.loads(request.content)
    expected = captured_body()
    expected["messages"][0]["content"][1]["text"] = query
    # the billing suffix is the CLI's own for this query (replay_capture.billing_suffix)
    billing = f"x-anthropic-billing-header: cc_version=2.1.197.{billing_suffix(query, VERSION)};"
    expected["system"][0]["text"] = billing
    assert sent.pop("stream") is True
    assert sent == expected  # cache_control breakpoints, thinking, tools: all unchanged
    assert "sk-ant-test-key" not in json.dumps(sent)


@pytest.mark.parametrize(
    ("reply", "kind", "fired", "triggered"),
    [
        (tool_use_stream(MODEL, "Skill", {"skill": "pdf-tools"}), "target", "pdf-tools", True),
        (
            tool_use_stream(MODEL, "Skill", {"skill": "/csv-cleaner"}),
            "other-skill",
            "csv-cleaner",
            False,
        ),
        (text_stream(MODEL, "I can do that directly."), "text", None, False),
    ],
)
async def test_first_turn_outcomes(
    tmp_path: Path, reply: bytes, kind: str, fired: str | None, triggered: bool
) -> None:
    outcome, _ = await judge_one(tmp_path, reply)
    assert outcome.error is None
    assert outcome.detail["outcome"] == kind
    assert outcome.fired == fired and outcome.triggered is triggered
    assert outcome.undecided is None


async def test_another_tool_first_is_undecided_not_a_miss(tmp_path: Path) -> None:
    outcome, _ = await judge_one(tmp_path, tool_use_stream(MODEL, "Bash", {"command": "ls"}))
    assert outcome.error is None and outcome.triggered is False
    assert outcome.undecided == "Bash" and outcome.detail["outcome"] == "other-tool"
    assert outcome.detail["tool_input"] == {"command": "ls"}  # kept for `skillbench explain`


def _stop(reason: str, blocks: bytes = b"") -> bytes:
    return message_start_event(MODEL, 100) + blocks + message_end_events(reason, 5)


def _text_block(text: str) -> bytes:
    return (
        _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        )
        + _sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
        )
        + _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    )


def _broken_tool(partial: str) -> bytes:
    return (
        _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Skill",
                    "input": {},
                },
            },
        )
        + _sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": partial},
            },
        )
        + _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    )


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (_stop("end_turn"), "empty"),
        (_stop("max_tokens", _text_block("Let me think about")), "max_tokens"),
        (_stop("refusal", _text_block("I can't help with that.")), "refusal"),
        (_stop("tool_use", _broken_tool('{"skill": ')), "malformed_tool_call"),
        (_stop("tool_use", _broken_tool('{"other": 1}')), "malformed_tool_call"),
        (message_start_event(MODEL, 100) + _text_block("half"), "incomplete"),
    ],
)
async def test_broken_answers_are_errors_with_their_kind(
    tmp_path: Path, reply: bytes, kind: str
) -> None:
    outcome, _ = await judge_one(tmp_path, reply)
    assert outcome.triggered is False
    assert outcome.error is not None and outcome.error.startswith(kind)
    assert outcome.detail["error_kind"] == kind


async def test_usage_reports_cache_reads(tmp_path: Path) -> None:
    start = _sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 12,
                    "cache_read_input_tokens": 30000,
                    "cache_creation_input_tokens": 0,
                    "output_tokens": 1,
                },
            },
        },
    )
    reply = start + _text_block("Sure.") + message_end_events("end_turn", 9)
    outcome, _ = await judge_one(tmp_path, reply)
    assert outcome.usage.cache_read_input_tokens == 30000
    assert outcome.usage.input_tokens == 12 and outcome.usage.output_tokens == 9
    assert outcome.usage.cost_usd > 0


async def test_api_errors_are_errors_and_the_key_is_redacted(tmp_path: Path) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            400,
            json={
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "bad sk-ant-test-key-0123456789",
                },
            },
        )

    judge = make_judge(tmp_path, handler)
    outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, "q", 0))
    assert outcome.error is not None and "0123456789" not in outcome.error
    assert outcome.detail["error_kind"] == "api"


def test_identity_has_no_secret_and_names_the_harness(tmp_path: Path) -> None:
    judge = make_judge(tmp_path, lambda r: sse(b""))
    identity = judge.identity()
    assert identity["harness"] == "replay" and identity["cli_version"] == VERSION
    assert "sk-ant" not in json.dumps(identity)


def test_bedrock_and_vertex_model_ids_follow_claude_code() -> None:
    assert (
        provider_model("claude-haiku-4-5", "bedrock")
        == "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    )
    assert provider_model("claude-haiku-4-5", "vertex") == "claude-haiku-4-5@20251001"
    assert provider_model("claude-sonnet-4-6", "anthropic") == "claude-sonnet-4-6"
    assert provider_model("us.anthropic.custom", "bedrock") == "us.anthropic.custom"


async def test_bedrock_replay_goes_to_the_bedrock_invoke_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-example")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(500, json={"message": "mock"})

    judge = make_judge(tmp_path, handler)
    outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, "merge pdfs", 0))
    assert outcome.error is not None  # the mock answers 500; the request shape is what we check
    assert seen, "no request reached the transport"
    assert seen[0].headers["authorization"] == "Bearer bedrock-api-key-example"
    url = str(seen[0].url)
    assert (
        "us.anthropic.claude-haiku-4-5-20251001-v1:0" in url
        or "us.anthropic.claude-haiku-4-5-20251001-v1%3A0" in url
    )
    body = json.loads(seen[0].content)
    assert body["messages"][0]["content"][1]["text"] == "merge pdfs"
    assert body["anthropic_beta"] == ["claude-code-20250219", "context-management-2025-06-27"]
    assert judge.identity()["provider"] == "bedrock"


async def test_vertex_replay_goes_to_the_vertex_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "my-project")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return sse(tool_use_stream(MODEL, "Skill", {"skill": "pdf-tools"}))

    judge = make_judge(tmp_path, handler)
    judge._client = None
    import anthropic

    judge._client = anthropic.AsyncAnthropicVertex(
        region="us-east5",
        project_id="my-project",
        access_token="ya29.token",
        http_client=judge._http_client,
        max_retries=0,
    )
    outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, "merge pdfs", 0))
    assert outcome.error is None and outcome.triggered is True
    url = str(seen[0].url)
    assert "projects/my-project/locations/us-east5" in url and "claude-haiku-4-5@20251001" in url


def test_without_a_cli_the_error_names_make_claude_and_the_minimal_harness(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli import main
    from skillbench.errors import BackendError

    monkeypatch.setattr("skillbench.backends.claude_cli.session.REPO_CLAUDE", tmp_path / "missing")
    monkeypatch.delenv("SKILLBENCH_CLAUDE_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
    with pytest.raises(BackendError) as err:
        ReplayJudge(MODEL)
    assert "make claude" in str(err.value) and "--harness minimal" in str(err.value)
    skill = tmp_path / "pdf-tools"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: pdf-tools\ndescription: Use for PDFs.\n---\nBody\n")
    evals = tmp_path / "evals.json"
    evals.write_text('[{"query": "merge pdfs", "should_trigger": true}]')
    code = main(
        ["trigger", str(skill), "--evals", str(evals), "--backend", "anthropic", "--no-cache"]
    )
    assert code == 2
    assert "make claude" in capsys.readouterr().err


async def test_after_the_decision_a_prompt_tail_is_read_to_the_end(tmp_path: Path) -> None:
    """The closing events follow at once: read them (the connection stays reusable and the
    output count is the API's own)."""
    tail = _text_block("After the tool call the model would go on talking.").replace(
        b'"index": 0', b'"index": 1'
    )
    reply = (
        message_start_event(MODEL, 100)
        + _broken_tool('{"skill": "pdf-tools"}')
        + tail
        + message_end_events("tool_use", 77)
    )
    outcome, _ = await judge_one(tmp_path, reply)
    assert outcome.triggered is True
    assert "stream_closed_when_decided" not in outcome.detail
    assert outcome.detail["stop_reason"] == "tool_use"
    assert outcome.usage is not None and outcome.usage.output_tokens == 77


async def test_a_reply_still_going_after_the_decision_is_cut_off(tmp_path: Path) -> None:
    head = message_start_event(MODEL, 100) + _broken_tool('{"skill": "pdf-tools"}')

    async def stalled() -> Any:
        yield head
        await asyncio.sleep(30)  # the model goes on (more tools, more text): not waited for
        yield message_end_events("tool_use", 77)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, content=stalled(), headers={"content-type": "text/event-stream"}
        )

    judge = make_judge(tmp_path, handler)
    judge.drain_seconds = 0.2
    outcome = await asyncio.wait_for(judge.judge(TriggerRequest(TARGET, CATALOG, "merge", 0)), 10)
    await judge.aclose()
    assert outcome.triggered is True
    assert outcome.detail["stream_closed_when_decided"] is True
    assert outcome.detail["stop_reason"] is None  # message_delta was never read
    # the final usage never came: output is what was received (22 characters of tool input),
    # not message_start's placeholder count of 1
    assert outcome.usage is not None and outcome.usage.output_tokens == 6
    assert "stream closed early" in outcome.detail["output_tokens_estimated"]


def test_thinking_and_text_received_count_towards_a_closed_streams_output() -> None:
    from skillbench.backends.anthropic.first_turn import FirstTurn

    fold = FirstTurn("pdf-tools")
    fold.feed({"type": "message_start", "message": {"usage": {"output_tokens": 1}}})
    fold.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}})
    thinking = {"type": "thinking_delta", "thinking": "t" * 400}
    fold.feed({"type": "content_block_delta", "index": 0, "delta": thinking})
    fold.close_early()
    assert fold.decision.usage.output_tokens == 100 and fold.decision.output_estimated
    full = FirstTurn("pdf-tools")
    full.feed({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 250}})
    full.close_early()  # the real count is larger than what was received: kept
    assert full.decision.usage.output_tokens == 250 and not full.decision.output_estimated


class ReplayBatchServer(BatchEndpoints):
    """First moves for the replay harness: another tool, the target, a max_tokens cut."""

    batch_id = "msgbatch_r1"
    base_url = "http://mock.local"

    def result_lines(self) -> list[dict[str, Any]]:
        def msg(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
            return {
                "id": "msg_b",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "cache_read_input_tokens": 900, "output_tokens": 20},
            }

        skill = {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "Skill",
            "input": {"skill": "pdf-tools"},
        }
        bash = {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls"}}
        return [
            {
                "custom_id": "r1",
                "result": {"type": "succeeded", "message": msg([bash], "tool_use")},
            },
            {
                "custom_id": "r0",
                "result": {"type": "succeeded", "message": msg([skill], "tool_use")},
            },
            {"custom_id": "r2", "result": {"type": "succeeded", "message": msg([], "max_tokens")}},
        ]


async def test_batch_sends_the_replayed_bodies_and_reads_first_moves(tmp_path: Path) -> None:
    server = ReplayBatchServer()
    judge = make_judge(tmp_path, server, batch=True, batch_poll_seconds=0.0)
    seen: list[str] = []
    judge.progress = seen.append
    requests = [TriggerRequest(TARGET, CATALOG, f"query {i}", i) for i in range(3)]
    outcomes = await judge.judge_many(requests)
    (created,) = server.created
    params = created["requests"][1]["params"]
    assert params["messages"][0]["content"][1]["text"] == "query 1"
    assert params["thinking"] == captured_body()["thinking"] and "stream" not in params
    assert outcomes[0].triggered is True and outcomes[0].detail["batch"] is True
    assert outcomes[1].undecided == "Bash"
    assert outcomes[2].error is not None and outcomes[2].detail["error_kind"] == "max_tokens"
    assert outcomes[0].usage.cache_read_input_tokens == 900
    assert any("0/3 done" in line for line in seen) and any("3/3 done" in line for line in seen)
    assert not list((tmp_path / "templates" / "batches").glob("*.json"))  # ledger removed


async def test_a_killed_batch_run_resumes_the_same_batch(tmp_path: Path) -> None:
    server = ReplayBatchServer(fail_polls=1)
    requests = [TriggerRequest(TARGET, CATALOG, f"query {i}", i) for i in range(3)]
    first = make_judge(tmp_path, server, batch=True, batch_poll_seconds=0.0)
    broken = await first.judge_many(requests)  # the poll fails: as if the run were killed
    assert all(o.error is not None for o in broken)
    assert len(list((tmp_path / "templates" / "batches").glob("*.json"))) == 1
    again = ReplayJudge(
        MODEL,
        api_key="sk-ant-test-key-0123456789",
        base_url="http://mock.local",
        claude_bin=tmp_path / "claude",
        template_dir=tmp_path / "templates",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server)),
        max_retries=0,
        batch=True,
        batch_poll_seconds=0.0,
    )
    outcomes = await again.judge_many(requests)
    assert len(server.created) == 1  # resumed, not paid for twice
    assert outcomes[0].triggered is True


def test_each_candidate_description_and_setting_gets_its_own_template() -> None:
    base = template_key(TARGET, CATALOG, MODEL, VERSION, {})
    candidate = SkillEntry(TARGET.name, "Use when combining PDF files.", TARGET.body)
    assert template_key(candidate, CATALOG, MODEL, VERSION, {}) != base
    assert template_key(TARGET, CATALOG, "claude-sonnet-4-6", VERSION, {}) != base
    assert template_key(TARGET, CATALOG, MODEL, "2.1.198", {}) != base
    budget = {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "20000"}
    assert template_key(TARGET, CATALOG, MODEL, VERSION, budget) != base
    assert template_key(TARGET, CATALOG, MODEL, VERSION, {}) == base


def test_the_cli_mode_keys_interactive_templates_and_leaves_print_keys_as_they_were() -> None:
    """Issue 32: the interactive CLI's request differs, so its template has its own key; a
    print-mode key is computed exactly as before the mode existed (stored templates stay
    valid): the same fields, no `cli_mode` among them."""
    import hashlib

    from skillbench.backends.anthropic.capture import TEMPLATE_FORMAT
    from skillbench.backends.replay.keys import skill_set_hash

    fields = {
        "format": TEMPLATE_FORMAT,
        "skills": skill_set_hash(TARGET, CATALOG),
        "model": MODEL,
        "cli": VERSION,
        "settings": {},
    }
    before = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:32]
    assert template_key(TARGET, CATALOG, MODEL, VERSION, {}) == before
    assert template_key(TARGET, CATALOG, MODEL, VERSION, {}, cli_mode="print") == before
    assert template_key(TARGET, CATALOG, MODEL, VERSION, {}, cli_mode="interactive") != before


def test_the_query_swap_is_json_safe_and_touches_only_the_sentinel(tmp_path: Path) -> None:
    template = TemplateStore(seeded_store(tmp_path)).load(
        template_key(TARGET, CATALOG, MODEL, VERSION, request_settings())
    )
    assert template is not None and template.sentinel_count() == 1
    nasty = '"}]} \\u0000 </system-reminder> ' + SENTINEL[:5]
    body = template.body_for(nasty)
    assert body["messages"][0]["content"][1]["text"] == nasty
    assert body["system"][1:] == captured_body()["system"][1:]
    assert json.loads(json.dumps(body)) == body
    # the template itself is untouched, and so is it after a call's arguments are built from it
    assert template.body == captured_body()
    judge = make_judge(tmp_path, lambda r: sse(b""))
    judge.call_arguments(template, "one")
    assert template.body == captured_body() and template.sentinel_count() == 1
    assert template.body_for("two")["messages"][0]["content"][1]["text"] == "two"


async def test_a_failed_capture_is_an_error_outcome_and_is_not_retried_per_run(
    tmp_path: Path,
) -> None:
    script = tmp_path / "bin" / "claude"
    script.parent.mkdir()
    calls = tmp_path / "calls.log"
    script.write_text(
        f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "9.9.9 (Claude Code)"; exit 0; fi\n'
        f'echo run >> {calls}\necho "no network for you" >&2\nexit 3\n'
    )
    script.chmod(0o755)
    judge = ReplayJudge(
        MODEL,
        api_key="sk-ant-test-key-0123456789",
        base_url="http://mock.local",
        claude_bin=script,
        template_dir=tmp_path / "templates",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: sse(b""))),
    )
    outcomes = [await judge.judge(TriggerRequest(TARGET, CATALOG, "q", i)) for i in range(3)]
    for outcome in outcomes:
        assert outcome.error is not None and outcome.error.startswith("capture:")
        assert outcome.detail["error_kind"] == "capture"
    assert "exit 3" in (outcomes[0].error or "") and "no network for you" in (
        outcomes[0].error or ""
    )
    assert calls.read_text().count("run") == 1
    assert not list((tmp_path / "templates").glob("*.json"))


async def test_cache_before_query_adds_one_breakpoint_and_changes_nothing_else(
    tmp_path: Path,
) -> None:
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return sse(tool_use_stream(MODEL, "Skill", {"skill": "pdf-tools"}))

    judge = make_judge(tmp_path, handler, cache_before_query=True)
    for query in ("merge a.pdf and b.pdf", "split c.pdf"):
        outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, query, 0))
        assert outcome.error is None and outcome.triggered is True
    await judge.aclose()
    for request, query in zip(seen, ("merge a.pdf and b.pdf", "split c.pdf"), strict=True):
        sent = json.loads(request.content)
        sent.pop("stream")
        expected = captured_body()
        expected["messages"][0]["content"][1]["text"] = query
        expected["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
        suffix = billing_suffix(query, VERSION)
        expected["system"][0]["text"] = (
            f"x-anthropic-billing-header: cc_version={VERSION}.{suffix};"
        )
        assert sent == expected  # the listing block is a breakpoint; all else is Claude Code's
    assert judge.versions()["cache_breakpoints"] == "claude-code + 1 before the query"
    # the stored template is untouched (the call cache keys on it: same tokens, same samples)
    assert (
        "cache_control"
        not in judge.store.load(next(iter(judge.templates_used))).body["messages"][0]["content"][0]
    )


def test_without_the_option_the_breakpoints_are_claude_codes(tmp_path: Path) -> None:
    judge = make_judge(tmp_path, lambda r: sse(b""))
    assert judge.versions()["cache_breakpoints"] == "claude-code"


def test_the_report_names_the_added_breakpoint(tmp_path: Path) -> None:
    from skillbench.trigger.run import harness_info

    plain = harness_info(make_judge(tmp_path, lambda r: sse(b"")))
    assert plain is not None and plain.claude_code_request and plain.note is None
    extra = harness_info(make_judge(tmp_path, lambda r: sse(b""), cache_before_query=True))
    assert extra is not None and extra.note is not None
    assert "--cache-before-query" in extra.note and "Claude Code's own tokens" in extra.note
    assert extra.cache_before_query is True and plain.cache_before_query is None


def _decided_head() -> bytes:
    """A reply whose first move is decided: a complete Skill call naming the target."""
    return message_start_event(MODEL, 100) + _broken_tool('{"skill": "pdf-tools"}')


async def _after_decision(tmp_path: Path, tail: Any, **options: Any) -> TriggerOutcome:
    async def body() -> Any:
        yield _decided_head()
        await tail()

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body(), headers={"content-type": "text/event-stream"})

    judge = make_judge(tmp_path, handler, **options)
    outcome = await asyncio.wait_for(judge.judge(TriggerRequest(TARGET, CATALOG, "merge", 0)), 10)
    await judge.aclose()
    return outcome


async def test_a_late_error_event_does_not_undo_a_decided_first_move(tmp_path: Path) -> None:
    late = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"x"}}\n\n'
    outcome, seen = await judge_one(tmp_path, _decided_head() + late)
    assert outcome.error is None and outcome.triggered is True and len(seen) == 1
    assert outcome.detail["stream_closed_when_decided"] is True


async def test_a_dropped_connection_after_the_decision_keeps_the_outcome(tmp_path: Path) -> None:
    async def drop() -> None:
        raise httpx2.ReadError("connection reset")

    outcome = await _after_decision(tmp_path, drop)
    assert outcome.error is None and outcome.triggered is True


async def test_the_call_deadline_during_the_drain_keeps_the_outcome(tmp_path: Path) -> None:
    async def stall() -> None:
        await asyncio.sleep(30)

    outcome = await _after_decision(tmp_path, stall, timeout=0.3)
    assert outcome.error is None and outcome.triggered is True
    assert outcome.detail["stream_closed_when_decided"] is True


class StaleBatchServer(ReplayBatchServer):
    """Knows only the batches it created: a saved id from elsewhere gets a 404; the first
    `flaky_polls` retrievals of a batch it knows answer 502 (a proxy's transient failure)."""

    def __init__(self, flaky_polls: int = 0) -> None:
        super().__init__()
        self.flaky_polls = flaky_polls
        self.bad_gateways = 0

    def __call__(self, req: httpx2.Request) -> httpx2.Response:
        path = req.url.path
        if req.method == "GET" and path.startswith("/v1/messages/batches/"):
            if not self.created:  # an id this server never issued
                error = {"type": "not_found_error", "message": "batch not found"}
                return httpx2.Response(404, json={"type": "error", "error": error})
            if self.bad_gateways < self.flaky_polls and not path.endswith("/results"):
                self.bad_gateways += 1
                return httpx2.Response(502, text="<html>Bad Gateway</html>")
        return super().__call__(req)


def stale_ledger(judge: ReplayJudge, requests: list[TriggerRequest]) -> Path:
    """Write the ledger a killed earlier run would have left, with an id the server forgot."""
    params = []
    for request in requests:
        arguments = judge.call_arguments(judge.template_for(TARGET, CATALOG), request.query)
        arguments.pop("stream", None)
        extra = arguments.pop("extra_body", {})
        for key in ("betas", "extra_headers", "extra_query"):
            arguments.pop(key, None)
        params.append({**arguments, **extra})
    ledger = judge.ledger_path([f"r{i}" for i in range(len(requests))], params)
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(json.dumps({"batch_id": "msgbatch_gone", "requests": len(requests)}))
    return ledger


async def test_a_saved_batch_the_server_forgot_is_dropped_and_submitted_anew(
    tmp_path: Path,
) -> None:
    """27.6: a ledger naming a batch the server answers 404 for failed every run of every
    re-run, forever. The stale id is dropped, the reader told, the wave submitted anew."""
    server = StaleBatchServer()
    judge = make_judge(tmp_path, server, batch=True, batch_poll_seconds=0.0)
    requests = [TriggerRequest(TARGET, CATALOG, f"query {i}", i) for i in range(3)]
    ledger = stale_ledger(judge, requests)
    seen: list[str] = []
    judge.progress = seen.append
    outcomes = await judge.judge_many(requests)
    assert len(server.created) == 1
    assert all(o.error is None or o.detail.get("error_kind") == "max_tokens" for o in outcomes)
    assert outcomes[0].triggered is True
    assert not ledger.exists()
    (note,) = judge.notes
    assert "msgbatch_gone" in note and "404" in note and "new batch" in note
    assert note in seen


async def test_a_transient_502_while_polling_a_batch_is_retried(tmp_path: Path) -> None:
    """27.6: one 502 from a proxy while polling failed every run of the wave."""
    server = StaleBatchServer(flaky_polls=2)
    judge = make_judge(tmp_path, server, batch=True, batch_poll_seconds=0.0)
    judge.limiter.policy = RetryPolicy(max_retries=3)
    waits: list[float] = []

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    judge.sleep = no_wait
    requests = [TriggerRequest(TARGET, CATALOG, f"query {i}", i) for i in range(3)]
    outcomes = await judge.judge_many(requests)
    assert server.bad_gateways == 2
    assert outcomes[0].triggered is True and outcomes[1].undecided == "Bash"
    assert len([w for w in waits if w > 0]) >= 2  # backed off before each retry
    assert len(server.created) == 1


async def test_persistent_502s_while_polling_fail_the_wave_after_the_retry_budget(
    tmp_path: Path,
) -> None:
    server = StaleBatchServer(flaky_polls=100)
    judge = make_judge(tmp_path, server, batch=True, batch_poll_seconds=0.0)
    judge.limiter.policy = RetryPolicy(max_retries=2, overload_retries=0)

    async def no_wait(seconds: float) -> None:
        return None

    judge.sleep = no_wait
    requests = [TriggerRequest(TARGET, CATALOG, "query", 0)]
    (outcome,) = await judge.judge_many(requests)
    assert outcome.error is not None and "502" in outcome.error
    assert server.bad_gateways == 3  # the first try and two retries: bounded


def seed_for(store: Path, target: SkillEntry) -> None:
    settings = request_settings()
    TemplateStore(store).save(
        ReplayTemplate(
            key=template_key(target, CATALOG, MODEL, "2.1.197", settings),
            model=MODEL,
            cli_version="2.1.197",
            path="/v1/messages?beta=true",
            headers={"anthropic-version": "2023-06-01", "anthropic-beta": "claude-code-20250219"},
            body=captured_body(),
            settings=settings,
            skills=[target.name, *(s.name for s in CATALOG)],
        )
    )


def replay_judge(tmp_path: Path, store: Path, seen: list[Any]) -> ReplayJudge:
    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return sse(tool_use_stream(MODEL, "Skill", {"skill": TARGET.name}))

    return ReplayJudge(
        MODEL,
        api_key="sk-ant-test-key-0123456789",
        base_url="http://mock.local",
        claude_bin=fake_cli(tmp_path),
        template_dir=store,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )


async def test_replay_calls_are_keyed_on_the_template_content_not_the_skill_folder(
    tmp_path: Path,
) -> None:
    """Two versions of the skill folder (a file added: another content hash, so another
    template key) whose captured requests are byte-identical share their answers."""
    before = TARGET
    after = SkillEntry(TARGET.name, TARGET.description, TARGET.body, content_hash="f" * 64)
    store = tmp_path / "templates"
    seed_for(store, before)
    seed_for(store, after)
    seen: list[Any] = []
    with CallCache(tmp_path / "c.sqlite") as cache:
        judge = CachingJudge(replay_judge(tmp_path, store, seen), cache)
        first = await judge.judge(TriggerRequest(before, CATALOG, "merge these pdfs", 0))
        assert first.triggered and len(seen) == 1
        # the dry run's judge (nothing captured in memory) computes the run's key
        planner = CachingJudge(replay_judge(tmp_path, store, []), cache)
        request = TriggerRequest(after, CATALOG, "merge these pdfs", 0)
        key = planner.key(request)
        assert key is not None and cache.has(key)
        second = await judge.judge(request)
        assert second.cached and len(seen) == 1  # nothing re-sent
        other_query = await judge.judge(TriggerRequest(after, CATALOG, "split a pdf", 0))
        assert not other_query.cached and len(seen) == 2
        await judge.aclose()
        await planner.aclose()
    # a template not captured yet has no key: the plan counts it as a call, never as a hit
    fresh = CachingJudge(replay_judge(tmp_path, tmp_path / "empty", []), None)
    assert fresh.key(TriggerRequest(before, CATALOG, "merge these pdfs", 0)) is None


async def test_templates_live_beside_the_cache_in_use_not_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """27.11: templates went to ./.skillbench whatever --cache said, so in a read-only working
    directory every run errored. They live beside the cache in use (run and dry run alike)."""
    from skillbench.backends import registry
    from skillbench.cost.plan import key_judge

    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("SKILLBENCH_CACHE")
    mine = tmp_path / "mine"
    seed_for(mine / "replay-templates", TARGET)
    seen: list[Any] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return sse(tool_use_stream(MODEL, "Skill", {"skill": TARGET.name}))

    options: dict[str, Any] = {
        "api_key": "sk-ant-test-key-0123456789",
        "base_url": "http://mock.local",
        "claude_bin": fake_cli(tmp_path),
        "max_retries": 0,
    }
    with CallCache(mine / "calls.sqlite") as cache:
        judge = registry.cached_judge(
            "anthropic",
            model=MODEL,
            cache=cache,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
            **options,
        )
        outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, "merge these pdfs", 0))
        assert outcome.error is None and outcome.triggered and len(seen) == 1  # no capture
        await judge.aclose()
        planner, _ = key_judge("anthropic", model=MODEL, cache=cache, options=options)
        assert planner is not None
        assert planner.inner.store.folder == mine / "replay-templates"  # type: ignore[attr-defined]
    assert not (elsewhere / ".skillbench").exists()


async def test_templates_and_batches_leave_debug_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """-vv shows which template a replay run used (hit, or a capture with which CLI) and a
    Message Batch's submission and resumption (issue 22.4)."""
    import logging

    caplog.set_level(logging.DEBUG, logger="skillbench")
    # a CLI run earlier in this process may have set the batch progress logger to INFO
    # (`trigger_cmd._show_batch_progress`), which would hide its DEBUG lines from this test
    caplog.set_level(logging.DEBUG, logger="skillbench.replay")
    server = ReplayBatchServer(fail_polls=1)
    requests = [TriggerRequest(TARGET, CATALOG, f"query {i}", i) for i in range(2)]
    first = make_judge(tmp_path, server, batch=True, batch_poll_seconds=0.0)
    await first.judge_many(requests)  # the poll fails: the ledger keeps the batch id
    again = make_judge(tmp_path, server, batch=True, batch_poll_seconds=0.0)
    await again.judge_many(requests)
    key = template_key(TARGET, CATALOG, MODEL, VERSION, request_settings())
    lines = [r.getMessage() for r in caplog.records]
    assert f"replay template {key}: hit (pdf-tools, 1 catalog skills)" in lines
    submitted = [line for line in lines if ": submitted, 2 requests (ledger " in line]
    assert len(submitted) == 1
    batch_id = submitted[0].split()[1].rstrip(":")
    assert any(line.startswith(f"batch {batch_id}: resumed from the ledger") for line in lines)
    caplog.clear()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    missing = ReplayJudge(
        MODEL,
        api_key="sk-ant-test-key-0123456789",
        base_url="http://mock.local",
        claude_bin=fake_cli(elsewhere),
        template_dir=elsewhere / "templates",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server)),
        max_retries=0,
    )
    await missing.judge(
        TriggerRequest(TARGET, CATALOG, "query", 0)
    )  # the fake CLI captures nothing
    capture = [r.getMessage() for r in caplog.records if "miss; capturing with" in r.getMessage()]
    assert len(capture) == 1 and str(tmp_path / "elsewhere" / "claude") in capture[0]


def test_explain_reads_the_listing_of_the_stored_template(tmp_path: Path) -> None:
    from skillbench.trigger.explain import first_move, listed_skills

    judge = make_judge(tmp_path, lambda request: sse(b""))
    listed = listed_skills(CachingJudge(judge, None), TARGET, CATALOG)
    assert listed == {
        "csv-cleaner": "Use when cleaning CSV tables.",
        "pdf-tools": "Use when merging PDF files.",
    }
    outcome = TriggerOutcome(
        triggered=False, fired="csv-cleaner", detail={"outcome": "other-skill"}
    )
    move = first_move(outcome, 0, CATALOG, listed)
    assert move.skill_listed == "full" and move.skill_description == CATALOG[0].description
