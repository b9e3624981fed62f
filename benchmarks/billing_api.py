"""A loopback fake of the Messages API that bills prompt caching by breakpoint, for benchmarks.

Every request is billed the way prompt caching is billed (tests/prompt_cache_fake.py): by
breakpoint, a written prefix readable only once the response that wrote it has begun — after
`first_byte_delay` seconds (0 by default), so requests arriving meanwhile write it again. Output tokens = len(json of the reply content) / 4 + 8.
`count_tokens` answers with the same per-block count, so an estimate made with it checks the
accounting, not a tokenizer.

Requests offering the `Skill` tool (Claude Code's own, replayed, or skillbench's minimal
harness) without a tool result: a `Skill` call naming `server.target` when set, else the listed
skill sharing the most content words with the query (`route` of tests/mock_anthropic_sse.py),
else a short text. Any other request: `server.text_reply(body)` (a short text by default).
Streamed (SSE) or not, as asked. Used by bench_replay_cost.py and bench_cost.py.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from mock_anthropic_sse import (
    QuietHandler,
    _sse,
    has_tool_result,
    json_message,
    listed_skills,
    route,
    text_stream,
    tool_use_stream,
    user_query,
)
from mock_messages_server import listed_skills as skill_tool_listing
from prompt_cache_fake import PromptCache, blocks
from prompt_cache_fake import tokens as _tokens

MODEL = "claude-haiku-4-5"


class Ledger(PromptCache):
    """The prompt cache (`prompt_cache_fake.PromptCache`) and every billed request, by route
    label."""

    def __init__(self) -> None:
        super().__init__()
        self.label = "unlabelled"
        self.rows: list[dict[str, Any]] = []
        self.counted = 0  # count_tokens requests

    def record(self, row: dict[str, Any]) -> None:
        with self.lock:
            self.rows.append({"label": self.label, **row})

    def count(self) -> int:
        with self.lock:
            return len(self.rows)


def with_usage(stream: bytes, usage: dict[str, int]) -> bytes:
    """The mock's stream with its `message_start` usage replaced by the billed one."""
    head, _, rest = stream.partition(b"\n\n")
    start = json.loads(head.split(b"data: ", 1)[1])
    start["message"]["usage"] = {**usage, "output_tokens": 1}
    return _sse("message_start", start) + rest


def route_request(body: dict[str, Any], target: str | None) -> str | None:
    """The skill a Skill-offering first turn calls: `target` when set, else the listed skill
    closest to the query (Claude Code's listing in the messages, or the minimal harness's in
    the Skill tool's description); None for a text answer or any other request."""
    tools = body.get("tools") or []
    if not any(t.get("name") == "Skill" for t in tools) or has_tool_result(body):
        return None
    if target:
        return target
    skills = listed_skills(body) or list(skill_tool_listing(tools).items())
    return route(user_query(body), skills)


def tool_message(model: str, skill: str, usage: dict[str, int]) -> dict[str, Any]:
    """A non-streamed reply calling `Skill`."""
    reply = json_message(model, "")
    reply["content"] = [
        {"type": "tool_use", "id": "toolu_bill_0", "name": "Skill", "input": {"skill": skill}}
    ]
    reply["stop_reason"] = "tool_use"
    reply["usage"] = usage
    return reply


class BillingHandler(QuietHandler):
    """The tests' SSE mock shapes, every request billed through the ledger."""

    server: BillingServer

    def do_HEAD(self) -> None:
        self._send(200, b"", "text/plain")

    def do_GET(self) -> None:
        self._send(404, b'{"type":"error","error":{"type":"not_found_error"}}', "application/json")

    def do_POST(self) -> None:
        body = self._read_body()
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            tokens = sum(_tokens(block) for block in blocks(body))
            self.server.ledger.counted += 1
            self._send(200, json.dumps({"input_tokens": tokens}).encode(), "application/json")
            return
        if not path.endswith("/v1/messages"):
            self._send(404, b'{"type":"error","error":{"type":"not_found"}}', "application/json")
            return
        ledger = self.server.ledger
        model = str(body.get("model") or MODEL)
        bill = ledger.bill(body)
        usage = bill.usage
        skill = route_request(body, self.server.target)
        text = "" if skill else self.server.text_reply(body)
        if skill:
            out = _tokens([{"type": "tool_use", "name": "Skill", "input": {"skill": skill}}]) + 8
        else:
            out = _tokens([{"type": "text", "text": text}]) + 8
        ledger.record({"model": model, "stream": bool(body.get("stream")), "skill": skill,
                       "tools": len(body.get("tools") or []), **usage, "output_tokens": out})  # fmt: skip
        if self.server.first_byte_delay:
            time.sleep(self.server.first_byte_delay)  # the model reads the prompt
        ledger.begin(bill)  # the response begins: what it wrote is readable from now
        if body.get("stream"):
            if skill:
                raw = tool_use_stream(model, "Skill", {"skill": skill}, output_tokens=out)
            else:
                raw = text_stream(model, text, output_tokens=out)
            self._send(200, with_usage(raw, usage), "text/event-stream")
        elif skill:
            reply = tool_message(model, skill, {**usage, "output_tokens": out})
            self._send(200, json.dumps(reply).encode(), "application/json")
        else:
            reply = json_message(model, text)
            reply["usage"] = {**usage, "output_tokens": out}
            self._send(200, json.dumps(reply).encode(), "application/json")


class BillingServer(ThreadingHTTPServer):
    """The fake on 127.0.0.1 (ephemeral port), served from a background thread."""

    daemon_threads = True
    request_queue_size = 256  # the listen backlog: 5 by default resets clients under a burst

    def __init__(self, target: str | None = None) -> None:
        super().__init__(("127.0.0.1", 0), BillingHandler)
        self.ledger = Ledger()
        self.target = target
        #: seconds before a response's first byte (its cache writes become readable then)
        self.first_byte_delay = 0.0
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def text_reply(self, body: dict[str, Any]) -> str:
        """The answer to a request that offers no Skill call (override for improvers etc.)."""
        return "OK."

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> BillingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
