"""Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.jsonl`) as field records.

Measured on Gemini CLI 0.61.0 (`gemini -p`, yolo mode): a chat file is one session, JSON lines:
a header (`sessionId`, `projectHash`, `startTime`), `{"$set": …}` updates (the first holds the
`<session_context>` message naming the workspace), then messages; a `gemini` message is written
again with its `toolCalls` once they ran (same `id`: the later line wins). The listing the model
saw is NOT recorded, so `offered` is rebuilt from the skill folders Gemini reads (the workspace's
`.gemini/skills` and `.agents/skills`, the user's `~/.gemini/skills` and `~/.agents/skills`,
HOME being the folder holding `.gemini/`), every one as `full`, and marked `reconstructed`: a
skill added or removed since the session was recorded is not seen. A turn starts at a user text
message; an invocation is `activate_skill {name}` or a `read_file` of a SKILL.md. A turn is over
at a `gemini` message with text and no tool call, or when the file settled. No CLI version is
recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from skillbench.field.importers import ImportOptions, finished, settled
from skillbench.field.reader import FileState, JsonLines
from skillbench.field.reconstructed import ModelCalls, folder_skills, reconstructed_fields
from skillbench.field.records import FieldRecord, ImportCounts, prompt_fields, short_hash

#: The `type` of the model's own messages in a Gemini CLI chat file (a record type, not a backend).
MODEL_MESSAGE = "gemini"

_WORKSPACE = re.compile(r"\*\*Workspace Directories:\*\*\s*\n\s*- ([^\n]+)")
_SKILL_MD = re.compile(r"([^/\\\s'\"]+)[/\\]SKILL\.md")


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [
        str(p["text"])
        for p in (content if isinstance(content, list) else [])
        if isinstance(p, Mapping) and isinstance(p.get("text"), str)
    ]


def skill_folders(workspace: Path | None, home: Path) -> list[str]:
    """The skills Gemini would list for `workspace` with `home` (folder names, each once)."""
    roots = [home / ".gemini" / "skills", home / ".agents" / "skills"]
    if workspace is not None:
        roots = [workspace / ".gemini" / "skills", workspace / ".agents" / "skills", *roots]
    return folder_skills(roots)


class GeminiImporter:
    """The Gemini CLI chat importer."""

    agent = "gemini"

    def default_root(self) -> Path:
        """`~/.gemini/tmp` (one folder per project, `chats/` inside)."""
        return Path.home() / ".gemini" / "tmp"

    def session_files(self, root: Path) -> Iterator[Path]:
        """`<root>/<project>/chats/session-*.jsonl`, sorted."""
        yield from sorted(p for p in root.glob("*/chats/session-*.jsonl") if p.is_file())

    def read(
        self, path: Path, state: FileState, options: ImportOptions, counts: ImportCounts
    ) -> Iterator[FieldRecord]:
        """The finished turns of `path` from `state.offset`."""
        home = path.parents[3].parent  # <home>/.gemini/tmp/<project>/chats/<file>
        carry = dict(state.carry)
        meta: dict[str, Any] = dict(carry.get("meta") or {})
        index = int(carry.get("index") or 0)
        turns: list[FieldRecord] = []
        current: dict[str, Any] | None = None
        lines = JsonLines(path, state.offset, counts)
        for start, line in lines:
            if "sessionId" in line and "type" not in line:
                meta["session"] = line.get("sessionId")
                continue
            messages = (line.get("$set") or {}).get("messages") if "$set" in line else [line]
            for message in messages if isinstance(messages, list) else []:
                if not isinstance(message, Mapping):
                    continue
                texts = _texts(message.get("content"))
                joined = "\n".join(texts)
                if message.get("type") == "user" and joined.lstrip().startswith(
                    "<session_context>"
                ):
                    found = _WORKSPACE.search(joined)
                    meta["workspace"] = found.group(1).strip() if found else None
                elif message.get("type") == "user" and texts:
                    if current is not None:
                        turns.append(self._record(current, meta, home, options))
                        index += 1
                    current = {"start": start, "index": index, "text": joined,
                               "time": message.get("timestamp"), "turn": str(message.get("id")),
                               "calls": {}, "done": False, "carry": {"meta": dict(meta),
                                                                     "index": index}}  # fmt: skip
                elif message.get("type") == MODEL_MESSAGE and current is not None:
                    calls = message.get("toolCalls")
                    if isinstance(calls, list) and calls:
                        current["calls"][str(message.get("id"))] = calls
                    elif joined.strip():
                        current["done"] = True
        if current is not None and (current["done"] or settled(path)):
            turns.append(self._record(current, meta, home, options))
            index += 1
            current = None
        if current is not None:
            state.offset, state.carry = current["start"], current["carry"]
        else:
            state.offset, state.carry = lines.position, {"meta": meta, "index": index}
        yield from finished(turns, options, counts)

    def _record(
        self, turn: dict[str, Any], meta: Mapping[str, Any], home: Path, options: ImportOptions
    ) -> FieldRecord:
        text: str = turn["text"]
        workspace = Path(meta["workspace"]) if meta.get("workspace") else None
        offered = skill_folders(workspace, home)
        made = ModelCalls()
        for calls in turn["calls"].values():
            for call in calls:
                if not isinstance(call, Mapping):
                    continue
                name, args = str(call.get("name") or ""), call.get("args") or {}
                skill = None
                if name == "activate_skill" and isinstance(args, Mapping):
                    skill = str(args.get("name") or "") or None
                elif name == "read_file":
                    found = _SKILL_MD.search(str(args))
                    skill = found.group(1) if found else None
                made.add(name, skill)
        return FieldRecord(
            agent=self.agent,
            agent_version=None,
            session=short_hash(str(meta.get("session") or "")),
            project=short_hash(str(meta.get("workspace") or "")),
            turn=turn["turn"],
            index=turn["index"],
            time=str(turn["time"]) if turn["time"] else None,
            **prompt_fields(text, with_text=options.with_text),
            **reconstructed_fields(offered, made),
        )


GEMINI_IMPORTER = GeminiImporter()
