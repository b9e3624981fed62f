"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as field records.

Measured on Codex 0.169.0 (`codex exec`): a rollout is one session. `session_meta` gives the
session id, folder and CLI version; the listing is recorded: the developer message holding
`<skills_instructions>` (read with the codex backend's own parser; a description shown is `full`,
none `name-only`). A turn starts at a user message (not the `<environment_context>` or AGENTS.md
messages Codex adds); a user message that is an injected `<skill>` body is an explicit use
(`user-slash`: the user named the skill). Codex has no skill tool: an implicit use is a tool call
reading a listed SKILL.md (`reads.opened`, the same rule as the codex replay's first move). The
last turn is held until its `task_complete` event, or until the file has settled.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from skillbench.backends.codex.listing import ListedSkill, parse_listing
from skillbench.backends.codex.reads import opened
from skillbench.backends.codex.stream import TOOL_ITEMS, tool_name
from skillbench.field.importers import ImportOptions, finished, settled
from skillbench.field.reader import FileState, JsonLines
from skillbench.field.records import (
    FieldRecord,
    ImportCounts,
    Invocation,
    Offered,
    prompt_fields,
    short_hash,
)

_ADDED = ("<environment_context>", "# AGENTS.md", "<user_instructions>", "<permissions")
_INJECTED = re.compile(r"^\s*<skill>\s*<name>([^<]+)</name>")


def _user_text(payload: Mapping[str, Any]) -> str:
    parts = payload.get("content")
    texts = [
        str(p.get("text"))
        for p in (parts if isinstance(parts, list) else [])
        if isinstance(p, Mapping) and p.get("type") == "input_text"
    ]
    return "\n".join(texts)


class CodexImporter:
    """The Codex rollout importer."""

    agent = "codex"

    def default_root(self) -> Path:
        """`$CODEX_HOME/sessions`, else `~/.codex/sessions`."""
        base = os.environ.get("CODEX_HOME")
        return (Path(base) if base else Path.home() / ".codex") / "sessions"

    def session_files(self, root: Path) -> Iterator[Path]:
        """Every `rollout-*.jsonl` under `root`, sorted."""
        yield from sorted(p for p in root.rglob("rollout-*.jsonl") if p.is_file())

    def read(
        self, path: Path, state: FileState, options: ImportOptions, counts: ImportCounts
    ) -> Iterator[FieldRecord]:
        """The finished turns of `path` from `state.offset`."""
        carry = dict(state.carry)
        listed = [ListedSkill(**s) for s in carry.get("listed") or []]
        meta: dict[str, Any] = dict(carry.get("meta") or {})
        index = int(carry.get("index") or 0)
        turns: list[FieldRecord] = []
        current: dict[str, Any] | None = None
        lines = JsonLines(path, state.offset, counts)
        for start, line in lines:
            payload = line.get("payload")
            if not isinstance(payload, Mapping):
                continue
            kind, item = line.get("type"), payload.get("type")
            if kind == "session_meta":
                meta = {k: payload.get(k) for k in ("id", "cwd", "cli_version")}
            elif kind == "event_msg" and item == "task_complete" and current is not None:
                current["complete"] = True
            elif kind == "response_item" and item == "message":
                role, text = payload.get("role"), _user_text(payload)
                if role == "developer" and "<skills_instructions>" in text:
                    listed = parse_listing({"input": [payload]})
                elif role == "user" and text and not text.lstrip().startswith(_ADDED):
                    injected = _INJECTED.match(text)
                    if injected and current is not None:
                        current["invoked"].append(("user-slash", injected.group(1).strip()))
                        continue
                    if current is not None:
                        turns.append(self._record(current, meta, options))
                        index += 1
                    passthrough = payload.get("internal_chat_message_metadata_passthrough")
                    turn_id = (
                        (passthrough or {}).get("turn_id")
                        if isinstance(passthrough, Mapping)
                        else None
                    )
                    current = {
                        "start": start,
                        "index": index,
                        "text": text,
                        "time": line.get("timestamp"),
                        "turn": str(turn_id or payload.get("id") or start),
                        "listed": listed,
                        "invoked": [],
                        "first_tool": None,
                        "first_skill": None,
                        "complete": False,
                        "carry": {
                            "listed": [asdict(s) for s in listed],
                            "meta": meta,
                            "index": index,
                        },
                    }
            elif kind == "response_item" and item in TOOL_ITEMS and current is not None:
                read = opened(payload, current["listed"])
                if current["first_tool"] is None:
                    current["first_tool"] = tool_name(payload)
                    current["first_skill"] = read.name if read else None
                if read is not None:
                    current["invoked"].append(("model", read.name))
        if current is not None and (current["complete"] or settled(path)):
            turns.append(self._record(current, meta, options))
            index += 1
            current = None
        if current is not None:
            state.offset, state.carry = current["start"], current["carry"]
        else:
            state.offset = lines.position
            state.carry = {"listed": [asdict(s) for s in listed], "meta": meta, "index": index}
        yield from finished(turns, options, counts)

    def _record(
        self, turn: dict[str, Any], meta: Mapping[str, Any], options: ImportOptions
    ) -> FieldRecord:
        text: str = turn["text"]
        seen: list[tuple[str, str]] = []
        for by, skill in turn["invoked"]:
            if (by, skill) not in seen:
                seen.append((by, skill))
        return FieldRecord(
            agent=self.agent,
            agent_version=str(meta["cli_version"]) if meta.get("cli_version") else None,
            session=short_hash(str(meta.get("id") or "")),
            project=short_hash(str(meta.get("cwd") or "")),
            turn=turn["turn"],
            index=turn["index"],
            time=str(turn["time"]) if turn["time"] else None,
            **prompt_fields(text, with_text=options.with_text),
            offered=[
                Offered(skill=s.name, listing="full" if s.description else "name-only")
                for s in turn["listed"]
            ],
            offered_source="transcript",
            invoked=[Invocation(skill=skill, by=by) for by, skill in seen],
            first_tool=turn["first_tool"],
            first_skill=turn["first_skill"],
        )


CODEX_IMPORTER = CodexImporter()
