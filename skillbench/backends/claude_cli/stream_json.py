"""Parser of Claude Code's `--output-format stream-json` sessions.

One JSON object per line: `system/init` (tools, model, skills, session id), `stream_event`
(raw Messages API stream events when `--include-partial-messages` is on), `assistant` (a message
or one content block of it), `user` (tool results), and a final `result` (is_error, subtype,
usage, total_cost_usd, duration_ms, num_turns). Blank and non-JSON lines are tolerated and
counted. Tool calls are collected from both `assistant` messages and streamed
`content_block_start`/`input_json_delta` chunks, merged by tool_use id, in order of appearance.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from skillbench.schemas.cost import TokenCounts

SKILL_MD_PATH = re.compile(r"(?:^|[\\/])\.claude[\\/]skills[\\/]([^\\/]+)[\\/]SKILL\.md$")


class _Event(BaseModel):
    """Base of the event models: unknown keys are kept, never rejected."""

    model_config = ConfigDict(extra="allow")


class InitEvent(_Event):
    """`{"type": "system", "subtype": "init", ...}`: what the session started with."""

    type: str = "system"
    subtype: str = "init"
    session_id: str | None = None
    cwd: str | None = None
    model: str | None = None
    tools: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    slash_commands: list[str] = Field(default_factory=list)
    claude_code_version: str | None = None
    permissionMode: str | None = None


class ResultEvent(_Event):
    """`{"type": "result", ...}`: the end of the session."""

    type: str = "result"
    subtype: str | None = None
    is_error: bool = False
    result: str | None = None
    usage: TokenCounts = Field(
        default_factory=TokenCounts, description="token usage summed over the session"
    )

    @field_validator("usage", mode="before")
    @classmethod
    def _wire_usage(cls, value: Any) -> TokenCounts:
        """The CLI's usage object (other keys beside the four counts are left out)."""
        return TokenCounts.from_wire(value or {})

    total_cost_usd: float = 0.0
    duration_ms: int | None = None
    duration_api_ms: int | None = None
    num_turns: int | None = None
    api_error_status: int | None = None
    stop_reason: str | None = None
    session_id: str | None = None


class ToolUse(BaseModel):
    """One tool call the model made (from `assistant` and/or streamed content blocks)."""

    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    parent_tool_use_id: str | None = None
    order: int = 0
    from_assistant: bool = False
    from_stream: bool = False


class ToolResult(BaseModel):
    """A tool result the CLI fed back to the model (from `user` events)."""

    tool_use_id: str
    is_error: bool = False
    text: str = ""


class Session(BaseModel):
    """Everything skillbench relies on from one stream-json session."""

    init: InitEvent | None = None
    tool_uses: list[ToolUse] = Field(default_factory=list)
    tool_results: list[ToolResult] = Field(default_factory=list)
    result: ResultEvent | None = None
    assistant_texts: list[str] = Field(default_factory=list)
    assistant_errors: list[str] = Field(default_factory=list)
    event_counts: dict[str, int] = Field(default_factory=dict)
    lines: int = 0
    blank_lines: int = 0
    bad_lines: int = 0
    bad_tool_inputs: int = 0
    stream_usage: TokenCounts = Field(
        default_factory=TokenCounts,
        description="usage summed over the streamed messages (known before the result event)",
    )
    streaming: bool = Field(
        default=False, description="a top-level streamed message has started and not yet ended"
    )


class SessionMetrics(BaseModel):
    """Counts for reports: tool calls by name, totals, errors."""

    tool_calls: dict[str, int] = Field(default_factory=dict)
    total_tool_calls: int = 0
    tool_errors: int = 0
    skills_invoked: list[str] = Field(default_factory=list)
    num_turns: int | None = None
    duration_ms: int | None = None
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    is_error: bool = False
    has_result: bool = False
    assistant_errors: list[str] = Field(default_factory=list)
    bad_lines: int = 0


