"""A loopback mock of the Anthropic Messages API for the end-to-end tests (tests/test_e2e_*.py).

`POST /v1/messages` answers like a plausible model, chosen by what the request asks for:

- a structured call (`output_config.format.schema`, i.e. the SDK's `messages.parse`): a JSON
  object for the grader (`judgements`), the blind comparator (`winner` + `scores`) or the
  analyzer (`winner_version`), built from the prompt (numbered expectations, quoted final reply,
  outputs A and B) so it validates and its quotes are verbatim;
- a request offering the `Skill` tool: routed by word overlap (benchmarks/mock_messages_server.py);
- anything else (a behavior run): a text reply, a fuller one when the skill is in the system prompt.

`reply_extra` is appended to every behavior run's reply (e.g. a secret a model repeats);
`structured_text`, when set, is the text of every structured reply instead (an invalid grader).
`grader_scores`, when set, is the score every judgement of the k-th grader reply gets, cycled
(e.g. [4, 2, 4]: pass, fail, pass for a grader asked three times).
`fail_status` makes every Messages call fail with that HTTP status (with `retry-after-ms: 1` so
the SDK's retries are instant); `echo_key` puts the received key into the error text, as a
careless proxy would, so redaction is really exercised. The server counts requests and records
whether the expected key arrived, but keeps no header values.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.mock_messages_server import MockState

WITH_SKILL_REPLY = (
    "I profiled evals/files/crm_export.csv first: it is semicolon-separated with messy headers.\n"
    "Cleaned file: evals/files/crm_export.clean.csv with headers first_name,last_name,e_mail,"
    "postcode; postcodes stay text so 00501 keeps its leading zeros.\n"
    "Change log: evals/files/crm_export.changes.md lists the 2 duplicate rows removed.\n"
    "7 rows in, 5 rows out."
)
BASELINE_REPLY = (
    "You can load the file with pandas, rename the columns and call drop_duplicates() before "
    "importing it into Postgres."
)


def _section(text: str, start: str, end: str | None) -> str:
    """The text between the heading `start` and the next heading `end` (or the end)."""
    begin = text.find(start)
    if begin < 0:
        return ""
    begin += len(start)
    stop = text.find(end, begin) if end else -1
    return text[begin : stop if stop >= 0 else len(text)].strip()


def prompt_text(body: dict[str, Any]) -> str:
    """The text of the first user message."""
    for message in body.get("messages") or []:
        content = message.get("content", "")
        if isinstance(content, str):
            return content
        return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def grader_reply(prompt: str) -> dict[str, Any]:
    """One judgement per numbered expectation; quotes copied verbatim from the final reply."""
    expectations = _section(prompt, "## Expectations to grade", "\n## ")
    numbers = [int(m) for m in re.findall(r"^(\d+)\. ", expectations, re.MULTILINE)]
    final = _section(prompt, "## Final reply", "\n## Output files")
    good = "rows in" in final
    quote = final.splitlines()[-1] if final and final != "(none)" else ""
    judgements = [
        {
            "id": n,
            "score": 4 if good else 2,
            "quote": quote if good else "",
            "reasoning": "The reply states the row counts." if good else "No row counts given.",
        }
        for n in numbers
    ]
    dim = {"score": 4 if good else 2, "notes": "judged from the final reply"}
    return {
        "judgements": judgements,
        "dimensions": {
            "task_completion": dim,
            "output_structure": dim,
            "error_handling": dim,
            "efficiency": dim,
        },
        "summary": "Followed the cleanup steps." if good else "Gave generic advice only.",
        "claims": [],
        "weak_assertions": [],
        "missing_coverage": ["no check that the change log names the duplicates"],
    }


def comparison_reply(prompt: str) -> dict[str, Any]:
    """The output whose final reply reports row counts wins, on every dimension."""
    a = _section(prompt, "## Output A", "## Output B")
    a_better = "rows in" in a
    hi, lo = 8, 4
    pair = {"A": hi, "B": lo} if a_better else {"A": lo, "B": hi}
    return {
        "winner": "A" if a_better else "B",
        "reasoning": "One output cleaned the file and reported 7 rows in, 5 out; the other "
        "only gave generic advice.",
        "scores": {
            "description_quality": pair,
            "convention_compliance": pair,
            "type_specific_quality": pair,
            "token_efficiency": pair,
            "content_value": pair,
        },
    }


def analysis_reply(prompt: str) -> dict[str, Any]:
    """A writing-skills analysis naming the versions the prompt names."""
    versions = re.findall(r"\bv\d+\b|with_skill|baseline", prompt)
    winner = versions[0] if versions else "with_skill"
    loser = next((v for v in versions if v != winner), "baseline")
    return {
        "winner_version": winner,
        "loser_version": loser,
        "strengths": ["profiles the file before changing it"],
        "weaknesses": ["generic advice without touching the file"],
        "suggestions": [
            {
                "area": "instructions",
                "before": "Clean the file.",
                "after": "Write <name>.clean.csv and a change log next to the original.",
                "reasoning": "The winning run did exactly this.",
            }
        ],
    }


def structured_reply(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON object a structured call asks for, or None for an unknown schema."""
    schema = ((body.get("output_config") or {}).get("format") or {}).get("schema") or {}
    props = set(schema.get("properties") or {})
    prompt = prompt_text(body)
    if "judgements" in props:
        return grader_reply(prompt)
    if {"winner", "scores"} <= props:
        return comparison_reply(prompt)
    if "winner_version" in props:
        return analysis_reply(prompt)
    return None


