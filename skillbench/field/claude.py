"""Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`) as field records.

A turn starts at a user line that carries the user's own words (a string, or text blocks; not a
tool result, not `isMeta`, not a sidechain) under a new `promptId`. What the turn's model saw is
the `skill_listing` attachment state at its first assistant line (an initial listing replaces,
`isInitial: false` adds; `- name: description` is listed in full, a bare `- name` was shed). A
`Skill` tool_use is a model invocation, or a nested one when its line is attributed to a skill
(`attributionSkill`); `<command-name>/x</command-name>` is a user slash when `x` is a listed
skill. Subagent files (`<session>/subagents/`) are not turns of the user and are not read.

The last turn of a file is held back (its start offset remembered) until the file shows it is
over: a `last-prompt` line after it, or no write for `importers.SETTLED_SECONDS`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.field.importers import ImportOptions, finished, settled
from skillbench.field.reader import FileState, JsonLines
from skillbench.field.records import (
    FieldRecord,
    Followed,
    ImportCounts,
    Invocation,
    Listing,
    Offered,
    prompt_fields,
    short_hash,
)
from skillbench.redaction import redact

_COMMAND = re.compile(r"<command-name>/?([^<\s]+)</command-name>")
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_LISTED = re.compile(r"^- ([^:\n]+?)(: .*)?$")


def parse_descriptions(content: str) -> dict[str, str]:
    """Skill → description, of the skills a `skill_listing` content lists in full."""
    found: dict[str, str] = {}
    for line in content.splitlines():
        match = _LISTED.match(line)
        if match and match.group(2):
            found[match.group(1).strip()] = match.group(2)[2:].strip()
    return found


def parse_listing(content: str) -> dict[str, Listing]:
    """Skill → full / name-only, from a `skill_listing` attachment's content."""
    listed: dict[str, Listing] = {}
    for line in content.splitlines():
        match = _LISTED.match(line)
        if match:
            listed[match.group(1).strip()] = "full" if match.group(2) else "name-only"
    return listed


