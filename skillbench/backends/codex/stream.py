"""Codex's first move, folded from a streamed Responses reply (events as plain dicts).

Codex has no skill tool: the model opens a skill by reading its SKILL.md with a tool. So the first
completed tool call (`function_call`, `custom_tool_call` such as the `exec` JavaScript cell,
`local_shell_call`) decides: when it reads a listed skill's SKILL.md (`reads.opened`: content
shown, not a mere `ls` or `test -f`; a peek before turning to another skill counts for the other),
it invokes that skill (the target or another, Codex's built-in `.system` skills included);
otherwise it is another tool first (undecided). A message before any call is a
preamble and decides nothing; a reply that completes with messages only is a text answer (no
trigger). `response.incomplete`, `response.failed`, an `error` event or a refusal is a broken
answer with its kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillbench.backends.agent_skills import resolve_skill
from skillbench.backends.codex.listing import ListedSkill
from skillbench.backends.codex.reads import opened
from skillbench.backends.replay.move import ERROR, OTHER_TOOL, CallFold, Move
from skillbench.backends.skill_install import CliSkill

TOOL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call")
_INCOMPLETE = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}


def tool_name(item: Mapping[str, Any]) -> str:
    """The called tool, namespaced when the item says so (`functions.exec`)."""
    name = str(item.get("name") or item.get("type") or "?")
    namespace = item.get("namespace")
    return f"{namespace}.{name}" if isinstance(namespace, str) and namespace else name


class CodexFold(CallFold):
    """Feed Responses stream events (`feed`) until the move is decided, then `finish`."""

    def __init__(
        self, target: str, skills: Sequence[CliSkill], listed: Sequence[ListedSkill]
    ) -> None:
        super().__init__(target, skills)
        self.listed = tuple(listed)
        self.status: str | None = None
        self.usage: dict[str, Any] = {}
        self.refused = False

    def feed(self, event: Mapping[str, Any]) -> bool:
        """Read one event; True once the first move is known."""
        kind = event.get("type")
        if kind == "response.output_item.done" and self.move is None:
            item = event.get("item") or {}
            if item.get("type") in TOOL_ITEMS:
                self.move = self._call(item)
            elif item.get("type") == "message":
                for part in item.get("content") or ():
                    if part.get("type") == "refusal":
                        self.refused = True
                    elif isinstance(part.get("text"), str):
                        self.text.append(part["text"])
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = event.get("response") or {}
            self.status = str(response.get("status") or kind.rsplit(".", 1)[-1])
            self.usage = dict(response.get("usage") or {})
            if kind != "response.completed" and self.move is None:
                details = response.get("incomplete_details") or {}
                error_kind = _INCOMPLETE.get(str(details.get("reason")), "incomplete")
                self.move = Move(
                    ERROR, error_kind=error_kind if kind.endswith("incomplete") else "failed"
                )
        elif kind == "error" and self.move is None:
            self.status = "error"
            self.move = Move(ERROR, error_kind="failed")
        return self.move is not None

    def _call(self, item: Mapping[str, Any]) -> Move:
        name = tool_name(item)
        read = opened(item, self.listed)
        if read is None:
            return Move(OTHER_TOOL, tool=name)
        called = read.folder if any(s.name == read.folder for s in self.skills) else read.name
        kind, fired = resolve_skill(called, self.target, self.skills)
        return Move(kind, fired=fired, tool=name)

    def finish(self) -> Move:
        """The move with usage and status (text or a broken answer when no call came: a
        refusal, or a reply that did not complete)."""
        broken = "refusal" if self.refused else None
        if broken is None and self.status != "completed":
            broken = "incomplete"
        usage = self.usage
        cached = int((usage.get("input_tokens_details") or {}).get("cached_tokens") or 0)
        prompt, output = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
        return self.settle(broken, self.status, prompt, cached, output)