def tool_result_text(content: Any) -> str:
    """Flatten a tool_result content (string or list of text blocks) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b
        )
    return ""


class StreamParser:
    """Incremental parser: `feed()` one line at a time, read `session` at any point."""

    def __init__(self) -> None:
        self.session = Session()
        self._by_id: dict[str, ToolUse] = {}
        self._open: dict[tuple[str | None, int], dict[str, Any]] = {}
        self._counts: Counter[str] = Counter()
        self._messages: list[dict[str, int]] = []
        self._current: dict[str | None, int] = {}

    @property
    def done(self) -> bool:
        """True once the final `result` event has been seen."""
        return self.session.result is not None

    def feed(self, line: str | bytes) -> None:
        """Parse one line of the stream (blank or non-JSON lines are counted, not fatal)."""
        if isinstance(line, bytes):
            line = line.decode("utf-8", errors="replace")
        self.session.lines += 1
        text = line.strip()
        if not text:
            self.session.blank_lines += 1
            return
        try:
            event = json.loads(text)
        except json.JSONDecodeError:
            self.session.bad_lines += 1
            return
        if not isinstance(event, dict):
            self.session.bad_lines += 1
            return
        self.handle(event)

    def handle(self, event: dict[str, Any]) -> None:
        """Take one parsed event (counted by type, then read by its type's handler)."""
        kind = str(event.get("type", "?"))
        subtype = event.get("subtype")
        self._counts[f"{kind}/{subtype}" if kind == "system" and subtype else kind] += 1
        self.session.event_counts = dict(self._counts)
        handler = {
            "system": self._system,
            "stream_event": self._stream_event,
            "assistant": self._assistant,
            "user": self._user,
            "result": self._result,
        }.get(kind)
        if handler is not None:
            handler(event)

    def _system(self, event: dict[str, Any]) -> None:
        if event.get("subtype") == "init" and self.session.init is None:
            self.session.init = InitEvent.model_validate(event)

    def _add_tool_use(
        self, block: dict[str, Any], parent: str | None, *, assistant: bool, stream: bool
    ) -> None:
        tool_id = str(block.get("id") or f"anon-{len(self.session.tool_uses)}")
        raw_input = block.get("input")
        tool_input = raw_input if isinstance(raw_input, dict) else {}
        known = self._by_id.get(tool_id)
        if known is None:
            known = ToolUse(
                id=tool_id,
                name=str(block.get("name", "")),
                input=tool_input,
                parent_tool_use_id=parent,
                order=len(self.session.tool_uses),
            )
            self._by_id[tool_id] = known
            self.session.tool_uses.append(known)
        elif tool_input and (assistant or not known.input):
            known.input = tool_input
        known.from_assistant = known.from_assistant or assistant
        known.from_stream = known.from_stream or stream

    def _stream_event(self, event: dict[str, Any]) -> None:
        inner = event.get("event")
        if not isinstance(inner, dict):
            return
        parent = event.get("parent_tool_use_id")
        kind = inner.get("type")
        index = inner.get("index")
        if kind == "message_start":
            self._open = {k: v for k, v in self._open.items() if k[0] != parent}
            message = inner.get("message")
            usage = message.get("usage") if isinstance(message, dict) else None
            self._current[parent] = len(self._messages)
            self._messages.append(usage_counts(usage))
            self._sum_usage()
            if parent is None:
                self.session.streaming = True
        elif kind == "message_stop" and parent is None:
            self.session.streaming = False
        elif kind == "message_delta" and parent in self._current:
            usage = inner.get("usage")
            if isinstance(usage, dict) and isinstance(usage.get("output_tokens"), int):
                self._messages[self._current[parent]]["output_tokens"] = usage["output_tokens"]
                self._sum_usage()
        elif kind == "content_block_start" and isinstance(index, int):
            block = inner.get("content_block")
            if isinstance(block, dict) and block.get("type") == "tool_use":
                self._open[(parent, index)] = {"block": block, "json": []}
        elif kind == "content_block_delta" and isinstance(index, int):
            delta = inner.get("delta")
            pending = self._open.get((parent, index))
            if (
                pending is not None
                and isinstance(delta, dict)
                and delta.get("type") == "input_json_delta"
            ):
                pending["json"].append(str(delta.get("partial_json", "")))
        elif kind == "content_block_stop" and isinstance(index, int):
            pending = self._open.pop((parent, index), None)
            if pending is not None:
                block = dict(pending["block"])
                joined = "".join(pending["json"])
                if joined.strip():
                    try:
                        block["input"] = json.loads(joined)
                    except json.JSONDecodeError:
                        self.session.bad_tool_inputs += 1  # keep the block, input unknown
                self._add_tool_use(block, parent, assistant=False, stream=True)

    def _sum_usage(self) -> None:
        totals = Counter[str]()
        for counts in self._messages:
            totals.update(counts)
        self.session.stream_usage = TokenCounts.from_wire(totals)

    def _assistant(self, event: dict[str, Any]) -> None:
        error = event.get("error")
        if isinstance(error, str) and error:
            self.session.assistant_errors.append(error)
        message = event.get("message")
        if not isinstance(message, dict):
            return
        parent = event.get("parent_tool_use_id")
        content = message.get("content")
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                self._add_tool_use(block, parent, assistant=True, stream=False)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                self.session.assistant_texts.append(block["text"])

    def _user(self, event: dict[str, Any]) -> None:
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                self.session.tool_results.append(
                    ToolResult(
                        tool_use_id=str(block.get("tool_use_id", "")),
                        is_error=bool(block.get("is_error", False)),
                        text=tool_result_text(block.get("content"))[:2000],
                    )
                )

    def _result(self, event: dict[str, Any]) -> None:
        data = dict(event)
        if not isinstance(data.get("usage"), dict):
            data.pop("usage", None)
        if data.get("total_cost_usd") is None:
            data.pop("total_cost_usd", None)
        self.session.result = ResultEvent.model_validate(data)


_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def usage_counts(usage: Any) -> dict[str, int]:
    """The token counts of a message's `usage` (missing or odd values as 0)."""
    if not isinstance(usage, dict):
        return dict.fromkeys(_USAGE_KEYS, 0)
    return {k: usage[k] if isinstance(usage.get(k), int) else 0 for k in _USAGE_KEYS}


def parse_stream(lines: Iterable[str | bytes]) -> Session:
    """Parse a whole stream-json session (an iterable of lines, e.g. an open file)."""
    parser = StreamParser()
    for line in lines:
        parser.feed(line)
    return parser.session


def _skill_name(raw: Any) -> str | None:
    """`pdf-tools`, `/pdf-tools some args` → `pdf-tools`."""
    if not isinstance(raw, str):
        return None
    text = raw.strip().lstrip("/")
    return text.split()[0] if text else None


def invoked_skill(tool: ToolUse) -> str | None:
    """The skill a tool call invokes: a `Skill` call's `skill`/`command` input, or a `Read` of
    `.claude/skills/<name>/SKILL.md`; None for any other call."""
    if tool.name == "Skill":
        return _skill_name(tool.input.get("skill")) or _skill_name(tool.input.get("command"))
    if tool.name == "Read":
        path = tool.input.get("file_path") or tool.input.get("path")
        if isinstance(path, str):
            match = SKILL_MD_PATH.search(path.strip())
            if match:
                return match.group(1)
    return None


def skill_invocations(session: Session) -> list[str]:
    """Names of the skills invoked anywhere in the session, in order, without repeats."""
    seen: list[str] = []
    for tool in session.tool_uses:
        name = invoked_skill(tool)
        if name and name not in seen:
            seen.append(name)
    return seen


def metrics(session: Session) -> SessionMetrics:
    """Tool calls by name, totals and errors of one session."""
    counts = Counter(tool.name for tool in session.tool_uses)
    result = session.result
    return SessionMetrics(
        tool_calls=dict(counts),
        total_tool_calls=sum(counts.values()),
        tool_errors=sum(1 for r in session.tool_results if r.is_error),
        skills_invoked=skill_invocations(session),
        num_turns=result.num_turns if result else None,
        duration_ms=result.duration_ms if result else None,
        cost_usd=result.total_cost_usd if result else 0.0,
        input_tokens=result.usage.input_tokens if result else 0,
        output_tokens=result.usage.output_tokens if result else 0,
        is_error=bool(result.is_error) if result else False,
        has_result=result is not None,
        assistant_errors=list(session.assistant_errors),
        bad_lines=session.bad_lines,
    )
