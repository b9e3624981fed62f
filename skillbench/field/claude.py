"""Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`) as field records.

A turn starts at a user line that carries the user's own words (a string, or text blocks; not a
tool result, not `isMeta`, not a sidechain) under a new `promptId`. What the turn's model saw is
the `skill_listing` attachment state at its first assistant line (an initial listing replaces,
`isInitial: false` adds; `- name: description` is listed in full, a bare `- name` was shed). A
`Skill` tool_use is a model invocation, or a nested one when its line is attributed to a skill
(`attributionSkill`); `<command-name>/x</command-name>` is a user slash when `x` is a listed
skill. Subagent files (`<session>/subagents/`) are not turns of the user and are not read.

The CLI appends lines asynchronously, so a turn is folded only once it is over, its lines put
back in conversation order first (`chain.chain_order`, by `parentUuid`: under load the
interactive CLI wrote a turn's prompt line after the turn's Skill call). A turn is over at a
`system` line of subtype `turn_duration` (the interactive CLI, 2.1.197 and 2.1.332, ends each turn
with one), at a line a `last-prompt` names (`leafUuid`) once the model gave its final answer
(print mode; 2.1.332 may write that `last-prompt` before the answer it names, and 2.1.197's
interactive CLI wrote one naming a line amid a turn's tool calls), at a `last-prompt` naming no
line (older files), or when another prompt follows it. What is not over is held back (where its
first line starts remembered; lines folded past that point remembered too, to be skipped) until
it is, or until the file was not written for `importers.SETTLED_SECONDS`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.field.chain import START, chain_order, is_prompt, prompt_text, slim
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


@dataclass
class _Turn:
    prompt_id: str
    index: int
    line: dict[str, Any]
    text: str
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
        fold = _Fold(state.carry, options)
        done = fold.earlier
        skipped: dict[str, int] = {}
        lines = JsonLines(path, state.offset, counts)
        for start, line in lines:
            if line.get("isSidechain") is True:
                continue
            if line.get("type") == "last-prompt":
                leaf = line.get("leafUuid")
                if isinstance(leaf, str):
                    fold.leaves.add(leaf)
                fold.fold_over(final=not isinstance(leaf, str))  # older files: no leaf, run over
                continue
            uuid = line.get("uuid")
            if not isinstance(uuid, str):
                continue
            if uuid in done:
                skipped[uuid] = start
                continue
            fold.pending.append(slim(start, line))
            if _may_end_a_turn(fold.pending[-1], fold.leaves):
                fold.fold_over(final=False)
        fold.fold_over(final=settled(path))
        held = min((line[START] for line in fold.pending), default=lines.position)
        state.offset = held
        past = [uuid for uuid, start in skipped.items() if start > held]
        state.carry = {**fold.carry(), "folded": fold.folded_past(held) + past}
        yield from finished(fold.turns, options, counts)


def _may_end_a_turn(line: dict[str, Any], leaves: set[str]) -> bool:
    """A slim line after which a turn may be over: a new prompt, `turn_duration`, a final
    answer, or a line a `last-prompt` named."""
    kind, message = line.get("type"), line.get("message") or {}
    return (
        is_prompt(line)
        or (kind == "system" and line.get("subtype") == "turn_duration")
        or (kind == "assistant" and message.get("stop_reason") == "end_turn")
        or line.get("uuid") in leaves
    )


def _turn_is_over(turn: list[dict[str, Any]], leaves: set[str]) -> bool:
    """Whether one turn's slim lines (in conversation order) end it: a `turn_duration` line, or a
    line a `last-prompt` named after the model's final answer (not amid its tool calls)."""
    answered = False
    for line in turn:
        kind = line.get("type")
        if kind == "system" and line.get("subtype") == "turn_duration":
            return True
        if kind == "assistant":
            answered = (line.get("message") or {}).get("stop_reason") == "end_turn"
        if answered and line.get("uuid") in leaves:
            return True
    return False


