"""Gemini's first move, folded from a streamed `generateContent` reply (google-genai chunks as
plain dicts, snake_case as the SDK dumps them).

The first `function_call` part decides: `activate_skill` {name} is a skill invocation (the target,
another skill, or a name Gemini CLI would refuse: a malformed call); a `read_file` whose path is a
listed skill's SKILL.md is one too (default approval mode offers no `activate_skill`, the model
reads the file instead); any other function is another tool first (undecided). Thought parts are
skipped. A reply with no function call is a text answer (no trigger), or, with no text either or a
finish reason other than STOP, a broken answer (`error_kind`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillbench.backends.agent_skills import resolve_skill
from skillbench.backends.replay.move import ERROR, OTHER_TOOL, CallFold, Move
from skillbench.backends.skill_install import CliSkill

ACTIVATE_SKILL = "activate_skill"
READ_FILE = "read_file"
SKILL_FILE = "/SKILL.md"
#: finish reasons that end a reply without its move (google-genai `FinishReason` names).
_FINISH_ERRORS = {
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "BLOCKLIST": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "SPII": "refusal",
    "IMAGE_SAFETY": "refusal",
    "MALFORMED_FUNCTION_CALL": "malformed_tool_call",
    "UNEXPECTED_TOOL_CALL": "malformed_tool_call",
    "TOO_MANY_TOOL_CALLS": "malformed_tool_call",
    "LANGUAGE": "refusal",
    "OTHER": "incomplete",
    "FINISH_REASON_UNSPECIFIED": "incomplete",
}


_locations: dict[int, tuple[Any, dict[str, str]]] = {}


def skill_locations(body: Mapping[str, Any]) -> dict[str, str]:
    """SKILL.md path → skill name, from the `<available_skills>` listing of a request body
    (read once per system instruction object: every query's body of a template shares it)."""
    from skillbench.backends.gemini.listing import parse_listing

    system = body.get("systemInstruction")
    known = _locations.get(id(system))
    if known is not None and known[0] is system:
        return known[1]
    found = {entry.location: entry.name for entry in parse_listing(body) if entry.location}
    if len(_locations) >= 64:
        _locations.clear()
    _locations[id(system)] = (system, found)
    return found


class GeminiFold(CallFold):
    """Feed chunks (`feed`) until it says the move is decided, then `finish`."""

    def __init__(
        self,
        target: str,
        skills: Sequence[CliSkill] = (),
        locations: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(target, skills)
        #: SKILL.md path → skill name (what a `read_file` of that path invokes).
        self.locations = dict(locations or {})
        self.finish_reason: str | None = None
        self.usage: dict[str, int] = {}
        self.saw_candidate = False

    def feed(self, chunk: Mapping[str, Any]) -> bool:
        """Read one chunk; True once the first move is known."""
        usage = chunk.get("usage_metadata")
        if isinstance(usage, Mapping):
            self.usage = {k: int(v) for k, v in usage.items() if isinstance(v, int)}
        for candidate in (chunk.get("candidates") or [])[:1]:
            self.saw_candidate = True
            reason = candidate.get("finish_reason")
            if reason:
                self.finish_reason = str(getattr(reason, "value", reason)).split(".")[-1]
            content = candidate.get("content") or {}
            for part in content.get("parts") or ():
                if self.move is not None:
                    break
                call = part.get("function_call")
                if call:
                    self.move = self._call(call)
                elif part.get("text") and not part.get("thought"):
                    self.text.append(str(part["text"]))
            break
        return self.move is not None

    def _call(self, call: Mapping[str, Any]) -> Move:
        name = str(call.get("name") or "")
        args = call.get("args") or {}
        if name == ACTIVATE_SKILL:
            called = args.get("name") if isinstance(args, Mapping) else None
            if not isinstance(called, str) or not called.strip():
                return Move(ERROR, tool=name, error_kind="malformed_tool_call")
            kind, fired = resolve_skill(called.strip(), self.target, self.skills)
            return Move(kind, fired=fired, tool=name)
        if name == READ_FILE and isinstance(args, Mapping):
            read = self._skill_read(args)
            if read is not None:
                kind, fired = resolve_skill(read, self.target, self.skills)
                return Move(kind, fired=fired, tool=name)
        return Move(OTHER_TOOL, tool=name or "?")

    def _skill_read(self, args: Mapping[str, Any]) -> str | None:
        """The listed skill whose SKILL.md a `read_file` call reads, if any."""
        for value in args.values():
            if not isinstance(value, str) or not value.endswith(SKILL_FILE):
                continue
            if value in self.locations:
                return self.locations[value]
            for location, skill in self.locations.items():  # a relative path
                if location.endswith("/" + value.lstrip("./")):
                    return skill
        return None

    def finish(self) -> Move:
        """The move, usage and stop reason (text or a broken answer when no call came: by its
        finish reason, or a reply that ended without one)."""
        broken = _FINISH_ERRORS.get(self.finish_reason or "")
        if broken is None and (not self.saw_candidate or self.finish_reason is None):
            broken = "incomplete" if "".join(self.text).strip() else "empty"
        usage = self.usage
        output = usage.get("candidates_token_count", 0) + usage.get("thoughts_token_count", 0)
        prompt, cached = (
            usage.get("prompt_token_count", 0),
            usage.get("cached_content_token_count", 0),
        )
        return self.settle(broken, self.finish_reason, prompt, cached, output)


_USAGE = (
    "prompt_token_count",
    "cached_content_token_count",
    "candidates_token_count",
    "thoughts_token_count",
)


def dump(chunk: Any) -> Mapping[str, Any]:
    """What the fold reads of a google-genai chunk, as a snake_case dict (a dict passes
    through): the first candidate's parts and finish reason, and the usage. Read field by
    field: a whole `model_dump` per chunk cost more than the SDK's own parsing."""
    if isinstance(chunk, Mapping):
        return chunk
    data: dict[str, Any] = {}
    usage = getattr(chunk, "usage_metadata", None)
    if usage is not None:
        data["usage_metadata"] = {
            k: v for k in _USAGE if isinstance(v := getattr(usage, k, None), int)
        }
    candidates = getattr(chunk, "candidates", None) or []
    if candidates:
        first = candidates[0]
        reason = getattr(first, "finish_reason", None)
        content = getattr(first, "content", None)
        parts = []
        for part in getattr(content, "parts", None) or []:
            call = getattr(part, "function_call", None)
            parts.append(
                {
                    "text": getattr(part, "text", None),
                    "thought": getattr(part, "thought", None),
                    "function_call": None
                    if call is None
                    else {"name": call.name, "args": call.args or {}},
                }
            )
        data["candidates"] = [
            {
                "finish_reason": getattr(reason, "value", reason),
                "content": {"parts": parts},
            }
        ]
    return data
