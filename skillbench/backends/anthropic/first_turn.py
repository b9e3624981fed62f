"""What the model did first in one streamed reply: the outcome of a replayed trigger run.

Outcomes (`Decision.kind`):
- `target`: the first tool call is `Skill` naming the target skill;
- `other-skill`: the first tool call is `Skill` naming another skill (named in `fired`);
- `disabled-skill`: the first tool call is `Skill` naming a `disable-model-invocation: true`
  skill (named in `fired`): Claude Code answers it with a `tool_use_error` ("cannot be used with
  Skill tool due to disable-model-invocation") and the skill never runs, so it is not a trigger,
  even when it names the target;
- `other-tool`: the first tool call is another tool (named in `tool`) — undecided, not a miss:
  Claude Code might still invoke the skill after it;
- `text`: a complete text answer and no tool call — did not trigger;
- `error`: a broken answer, with `error_kind` one of `empty`, `max_tokens`, `refusal`,
  `malformed_tool_call`, `incomplete` (the stream ended before the reply did).

Names are resolved as Claude Code's Skill tool resolves them (`claude_install.resolve_call`):
the folder name, or the frontmatter `name` of the first skill in listing order that has it; so
a call naming `youtube-downloader` runs the `video-downloader` folder whose frontmatter says so.

The fold consumes stream events (SDK objects or plain dicts) and says when the outcome is decided,
so the caller can close the stream early (`Decision.decided`, then `FirstTurn.close_early`). A
closed stream never delivers the final usage, so its output tokens are then estimated from the
characters received (thinking, text and tool input; `CHARS_PER_TOKEN` per token) and flagged
`output_estimated`: the API bills what it generated before the close, which is at least that.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skillbench.backends.anthropic.routing_prompt import normalise_skill_name
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


@dataclass
class Decision:
    """The first-turn outcome of one reply (see the module docstring)."""

    kind: str | None = None
    fired: str | None = None
    tool: str | None = None
    tool_input: Any = None
    """The other tool's input (parsed JSON, else the raw text), for `skillbench explain`."""
    error_kind: str | None = None
    stop_reason: str | None = None
    text: str = ""
    decided: bool = False
    finished: bool = False
    closed_early: bool = False
    output_estimated: bool = False
    usage: TokenCounts = field(default_factory=TokenCounts)
    """Token counts seen in the stream (every count an event carries: later events repeat or
    raise them)."""


class FirstTurn:
    """Fold a Messages API event stream into a `Decision` for skill `target`; `skills` (the
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
        self.decision = Decision()
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
        return d.decided

    def _take_usage(self, usage: Any) -> None:
        """Take every count the event's usage carries (later events repeat or raise them)."""
        if usage is not None:
            self.decision.usage = TokenCounts.from_wire(usage, self.decision.usage)

    def _block_done(self, block: dict[str, Any]) -> None:
        d = self.decision
        if d.decided:
            return
        if block["type"] == "text":
            self._texts.append(block["text"])
        elif block["type"] in ("tool_use", "server_tool_use"):
            self._tool_done(str(block["name"] or ""), block["json"])

    def _tool_done(self, name: str, raw: str) -> None:
        d = self.decision
        d.decided = True
        if name != self.skill_tool:
            d.kind, d.tool = "other-tool", name or "?"
            try:
                d.tool_input = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError:
                d.tool_input = raw
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
            d.kind, d.error_kind = "error", "malformed_tool_call"
            return
        resolved = resolve_call(skill, self.skills) if self.skills else None
        if resolved is None:
            d.fired = skill
            d.kind = "target" if skill == self.target and not self.skills else "other-skill"
        elif resolved.disabled:
            d.fired, d.kind = resolved.name, "disabled-skill"
        elif resolved.target:
            d.fired, d.kind = self.target, "target"
        else:
            d.fired, d.kind = resolved.name, "other-skill"

    def finish(self) -> Decision:
        """Settle the outcome at the end of the stream (or when it broke off)."""
        d = self.decision
        d.text = " ".join(t.strip() for t in self._texts if t.strip())[:TEXT_KEEP]
        if d.finished or d.decided:
            d.finished = True
            return d
        d.finished = True
        d.decided = True
        open_tool = any(b["type"] in ("tool_use", "server_tool_use") for b in self._blocks.values())
        if d.stop_reason == "refusal":
            d.kind, d.error_kind = "error", "refusal"
        elif d.stop_reason == "max_tokens":
            d.kind, d.error_kind = "error", "max_tokens"
        elif open_tool:
            d.kind, d.error_kind = "error", "malformed_tool_call"
        elif d.stop_reason is None:
            d.kind, d.error_kind = "error", "incomplete"
        elif d.text:
            d.kind = "text"
        else:
            d.kind, d.error_kind = "error", "empty"
        return d
