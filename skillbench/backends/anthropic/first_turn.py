"""What the model did first in one streamed Messages API reply, and the replay side of the
agents that speak that API (Claude Code, opencode: `MessagesAgent`).

The fold (`FirstTurn`) reads the events into the replay family's one first-move vocabulary
(`replay.move.Move`):
- `target`: the first tool call is the skill tool (`Skill`) naming the target skill;
- `other-skill`: the skill tool naming another skill (named in `fired`);
- `disabled-skill`: the skill tool naming a `disable-model-invocation: true` skill (named in
  `fired`): Claude Code answers it with a `tool_use_error` ("cannot be used with Skill tool due
  to disable-model-invocation") and the skill never runs, so it is not a trigger, even when it
  names the target;
- `other-tool`: the first tool call is another tool (named in `tool`, its input kept in
  `tool_input`) — undecided, not a miss: the agent might still invoke the skill after it;
- `text`: a complete text answer and no tool call — did not trigger;
- `error`: a broken answer, with `error_kind` one of `empty`, `max_tokens`, `refusal`,
  `malformed_tool_call`, `incomplete` (the stream ended before the reply did).

Names are resolved as Claude Code's Skill tool resolves them (`claude_install.resolve_call`):
the folder name, or the frontmatter `name` of the first skill in listing order that has it; so
a call naming `youtube-downloader` runs the `video-downloader` folder whose frontmatter says so.

The fold consumes stream events (SDK objects or plain dicts) and says when the outcome is decided,
so the caller can close the stream early (`FirstTurn.decided`, then `FirstTurn.close_early`). A
closed stream never delivers the final usage, so its output tokens are then estimated from the
characters received (thinking, text and tool input; `CHARS_PER_TOKEN` per token) and flagged
`output_estimated`: the API bills what it generated before the close, which is at least that.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterable, Mapping, Sequence
from typing import Any, ClassVar

from skillbench.backends.anthropic.routing_prompt import normalise_skill_name
from skillbench.backends.anthropic.sdk import (
    DEFAULT_ENDPOINT,
    _describe,
    classify_failure,
    price,
    tool_input_kept,
)
from skillbench.backends.base import CallUsage
from skillbench.backends.limiter import Failure
from skillbench.backends.replay.agent import Agent
from skillbench.backends.replay.move import (
    DISABLED_SKILL,
    ERROR,
    OTHER_SKILL,
    OTHER_TOOL,
    TARGET,
    TEXT,
    Move,
)
from skillbench.backends.replay.template import beta_flags
from skillbench.backends.skill_install import CliSkill, resolve_call
from skillbench.schemas.cost import TokenCounts

SKILL_TOOL = "Skill"
TEXT_KEEP = 500
CHARS_PER_TOKEN = 4.0  # the offline rule of skillbench.cost.estimate
DELTA_TEXT = ("partial_json", "text", "thinking")  # what a content delta carries


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


class FirstTurn:
    """Fold a Messages API event stream into the first `Move` for skill `target`; `skills` (the
    installed set as Claude Code sees it, `claude_install.cli_skills`) resolves the called
    name as the CLI does; without it a call counts for the target only when it names it."""

    def __init__(
        self,
        target: str,
        skills: Sequence[CliSkill] = (),
        *,
        skill_tool: str = SKILL_TOOL,
        name_keys: Sequence[str] = ("skill", "command"),
    ) -> None:
        self.target = target
        #: The agent's skill tool and the argument(s) naming the skill (opencode: `skill`, `name`).
        self.skill_tool = skill_tool
        self.name_keys = tuple(name_keys)
        self.skills = tuple(skills)
        self.decision = Move()
        #: the move is known (the rest of the reply changes nothing)
        self.decided = False
        #: the reply has ended (or broke off) and the move is settled
        self.finished = False
        self._blocks: dict[int, dict[str, Any]] = {}
        self._texts: list[str] = []
        self.received_chars = 0

    def close_early(self) -> None:
        """The caller closes the stream now: flag it, and raise the output count to what was
        received (the final usage will not arrive)."""
        d = self.decision
        d.closed_early = True
        received = math.ceil(self.received_chars / CHARS_PER_TOKEN)
        if received > d.usage.output_tokens:
            d.usage.output_tokens = received
            d.output_estimated = True

    def feed(self, event: Any) -> bool:
        """Consume one event; True once the outcome is decided (the rest changes nothing)."""
        kind = _get(event, "type")
        d = self.decision
        if kind == "message_start":
            self._take_usage(_get(_get(event, "message"), "usage"))
        elif kind == "content_block_start":
            block = _get(event, "content_block")
            self._blocks[int(_get(event, "index", 0))] = {
                "type": _get(block, "type"),
                "name": _get(block, "name"),
                "json": "",
                "text": _get(block, "text") or "",
            }
        elif kind == "content_block_delta":
            block_state = self._blocks.get(int(_get(event, "index", 0)))
            delta = _get(event, "delta")
            for name in DELTA_TEXT:
                piece = _get(delta, name)
                if isinstance(piece, str):
                    self.received_chars += len(piece)
            if block_state is not None:
                if _get(delta, "type") == "input_json_delta":
                    block_state["json"] += _get(delta, "partial_json") or ""
                elif _get(delta, "type") == "text_delta":
                    block_state["text"] += _get(delta, "text") or ""
        elif kind == "content_block_stop":
            block_state = self._blocks.get(int(_get(event, "index", 0)))
            if block_state is not None:
                self._block_done(block_state)
        elif kind == "message_delta":
            d.stop_reason = _get(_get(event, "delta"), "stop_reason") or d.stop_reason
            self._take_usage(_get(event, "usage"))
        elif kind == "message_stop":
            self.finish()
        return self.decided

    def _take_usage(self, usage: Any) -> None:
        """Take every count the event's usage carries (later events repeat or raise them)."""
        if usage is not None:
            self.decision.usage = TokenCounts.from_wire(usage, self.decision.usage)

    def _block_done(self, block: dict[str, Any]) -> None:
        if self.decided:
            return
        if block["type"] == "text":
            self._texts.append(block["text"])
        elif block["type"] in ("tool_use", "server_tool_use"):
            self._tool_done(str(block["name"] or ""), block["json"])

    def _tool_done(self, name: str, raw: str) -> None:
        d = self.decision
        self.decided = True
        if name != self.skill_tool:
            d.kind, d.tool = OTHER_TOOL, name or "?"
            try:
                d.tool_input = tool_input_kept(json.loads(raw) if raw.strip() else {})
            except json.JSONDecodeError:
                d.tool_input = tool_input_kept(raw)
            return
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            arguments = None
        skill = None
        if isinstance(arguments, dict):
            called = next((arguments[k] for k in self.name_keys if arguments.get(k)), None)
            skill = normalise_skill_name(called)
        if not skill:
            d.kind, d.error_kind = ERROR, "malformed_tool_call"
            return
        resolved = resolve_call(skill, self.skills) if self.skills else None
        if resolved is None:
            d.fired = skill
            d.kind = TARGET if skill == self.target and not self.skills else OTHER_SKILL
        elif resolved.disabled:
            d.fired, d.kind = resolved.name, DISABLED_SKILL
        elif resolved.target:
            d.fired, d.kind = self.target, TARGET
        else:
            d.fired, d.kind = resolved.name, OTHER_SKILL

    def finish(self) -> Move:
        """Settle the move at the end of the stream (or when it broke off)."""
        d = self.decision
        d.text = " ".join(t.strip() for t in self._texts if t.strip())[:TEXT_KEEP]
        if self.finished or self.decided:
            self.finished = True
            return d
        self.finished = True
        self.decided = True
        open_tool = any(b["type"] in ("tool_use", "server_tool_use") for b in self._blocks.values())
        if d.stop_reason == "refusal":
            d.kind, d.error_kind = ERROR, "refusal"
        elif d.stop_reason == "max_tokens":
            d.kind, d.error_kind = ERROR, "max_tokens"
        elif open_tool:
            d.kind, d.error_kind = ERROR, "malformed_tool_call"
        elif d.stop_reason is None:
            d.kind, d.error_kind = ERROR, "incomplete"
        elif d.text:
            d.kind = TEXT
        else:
            d.kind, d.error_kind = ERROR, "empty"
        return d