def _prompt_text(content: Any) -> str | None:
    """The user's own words of a user line, None for a tool result or nothing."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") == "tool_result":
            return None
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
    return "\n".join(texts) if texts else None


@dataclass
class _Turn:
    start: int
    prompt_id: str
    index: int
    line: dict[str, Any]
    text: str
    listing_before: dict[str, Listing]
    command: str | None = None
    offered: dict[str, Listing] | None = None
    invoked: list[Invocation] = field(default_factory=list)
    first_tool: str | None = None
    first_skill: str | None = None
    attributed: dict[str, int] = field(default_factory=dict)


def _skill_name(value: Any) -> str | None:
    return value.strip().lstrip("/") or None if isinstance(value, str) else None


class ClaudeImporter:
    """The Claude Code transcript importer."""

    agent = "claude"

    def default_root(self) -> Path:
        """`~/.claude/projects` (or `$CLAUDE_CONFIG_DIR/projects`)."""
        base = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(base) if base else Path.home() / ".claude") / "projects"

    def session_files(self, root: Path) -> Iterator[Path]:
        """`<root>/<slug>/<session>.jsonl`, sorted (subagent files are one level deeper)."""
        for project in sorted(p for p in root.iterdir() if p.is_dir()):
            yield from sorted(p for p in project.glob("*.jsonl") if p.is_file())

    def read(
        self, path: Path, state: FileState, options: ImportOptions, counts: ImportCounts
    ) -> Iterator[FieldRecord]:
        """The finished turns of `path` from `state.offset` (see the module's rule)."""
        listing: dict[str, Listing] = dict(state.carry.get("listing") or {})
        described: dict[str, str] = dict(state.carry.get("descriptions") or {})
        index = int(state.carry.get("index") or 0)
        turns: list[FieldRecord] = []
        current: _Turn | None = None
        closed = False
        lines = JsonLines(path, state.offset, counts)
        for start, line in lines:
            if line.get("isSidechain") is True:
                continue
            kind = line.get("type")
            if kind == "last-prompt":
                closed = True
                continue
            if kind == "attachment":
                self._listing_update(line, listing, described if options.with_text else None)
                continue
            given = line.get("message")
            message: dict[str, Any] = given if isinstance(given, dict) else {}
            if kind == "user" and not line.get("isMeta"):
                text = _prompt_text(message.get("content"))
                prompt_id = str(line.get("promptId") or line.get("uuid") or start)
                if text is not None and (current is None or prompt_id != current.prompt_id):
                    if current is not None:
                        turns.append(self._record(current, listing, options, described))
                        index += 1
                    match = _COMMAND.search(text)
                    command = match.group(1) if match else None
                    if command is not None:  # the prompt as the user typed it
                        arguments = _ARGS.search(text)
                        typed = arguments.group(1).strip() if arguments else ""
                        text = f"/{command} {typed}".rstrip()
                    current = _Turn(start, prompt_id, index, line, text, dict(listing), command)
                    closed = False
                continue
            if kind == "assistant" and current is not None:
                self._assistant(current, line, message, listing)
        if current is not None and (closed or settled(path)):
            turns.append(self._record(current, listing, options, described))
            index += 1
            state.offset = lines.position
            state.carry = {"listing": listing, "index": index, "descriptions": described}
        elif current is not None:
            state.offset = current.start
            state.carry = {"listing": current.listing_before, "index": current.index,
                           "descriptions": described}  # fmt: skip
        else:
            state.offset = lines.position
            state.carry = {"listing": listing, "index": index, "descriptions": described}
        yield from finished(turns, options, counts)

    @staticmethod
    def _listing_update(
        line: dict[str, Any], listing: dict[str, Listing], described: dict[str, str] | None
    ) -> None:
        """Apply a `skill_listing` attachment; `described` (--with-text) keeps descriptions."""
        attachment = line.get("attachment")
        if not isinstance(attachment, dict) or attachment.get("type") != "skill_listing":
            return
        content = str(attachment.get("content") or "")
        parsed = parse_listing(content)
        if attachment.get("isInitial") is not False:
            listing.clear()
        listing.update(parsed)
        if described is not None:
            described.update(parse_descriptions(content))

    @staticmethod
    def _assistant(
        turn: _Turn, line: dict[str, Any], message: dict[str, Any], listing: dict[str, Listing]
    ) -> None:
        """Fold one assistant line: the listing seen, attribution, tool calls."""
        if turn.offered is None:
            turn.offered = dict(listing)
        attributed = _skill_name(line.get("attributionSkill"))
        if attributed:
            turn.attributed[attributed] = turn.attributed.get(attributed, 0) + 1
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name = str(block.get("name") or "")
            skill = None
            if name == "Skill":
                given = block.get("input")
                skill = _skill_name(given.get("skill") if isinstance(given, dict) else None)
            if turn.first_tool is None:
                turn.first_tool, turn.first_skill = name, skill
            if skill:
                by = "nested" if attributed else "model"
                turn.invoked.append(Invocation(skill=skill, by=by))

    def _record(
        self,
        turn: _Turn,
        listing: dict[str, Listing],
        options: ImportOptions,
        described: dict[str, str],
    ) -> FieldRecord:
        offered = turn.offered if turn.offered is not None else dict(listing)
        line = turn.line
        command = turn.command
        invoked = list(turn.invoked)
        if command and command in offered:
            invoked.insert(0, Invocation(skill=command, by="user-slash"))
        return FieldRecord(
            agent=self.agent,
            agent_version=str(line["version"]) if line.get("version") else None,
            entrypoint=str(line["entrypoint"]) if line.get("entrypoint") else None,
            session=short_hash(str(line.get("sessionId") or "")),
            project=short_hash(str(line.get("cwd") or "")),
            turn=turn.prompt_id,
            index=turn.index,
            time=str(line["timestamp"]) if line.get("timestamp") else None,
            **prompt_fields(turn.text, with_text=options.with_text),
            command=command,
            offered=[
                Offered(
                    skill=s,
                    listing=how,
                    description=redact(described[s])
                    if options.with_text and how == "full" and s in described
                    else None,
                )
                for s, how in offered.items()
            ],
            offered_source="transcript",
            invoked=invoked,
            first_tool=turn.first_tool,
            first_skill=turn.first_skill,
            followed=Followed(attributed_turns=dict(turn.attributed)),
        )


CLAUDE_IMPORTER = ClaudeImporter()