class _Fold:
    """One file's lines, folded in conversation order into records."""

    def __init__(self, carry: dict[str, Any], options: ImportOptions) -> None:
        self.listing: dict[str, Listing] = dict(carry.get("listing") or {})
        self.described: dict[str, str] = dict(carry.get("descriptions") or {})
        self.index = int(carry.get("index") or 0)
        self.options = options
        self.turns: list[FieldRecord] = []
        self.current: _Turn | None = None
        self.previous: str | None = carry.get("prompt")  # the last turn's prompt id
        self.pending: list[dict[str, Any]] = []  # slim lines read, not folded yet (file order)
        self.leaves: set[str] = set()  # the lines `last-prompt` lines named
        self.earlier = set(carry.get("folded") or ())  # folded by an import before, past its offset
        self.known: set[str] = set(self.earlier)  # lines folded (a late line may follow one)
        self._folded: list[tuple[int, str]] = []  # (start, uuid) folded past a pending line

    def carry(self) -> dict[str, Any]:
        """What the next import of the file starts from."""
        return {"listing": self.listing, "index": self.index, "descriptions": self.described,
                "prompt": self.previous}  # fmt: skip

    def fold_over(self, *, final: bool) -> None:
        """Fold, in conversation order, the pending lines of every turn that is over (all of
        them when `final`); the rest stay pending, lines written before their parent too."""
        attached, detached = chain_order(self.pending, self.known)
        ordered = detached + attached if final else attached  # late lines of turns emitted
        cut = len(ordered) if final else self._over_until(ordered)
        if cut == 0:
            return
        for line in ordered[:cut]:
            self.line(line)
        self._finish()
        folded = {line["uuid"]: line[START] for line in ordered[:cut]}
        self.known = set(folded) | self.earlier  # the last fold's, to keep memory bounded
        self.pending = [line for line in self.pending if line["uuid"] not in folded]
        self.leaves -= folded.keys()
        first = min((line[START] for line in self.pending), default=None)
        self._folded = [
            (start, uuid)
            for start, uuid in [*self._folded, *((s, u) for u, s in folded.items())]
            if first is not None and start > first
        ]

    def _over_until(self, ordered: list[dict[str, Any]]) -> int:
        """How many of `ordered` belong to turns that are over: each turn another prompt follows,
        and the last one too once a line of it ends it (0: none is over yet)."""
        previous, last = self.previous, None
        for i, line in enumerate(ordered):
            prompt_id = self._new_prompt(line, previous)
            if prompt_id is not None:
                last, previous = i, prompt_id
        if last is None:
            return 0
        if _turn_is_over(ordered[last:], self.leaves):
            return len(ordered)
        return last

    def folded_past(self, offset: int) -> list[str]:
        """The folded lines that start past `offset` (read again next time: to be skipped)."""
        return [uuid for start, uuid in self._folded if start > offset]

    def _finish(self) -> None:
        if self.current is not None:
            self.turns.append(self._record(self.current))
            self.index += 1
            self.previous, self.current = self.current.prompt_id, None

    def line(self, line: dict[str, Any]) -> None:
        """Fold one slim line."""
        kind = line.get("type")
        if kind == "attachment":
            described = self.described if self.options.with_text else None
            self._listing_update(line, self.listing, described)
            return
        given = line.get("message")
        message: dict[str, Any] = given if isinstance(given, dict) else {}
        current = self.current
        if kind == "user" and not line.get("isMeta"):
            text = prompt_text(message.get("content"))
            prompt_id = self._new_prompt(line, current.prompt_id if current else self.previous)
            if text is not None and prompt_id is not None:
                self._finish()
                match = _COMMAND.search(text)
                command = match.group(1) if match else None
                if command is not None:  # the prompt as the user typed it
                    arguments = _ARGS.search(text)
                    typed = arguments.group(1).strip() if arguments else ""
                    text = f"/{command} {typed}".rstrip()
                self.current = _Turn(prompt_id, self.index, line, text, command)
            return
        if kind == "assistant" and current is not None:
            self._assistant(current, line, message, self.listing)

    @staticmethod
    def _new_prompt(line: dict[str, Any], previous: str | None) -> str | None:
        """The prompt id of a line that starts a turn after the turn `previous`, else None."""
        if line.get("type") != "user" or line.get("isMeta"):
            return None
        message = line.get("message")
        if not isinstance(message, dict) or prompt_text(message.get("content")) is None:
            return None
        prompt_id = str(line.get("promptId") or line.get("uuid") or line.get(START))
        return prompt_id if prompt_id != previous else None

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

    def _record(self, turn: _Turn) -> FieldRecord:
        options, described = self.options, self.described
        offered = turn.offered if turn.offered is not None else dict(self.listing)
        line = turn.line
        command = turn.command
        invoked = list(turn.invoked)
        if command and command in offered:
            invoked.insert(0, Invocation(skill=command, by="user-slash"))
        return FieldRecord(
            agent=ClaudeImporter.agent,
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