def messages_arguments(
    path: str, headers: Mapping[str, str], body: dict[str, Any], *, first_party: bool = True
) -> dict[str, Any]:
    """`beta.messages.create` arguments sending `body` as the agent sent it: `model`,
    `max_tokens` and `messages` by name, every other field through `extra_body`, the
    `anthropic-beta` header as the list of betas and, to the first-party API (not Bedrock or
    Vertex), the captured `anthropic-version` and `?beta=true`."""
    rest = dict(body)
    arguments: dict[str, Any] = {
        "model": rest.pop("model"),
        "max_tokens": rest.pop("max_tokens"),
        "messages": rest.pop("messages"),
        "stream": True,
        "extra_body": rest,
    }
    betas = beta_flags(headers)
    if betas:
        arguments["betas"] = betas
    if first_party:
        if headers.get("anthropic-version"):
            arguments["extra_headers"] = {"anthropic-version": headers["anthropic-version"]}
        if "beta=true" in path:
            arguments["extra_query"] = {"beta": "true"}
    return arguments


class MessagesAgent(Agent):
    """The replay side of an agent speaking Anthropic's Messages API (Claude Code, opencode):
    the anthropic SDK's client, the body streamed through `beta.messages.create`
    (`messages_arguments`), folded by `FirstTurn` with the agent's skill tool and the arguments
    naming the skill (`name_keys`); failures classified, described and priced as the anthropic
    backend's."""

    key_variable: ClassVar[str] = "ANTHROPIC_API_KEY"
    base_url_variable: ClassVar[str] = "ANTHROPIC_BASE_URL"
    default_endpoint: ClassVar[str] = DEFAULT_ENDPOINT
    sdk: ClassVar[str] = "anthropic"
    kept_headers: ClassVar[tuple[str, ...]] = ("anthropic-version", "anthropic-beta")
    name_keys: ClassVar[tuple[str, ...]] = ("skill", "command")
    """The skill tool's arguments that name the skill (the first present wins)."""

    def client(
        self, *, api_key: str, base_url: str | None, timeout: float | None, http_client: Any
    ) -> Any:
        """`anthropic.AsyncAnthropic`, its own retries off (the limiter retries)."""
        import anthropic

        options = self.sdk_options(timeout, http_client)
        return anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, **options)

    def call_arguments(
        self, path: str, headers: Mapping[str, str], body: dict[str, Any]
    ) -> dict[str, Any]:
        """The `beta.messages.create` arguments of the body as sent (`messages_arguments`)."""
        return messages_arguments(path, headers, body)

    def fold(self, target: str, skills: Sequence[CliSkill], body: dict[str, Any]) -> FirstTurn:
        """`FirstTurn` with the agent's skill tool and its naming arguments."""
        return FirstTurn(target, skills, skill_tool=self.skill_tool or "", name_keys=self.name_keys)

    async def open_stream(
        self, client: Any, path: str, headers: Mapping[str, str], body: dict[str, Any]
    ) -> AsyncIterable[Any]:
        """`beta.messages.create(stream=True)` with the body as the agent sent it."""
        stream: AsyncIterable[Any] = await client.beta.messages.create(
            **self.call_arguments(path, headers, body)
        )
        return stream

    def classify_failure(self, exc: BaseException) -> Failure | None:
        """The anthropic SDK's failures, as the anthropic backend classifies them."""
        return classify_failure(exc)

    def describe_failure(self, exc: BaseException) -> str:
        """An API error with its HTTP status, as the anthropic backend says it."""
        return _describe(exc)

    def price(
        self, model: str, usage: CallUsage, *, batch: bool = False
    ) -> tuple[float, str | None]:
        """The Anthropic price table's (Message Batches at half price)."""
        return price(model, usage, batch=batch)
