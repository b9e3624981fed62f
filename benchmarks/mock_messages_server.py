"""A tiny local mock of the Anthropic Messages API (loopback only), for benchmarks and demos.

POST /v1/messages answers after a configurable latency (default 300 ms) with a realistic reply:
it reads the skills listed in the `Skill` tool's description ("- <name>: <description>" lines)
and calls `Skill` with the listed skill whose description shares the most content words with
the user's query (at least `min_overlap`; ties broken by name), else answers in text. The
answer is deterministic (Claude Code's own request, replayed, lists the skills in a
`<system-reminder>` of the user turn instead: read from there too). Streamed (server-sent
events) when the request asks for it. Usage imitates prompt caching: the first request with a given
tools+system prefix reports `cache_creation_input_tokens`, later ones `cache_read_input_tokens`.

Minimal Message Batches endpoints (create, retrieve, results JSONL) answer without latency;
a batch reports `in_progress` once, then `ended`. GET /stats returns the request counters.

    python benchmarks/mock_messages_server.py --port 8765 --latency 0.3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

_LISTING = "The following skills are available for use with the Skill tool:"
_LINE = re.compile(r"^- ([a-z0-9][a-z0-9-]*): (.*)$", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    {"this", "that", "when", "what", "used", "user", "your", "will", "into", "over", "than"}
    | {"then", "them", "they", "their", "have", "with", "from", "want", "need", "help"}
)


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") else word


def content_words(text: str) -> set[str]:
    """Lower-case words of four letters or more, without stop words, plural "s" stripped."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in _STOP}


def listed_skills(tools: list[dict[str, Any]]) -> dict[str, str]:
    """Name → description of the skills listed in the `Skill` tool, if any."""
    for tool in tools:
        if tool.get("name") == "Skill":
            return dict(_LINE.findall(str(tool.get("description", ""))))
    return {}


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    """The text pieces of the last user message (string or text blocks)."""
    for msg in reversed(messages):
        if msg.get("role") != "user":
            continue
        content = msg.get("content", "")
        if isinstance(content, str):
            return [content]
        return [b.get("text", "") for b in content if isinstance(b, dict)]
    return []


