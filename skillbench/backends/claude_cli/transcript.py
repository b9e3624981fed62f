"""Parser of the session transcript the interactive Claude Code CLI writes.

The interactive CLI prints to a terminal, not stream-json: what a session does is read from
the transcript the CLI keeps of it, `<config>/projects/<project slug>/<session id>.jsonl`. One
JSON object a line: `user` (the prompt, tool results), `assistant` (one line per content block,
each with its message's id and usage), `attachment` (among them the `skill_listing`), and
`system/turn_duration` once the turn has ended and the CLI waits for the next prompt; other
lines (snapshots, request records) are counted and skipped.

`TranscriptParser` reads it into the same `stream_json.Session` a print-mode stream gives, so
the trigger rule (`session.resolved_invocations`) is the same code. A transcript has no
`result` event: `turn_ended` says the turn is over, `api_errors` holds the API errors the CLI
showed, `turns` counts the model's replies and usage is summed per reply. With `max_turns`,
nothing from a reply beyond it is read (`over_turns`): print mode's `--max-turns` ends the
session there, so a skill called later never counts. A subagent's own transcript (a separate
file in recent versions) is not followed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from skillbench.backends.claude_cli.stream_json import InitEvent, StreamParser, usage_counts
from skillbench.schemas.cost import TokenCounts


class TranscriptParser(StreamParser):
    """Incremental parser of a session transcript: `feed()` one line at a time, read
    `session` (and `turn_ended`, `over_turns`, `api_errors`, `turns`) at any point."""

    def __init__(self, max_turns: int | None = None) -> None:
        super().__init__()
        self.max_turns = max_turns
        self.turn_ended = False
        self.turn_ms: int | None = None
        self.over_turns = False
        self.api_errors: list[str] = []
        self._replies: dict[str, dict[str, int]] = {}  # usage per top-level reply, by id
        self._side: dict[str, dict[str, int]] = {}  # a subagent's replies (sidechain lines)

    @property
    def done(self) -> bool:
        """True once the turn has ended, or a reply beyond `max_turns` began."""
        return self.turn_ended or self.over_turns

    @property
    def turns(self) -> int:
        """The model's replies in the main conversation so far."""
        return len(self._replies)

    def handle(self, event: dict[str, Any]) -> None:
        """Take one transcript line (nothing once a reply beyond `max_turns` began)."""
        if self.over_turns:
            return
        self._note_session(event)
        kind = event.get("type")
        if kind == "attachment":
            self._attachment(event.get("attachment"))
        elif kind == "system" and event.get("subtype") == "turn_duration":
            self.turn_ended = True
            duration = event.get("durationMs")
            self.turn_ms = duration if isinstance(duration, int) else None
        elif kind == "assistant" and not self._reply(event):
            return
        super().handle(event)

    def _note_session(self, event: dict[str, Any]) -> None:
        """The session id, working folder and CLI version, from the first lines naming them."""
        if self.session.init is None:
            session_id = event.get("sessionId")
            if not isinstance(session_id, str):
                return
            self.session.init = InitEvent(session_id=session_id)
        init = self.session.init
        for field, key in (("cwd", "cwd"), ("claude_code_version", "version")):
            value = event.get(key)
            if getattr(init, field) is None and isinstance(value, str):
                setattr(init, field, value)

    def listing_only(self, line: bytes) -> None:
        """Take the skill listing from `line` if it is the listing's attachment, nothing else:
        after the decision, the listing the CLI wrote late (seen under load) still reaches the
        outcome's `skills_available`, and no later move does."""
        try:
            event = json.loads(line)
        except ValueError:
            return
        if isinstance(event, dict) and event.get("type") == "attachment":
            self._attachment(event.get("attachment"))

    @property
    def listed(self) -> bool:
        """Whether the session's skill listing has been read."""
        return self.session.init is not None and bool(self.session.init.skills)

    def _attachment(self, attachment: Any) -> None:
        """The skills the CLI listed (`skill_listing`), the model it runs (`model`)."""
        if not isinstance(attachment, dict) or self.session.init is None:
            return
        init = self.session.init
        kind = attachment.get("type")
        names = attachment.get("names")
        if kind == "skill_listing" and isinstance(names, list) and not init.skills:
            init.skills = [str(name) for name in names]
        identity = attachment.get("identity")
        if kind == "model" and isinstance(identity, dict) and init.model is None:
            model = identity.get("modelId")
            init.model = model if isinstance(model, str) else None

    def _reply(self, event: dict[str, Any]) -> bool:
        """Account one assistant line (its reply's usage, the turn count, an API error); False
        when it belongs to a reply beyond `max_turns` (it is not read)."""
        message = event.get("message")
        if not isinstance(message, dict):
            return True
        if event.get("isApiErrorMessage"):
            texts = [b.get("text") for b in message.get("content") or [] if isinstance(b, dict)]
            self.api_errors.append(" ".join(t for t in texts if isinstance(t, str)).strip())
            return True
        reply_id = str(message.get("id") or f"anon-{len(self._replies) + len(self._side)}")
        replies = self._side if event.get("isSidechain") else self._replies
        limit = self.max_turns if replies is self._replies else None
        if limit is not None and reply_id not in replies and len(replies) >= limit:
            self.over_turns = True
            return False
        replies[reply_id] = usage_counts(message.get("usage"))
        totals = Counter[str]()
        for counts in (*self._replies.values(), *self._side.values()):
            totals.update(counts)
        self.session.stream_usage = TokenCounts.from_wire(totals)
        model = message.get("model")
        if self.session.init is not None and self.session.init.model is None:
            self.session.init.model = model if isinstance(model, str) else None
        return True


class TranscriptTail:
    """The complete lines appended to a session's transcript since the last call; the file is
    found under `projects` once the CLI has created it (`<slug>/<session_id>.jsonl`)."""

    def __init__(self, projects: Path, session_id: str) -> None:
        self.projects = projects
        self.session_id = session_id
        self.path: Path | None = None
        self._offset = 0
        self._partial = b""

    def lines(self) -> list[bytes]:
        """The new complete lines (a line still being written is kept for the next call)."""
        if self.path is None:
            found = sorted(self.projects.glob(f"*/{self.session_id}.jsonl"))
            if not found:
                return []
            self.path = found[0]
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError:
            return []
        self._offset += len(chunk)
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        return complete