def message(body: dict[str, Any], content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    """A Messages API reply with plausible usage."""
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-haiku-4-5"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": max(1, len(json.dumps(body.get("messages"))) // 4),
            "output_tokens": 60,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent."""

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        """Messages calls only."""
        mock = self.server.mock
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        bearer = self.headers.get("authorization") or ""
        key = self.headers.get("x-api-key") or bearer.removeprefix("Bearer ")
        path = self.path.split("?")[0]
        with mock.lock:
            mock.counts["requests"] += 1
            if mock.expected_key is not None and key == mock.expected_key:
                mock.counts["key_matched"] += 1
        if path != "/v1/messages":
            self._send(
                404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
            )
            return
        if mock.fail_status is not None:
            text = "request refused"
            if mock.echo_key:
                text = f"invalid API key {key!r}: request refused"
            kind = "authentication_error" if mock.fail_status == 401 else "api_error"
            self._send(
                mock.fail_status,
                {"type": "error", "error": {"type": kind, "message": text}},
                {"retry-after-ms": "1"},
            )
            return
        self._send(200, mock.reply(body))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    mock: MockAPI


class MockAPI:
    """The mock on 127.0.0.1 (ephemeral port) in a background thread; a context manager."""

    def __init__(
        self,
        *,
        expected_key: str | None = None,
        fail_status: int | None = None,
        echo_key: bool = False,
        reply_extra: str = "",
        structured_text: str | None = None,
        grader_scores: list[int] | None = None,
    ) -> None:
        self.expected_key = expected_key
        self.reply_extra = reply_extra
        self.structured_text = structured_text
        self.grader_scores = grader_scores
        self.fail_status = fail_status
        self.echo_key = echo_key
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.router = MockState(latency=0.0)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.mock = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL (ANTHROPIC_BASE_URL)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def count(self, kind: str = "requests") -> int:
        """Requests of one kind so far: requests, key_matched, execute, grade, compare, ..."""
        with self.lock:
            return self.counts[kind]

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The answer to one successful Messages call."""
        if body.get("output_config"):
            data = structured_reply(body)
            kind = "structured"
            if data is None:
                data = {"error": "mock does not know this schema"}
                kind = "unknown_schema"
            with self.lock:
                self.counts[kind] += 1
                if self.grader_scores and "judgements" in data:
                    graded = self.counts["graded"]
                    self.counts["graded"] += 1
                    score = self.grader_scores[graded % len(self.grader_scores)]
                    for judgement in data["judgements"]:
                        judgement["score"] = score
            text = json.dumps(data) if self.structured_text is None else self.structured_text
            return message(body, [{"type": "text", "text": text}], "end_turn")
        if any(t.get("name") == "Skill" for t in body.get("tools") or []):
            with self.lock:
                self.counts["route"] += 1
            return self.router.reply(body)
        with self.lock:
            self.counts["execute"] += 1
        system = body.get("system") or ""
        system_text = system if isinstance(system, str) else json.dumps(system)
        text = WITH_SKILL_REPLY if "<skill name=" in system_text else BASELINE_REPLY
        text += self.reply_extra
        return message(body, [{"type": "text", "text": text}], "end_turn")

    def __enter__(self) -> MockAPI:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
