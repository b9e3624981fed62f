"""Loopback fakes of Gemini's streaming `generateContent` and OpenAI's streaming Responses API,
for the gemini and codex backends' tests (tests/agents/test_gemini_*.py, test_codex_*.py).

One server answers both (`/v1beta/models/<m>:streamGenerateContent?alt=sse` and
`/v1/responses`); what it answers is a `Reply` chosen per request by `answer(kind, body)`
(default: a text reply). It records every request (path, headers but the key, parsed body).
Written from the providers' wire formats, independently of skillbench's own capture server.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SECRET_HEADERS = {"authorization", "x-goog-api-key", "api-key"}


@dataclass
class Reply:
    """One answer.

    `kind`: `call` (a function call `name` with `args`: a dict for Gemini, a string for a
    Responses function call, or `input` text for a Responses custom tool call when `custom`),
    `text`, `http_error` (`status`), `incomplete` (Gemini finishReason MAX_TOKENS, Responses
    `response.incomplete`), `failed` (Responses `response.failed` / an `error` event).
    `preamble` is text sent before the call; `thought` a thought part / reasoning item first."""

    kind: str = "text"
    name: str = ""
    args: Any = None
    custom: bool = False
    text: str = "Here is my answer."
    status: int = 500
    preamble: str = ""
    thought: bool = True
    namespace: str | None = None


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def _gemini_chunk(parts: list[dict[str, Any]], finish: str | None = None) -> bytes:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": "fake"}
    if finish:
        chunk["usageMetadata"] = {
            "promptTokenCount": 1200,
            "cachedContentTokenCount": 1000,
            "candidatesTokenCount": 12,
            "thoughtsTokenCount": 30,
            "totalTokenCount": 1242,
        }
    return b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n"


def gemini_stream(reply: Reply) -> bytes:
    """The SSE body of a streamed generateContent reply."""
    out = b""
    if reply.thought:
        out += _gemini_chunk([{"text": "Thinking about the request.", "thought": True}])
    if reply.kind == "call":
        if reply.preamble:
            out += _gemini_chunk([{"text": reply.preamble}])
        call = {"name": reply.name, "args": reply.args or {}}
        out += _gemini_chunk([{"functionCall": call}])
        return out + _gemini_chunk([{"text": ""}], "STOP")
    if reply.kind == "incomplete":
        return out + _gemini_chunk([{"text": "I was about to"}], "MAX_TOKENS")
    return out + _gemini_chunk([{"text": reply.text}], "STOP")


def _sse(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def responses_stream(reply: Reply, model: str) -> bytes:
    """The SSE body of a streamed Responses reply."""
    base = {"id": "resp_fake", "object": "response", "created_at": 0, "model": model}
    usage = {
        "input_tokens": 1200,
        "input_tokens_details": {"cached_tokens": 1000},
        "output_tokens": 42,
        "output_tokens_details": {"reasoning_tokens": 30},
        "total_tokens": 1242,
    }
    events = [{"type": "response.created", "response": {**base, "status": "in_progress"}}]
    items: list[dict[str, Any]] = []
    if reply.thought:
        items.append({"type": "reasoning", "id": "rs_fake", "summary": []})
    if reply.preamble:
        items.append(_message(reply.preamble, "msg_pre"))
    if reply.kind == "call":
        if reply.custom:
            call = {"type": "custom_tool_call", "id": "ctc_fake", "call_id": "call_1"}
            call.update(name=reply.name, input=reply.args, status="completed")
        else:
            call = {"type": "function_call", "id": "fc_fake", "call_id": "call_1"}
            call.update(name=reply.name, arguments=reply.args, status="completed")
        if reply.namespace:
            call["namespace"] = reply.namespace
        items.append(call)
    elif reply.kind == "text":
        items.append(_message(reply.text, "msg_fake"))
    for index, item in enumerate(items):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(
                {
                    "type": "response.output_text.delta",
                    "output_index": index,
                    "content_index": 0,
                    "item_id": item["id"],
                    "delta": text,
                }
            )
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    if reply.kind == "incomplete":
        final = {
            **base,
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": items,
            "usage": usage,
        }
        events.append({"type": "response.incomplete", "response": final})
    elif reply.kind == "failed":
        final = {**base, "status": "failed", "error": {"code": "server_error", "message": "x"}}
        events.append({"type": "response.failed", "response": final})
    else:
        final = {**base, "status": "completed", "output": items, "usage": usage}
        events.append({"type": "response.completed", "response": final})
    return b"".join(_sse(e) for e in events)


def _message(text: str, item_id: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, content_type: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self._send(200, "application/json", b'{"object": "list", "data": [], "models": []}')

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}
        fake = self.server.fake
        kind = "gemini" if "enerateContent" in self.path else "responses"
        keys = [v for k, v in self.headers.items() if k.lower() in SECRET_HEADERS]
        with fake.lock:
            fake.requests.append(Recorded(self.path, headers, body))
            fake.keys.append(" ".join(keys))
        reply = fake.answer(kind, body)
        if fake.latency:
            time.sleep(fake.latency)
        if reply.kind == "http_error":
            error = {"error": {"code": reply.status, "message": "fake failure", "status": "X"}}
            self._send(reply.status, "application/json", json.dumps(error).encode())
            return
        if kind == "gemini":
            self._send(200, "text/event-stream", gemini_stream(reply))
        else:
            self._send(200, "text/event-stream", responses_stream(reply, body.get("model", "")))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up early (a stream closed once decided) is not an error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    fake: FakeAgentAPI


@dataclass
class FakeAgentAPI:
    """The loopback server (a context manager); `answer(kind, body)` picks each reply."""

    answer: Callable[[str, dict[str, Any]], Reply] = lambda kind, body: Reply()
    latency: float = 0.0
    """Seconds each reply waits before it is sent (benchmarks)."""
    port: int = 0
    requests: list[Recorded] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    """The auth header values of each request, in order (kept apart from `requests`: a test
    that checks which key arrived reads them, nothing else does)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> FakeAgentAPI:
        self._server = _Server(("127.0.0.1", self.port), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"


def cli_own_request(
    agent: Any, binary: Any, skills: tuple[Any, ...], query: str, folder: Any
) -> tuple[str, dict[str, Any]]:
    """Run the real agent CLI once with `query` itself (no sentinel) against a fresh fake, set up
    as a capture is (skills under the agent's folder, the agent's own config and environment, in
    `folder`/project and `folder`/home); its own request (path, body normalised by the agent)."""
    import subprocess

    from skillbench.backends.skill_install import install_skills

    project, home = folder / "project", folder / "home"
    project.mkdir(parents=True)
    home.mkdir()
    install_skills(project, skills[0], skills[1:], agent.skills_dir)
    with FakeAgentAPI() as fake:
        agent.prepare(project, home, fake.url, agent.default_model)
        env = agent.capture_env(home, fake.url, agent.settings())
        call = agent.capture_call(binary, agent.default_model, query)
        subprocess.run(
            call.argv, input=call.stdin, cwd=project, env=env, capture_output=True, timeout=120
        )
        own = [r for r in fake.requests if agent.is_agent_request(r.path, r.body)]
    assert own, f"the {agent.name} CLI sent no request of its own"
    return own[0].path, agent.normalise(own[0].body, str(folder))


def serve_forever(port: int, latency: float, kind: str) -> None:
    """Run a fake answering every request with `kind` (`gemini`: an `activate_skill` of
    csv-cleanup; `codex`: an `exec` cell reading its SKILL.md) after `latency` seconds, until
    killed (benchmarks run it in its own process)."""
    if kind == "gemini":
        reply = Reply("call", "activate_skill", {"name": "csv-cleanup"})
    else:
        source = 'await tools.exec_command({cmd: "cat .agents/skills/csv-cleanup/SKILL.md"})'
        reply = Reply("call", "exec", source, custom=True)
    with FakeAgentAPI(answer=lambda k, b: reply, latency=latency, port=port) as fake:
        print(fake.url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    serve_forever(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3])