def reminder_listing(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Name → description of the skills Claude Code lists in a `<system-reminder>` of the user
    turn (its own request, replayed), if any."""
    for text in _texts(messages):
        if text.lstrip().startswith("<system-reminder>") and _LISTING in text:
            return dict(_LINE.findall(text.split(_LISTING, 1)[1]))
    return {}


def user_text(messages: list[dict[str, Any]]) -> str:
    """The user's words in the last user message (system reminders left out)."""
    texts = _texts(messages)
    own = [t for t in texts if not t.lstrip().startswith("<system-reminder>")]
    return " ".join(own or texts)


def choose_skill(query: str, skills: dict[str, str], min_overlap: int = 2) -> str | None:
    """The listed skill sharing the most content words with the query (deterministic)."""
    words = content_words(query)
    scored = [
        (len(words & (content_words(desc) | content_words(name.replace("-", " ")))), name)
        for name, desc in skills.items()
    ]
    scored = [(score, name) for score, name in scored if score >= min_overlap]
    if not scored:
        return None
    best = max(score for score, _ in scored)
    return min(name for score, name in scored if score == best)


def _tokens(value: Any) -> int:
    return max(1, len(json.dumps(value)) // 4)


@dataclass
class MockState:
    """Counters and prompt-cache / batch memory shared by the handler threads."""

    latency: float = 0.3
    min_overlap: int = 2
    counts: Counter[str] = field(default_factory=Counter)
    prefixes: set[str] = field(default_factory=set)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """A Messages API reply to one request body."""
        tools = body.get("tools") or []
        prefix = {"tools": tools, "system": body.get("system")}
        digest = hashlib.sha256(json.dumps(prefix, sort_keys=True).encode()).hexdigest()
        with self.lock:
            seen = digest in self.prefixes
            self.prefixes.add(digest)
        messages = body.get("messages") or []
        query = user_text(messages)
        skills = listed_skills(tools) or reminder_listing(messages)
        skill = choose_skill(query, skills, self.min_overlap)
        if skill:
            content: list[dict[str, Any]] = [
                {"type": "text", "text": f"I'll use the {skill} skill for this."},
                {
                    "type": "tool_use",
                    "id": f"toolu_{uuid.uuid4().hex[:24]}",
                    "name": "Skill",
                    "input": {"skill": skill},
                },
            ]
        else:
            content = [{"type": "text", "text": "Here is how I would approach that."}]
        prefix_tokens = _tokens(prefix)
        return {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-haiku-4-5"),
            "content": content,
            "stop_reason": "tool_use" if skill else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": _tokens(body.get("messages")),
                "output_tokens": 40 if skill else 25,
                "cache_creation_input_tokens": 0 if seen else prefix_tokens,
                "cache_read_input_tokens": prefix_tokens if seen else 0,
            },
        }


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def stream_events(reply: dict[str, Any]) -> bytes:
    """A reply as the server-sent events of a streamed answer (`"stream": true`)."""
    start = {**reply, "content": [], "stop_reason": None}
    start["usage"] = {**reply["usage"], "output_tokens": 1}
    parts = [_sse("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(reply["content"]):
        if block["type"] == "tool_use":
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        parts.append(_sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": opened}))  # fmt: skip
        parts.append(_sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))  # fmt: skip
        parts.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    end = {"stop_reason": reply["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": reply["usage"]["output_tokens"]}
    parts.append(_sse("message_delta", {"type": "message_delta", "delta": end, "usage": usage}))
    parts.append(_sse("message_stop", {"type": "message_stop"}))
    return "".join(parts).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid 40 ms ACK stalls
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the benchmark prints its own summary."""

    def _send(self, status: int, payload: Any, *, jsonl: bool = False) -> None:
        kind = "application/binary" if jsonl else "application/json"
        if isinstance(payload, bytes):
            data, kind = payload, "text/event-stream"
        elif jsonl:
            data = "".join(json.dumps(line) + "\n" for line in payload).encode()
        else:
            data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:16]}")
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, kind: str, message: str) -> None:
        self._send(status, {"type": "error", "error": {"type": kind, "message": message}})

    def _authorised(self) -> bool:
        if self.headers.get("authorization") or self.headers.get("x-api-key"):
            return True
        self._error(401, "authentication_error", "missing credentials")
        return False

    def do_POST(self) -> None:
        """Messages and batch creation."""
        state = self.server.state
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._error(400, "invalid_request_error", "body is not JSON")
            return
        if not self._authorised():
            return
        path = self.path.split("?")[0]
        if path == "/v1/messages":
            with state.lock:
                state.counts["messages"] += 1
            time.sleep(state.latency)
            reply = state.reply(body)
            self._send(200, stream_events(reply) if body.get("stream") else reply)
        elif path == "/v1/messages/batches":
            self._send(200, self._create_batch(body.get("requests") or []))
        else:
            self._error(404, "not_found_error", f"no route {path}")

    def do_GET(self) -> None:
        """Stats, batch status and batch results."""
        state = self.server.state
        path = self.path.split("?")[0]
        if path == "/stats":
            with state.lock:
                self._send(200, dict(state.counts))
            return
        if not self._authorised():
            return
        parts = path.strip("/").split("/")
        if len(parts) >= 4 and parts[:3] == ["v1", "messages", "batches"]:
            with state.lock:
                batch = state.batches.get(parts[3])
            if batch is None:
                self._error(404, "not_found_error", "no such batch")
            elif len(parts) == 5 and parts[4] == "results":
                self._send(200, batch["results"], jsonl=True)
            else:
                self._send(200, self._status(batch))
            return
        self._error(404, "not_found_error", f"no route {path}")

    def _create_batch(self, requests: list[dict[str, Any]]) -> dict[str, Any]:
        state = self.server.state
        batch_id = f"msgbatch_{uuid.uuid4().hex[:20]}"
        results = [
            {
                "custom_id": r["custom_id"],
                "result": {"type": "succeeded", "message": state.reply(r["params"])},
            }
            for r in requests
        ]
        batch = {"id": batch_id, "results": results, "polls": 0}
        with state.lock:
            state.counts["batch_requests"] += len(requests)
            state.counts["batches"] += 1
            state.batches[batch_id] = batch
        return self._status(batch, count_poll=False)

    def _status(self, batch: dict[str, Any], *, count_poll: bool = True) -> dict[str, Any]:
        if count_poll:
            batch["polls"] += 1
        ended = batch["polls"] >= 2
        port = self.server.server_address[1]
        n = len(batch["results"])
        return {
            "id": batch["id"],
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else n,
                "succeeded": n if ended else 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": "2026-11-21T00:00:00Z",
            "expires_at": "2026-11-22T00:00:00Z",
            "ended_at": "2026-11-21T00:00:01Z" if ended else None,
            "results_url": (
                f"http://127.0.0.1:{port}/v1/messages/batches/{batch['id']}/results"
                if ended
                else None
            ),
        }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: MockState


class MockMessagesServer:
    """Runs the mock on 127.0.0.1 in a background thread; use as a context manager."""

    def __init__(self, *, latency: float = 0.3, port: int = 0, min_overlap: int = 2) -> None:
        self.state = MockState(latency=latency, min_overlap=min_overlap)
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.state = self.state
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL to give the SDK (`base_url` / ANTHROPIC_BASE_URL)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def count(self, kind: str = "messages") -> int:
        """Requests of one kind answered so far."""
        with self.state.lock:
            return self.state.counts[kind]

    def start(self) -> MockMessagesServer:
        """Start serving in the background."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> MockMessagesServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main() -> None:
    """Serve in the foreground until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per /v1/messages")
    args = parser.parse_args()
    server = MockMessagesServer(latency=args.latency, port=args.port)
    print(f"LISTENING {server.url} (latency {args.latency} s); Ctrl-C to stop", flush=True)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._server.server_close()


if __name__ == "__main__":
    main()
