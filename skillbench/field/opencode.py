"""opencode sessions (`~/.local/share/opencode/opencode.db`, SQLite) as field records.

Measured on opencode 1.18.33 (`opencode run`): one database for every session, read here
read-only (`mode=ro`). Table `session` (id, parent_id, directory, version), `message` (a JSON
`data` with `role`, `parentID` of an assistant message = its user message, `finish`), `part`
(JSON `data`: `{"type":"text","text":…}` of the user's words, `{"type":"tool","tool":"skill",
"state":{"input":{"name":…}}}` of a skill use). A turn is a user message with text in a
session without a parent (a subagent's session is not the user's). It is over when one of its
assistant messages finished with anything but `tool-calls`, a later user message exists, or the
database settled. The listing the model saw is NOT stored, so `offered` is rebuilt from the skill
folders opencode reads (`.opencode/skills`, `.opencode/skill`, `.claude/skills`, `.agents/skills`
walking up from the session's folder to its git root; the user's `~/.config/opencode/skills`,
`~/.claude/skills`, `~/.agents/skills`), every one as `full`, marked `reconstructed`; the built-in
`customize-opencode` is not counted. Incremental by message rowid: the state's `carry` keeps the
highest rowid of a user message already emitted (or skipped), and each session's next index; the
byte offset stays 0 (the database changes in place and in its WAL file).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skillbench.field.importers import ImportOptions, finished, settled
from skillbench.field.reader import FileState
from skillbench.field.reconstructed import ModelCalls, folder_skills, reconstructed_fields
from skillbench.field.records import FieldRecord, ImportCounts, prompt_fields, short_hash

PROJECT_SKILL_DIRS = (".opencode/skills", ".opencode/skill", ".claude/skills", ".agents/skills")
USER_SKILL_DIRS = (".config/opencode/skills", ".claude/skills", ".agents/skills")
SKILL_TOOL = "skill"


def _home_of(path: Path) -> Path:
    """The HOME holding `<home>/.local/share/opencode/<db>`, else the user's own."""
    parents = path.resolve().parents
    if len(parents) > 3 and parents[1].name == "share" and parents[2].name == ".local":
        return parents[3]
    return Path.home()


def _project_roots(directory: Path) -> list[Path]:
    """`directory` and its parents up to the first holding `.git` (else up to the root)."""
    roots: list[Path] = []
    for folder in (directory, *directory.parents):
        roots.append(folder)
        if (folder / ".git").exists():
            break
    return roots


def skill_folders(directory: Path | None, home: Path) -> list[str]:
    """The skills opencode would list in `directory` with `home` (folder names, each once)."""
    roots: list[Path] = []
    if directory is not None:
        roots += [f / sub for f in _project_roots(directory) for sub in PROJECT_SKILL_DIRS]
    roots += [home / sub for sub in USER_SKILL_DIRS]
    return folder_skills(roots)


def _json(text: Any, counts: ImportCounts) -> dict[str, Any]:
    counts.lines += 1
    counts.bytes += len(text) if isinstance(text, str | bytes) else 0
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        counts.malformed_lines += 1
        return {}
    return data


def _iso(millis: Any) -> str | None:
    if not isinstance(millis, int | float):
        return None
    return datetime.fromtimestamp(millis / 1000, UTC).isoformat().replace("+00:00", "Z")


class OpencodeImporter:
    """The opencode database importer."""

    agent = "opencode"

    def default_root(self) -> Path:
        """`$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`)."""
        data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(data) / "opencode"

    def session_files(self, root: Path) -> Iterator[Path]:
        """`<root>/opencode*.db`, sorted (one database holds every session)."""
        yield from sorted(p for p in root.glob("opencode*.db") if p.is_file())

    def read(
        self, path: Path, state: FileState, options: ImportOptions, counts: ImportCounts
    ) -> Iterator[FieldRecord]:
        """The finished turns after the remembered rowid (read-only; state.offset stays 0)."""
        home = _home_of(path)
        done_rowid = int(state.carry.get("rowid") or 0)
        indexes: dict[str, int] = dict(state.carry.get("index") or {})
        wal = path.with_name(path.name + "-wal")
        quiet = settled(path) and (not wal.exists() or settled(wal))
        db = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
        try:
            sessions = {
                row[0]: {"parent": row[1], "directory": row[2], "version": row[3]}
                for row in db.execute("SELECT id, parent_id, directory, version FROM session")
            }
            messages = db.execute(
                "SELECT rowid, id, session_id, time_created, data FROM message "
                "WHERE rowid > ? ORDER BY rowid",
                (done_rowid,),
            ).fetchall()
            users: list[tuple[int, str, str, Any]] = []
            replies: dict[str, list[dict[str, Any]]] = {}
            for rowid, message_id, session_id, created, data in messages:
                message = _json(data, counts)
                if message.get("role") == "user":
                    users.append((rowid, message_id, session_id, created))
                elif message.get("role") == "assistant":
                    parent = str(message.get("parentID") or "")
                    replies.setdefault(parent, []).append({"id": message_id, **message})
            per_session: dict[str, list[FieldRecord]] = {}
            stop_rowid = None
            for n, (rowid, message_id, session_id, created) in enumerate(users):
                session = sessions.get(session_id)
                later = any(u[2] == session_id for u in users[n + 1 :])
                answers = replies.get(message_id, [])
                over = (
                    later
                    or quiet
                    or any(a.get("finish") not in (None, "tool-calls") for a in answers)
                )
                if not over:
                    stop_rowid = rowid if stop_rowid is None else stop_rowid
                    continue
                if stop_rowid is not None or session is None or session["parent"]:
                    if stop_rowid is None:
                        done_rowid = rowid
                    continue
                record = self._record(
                    db, message_id, session_id, session, created, answers, home, options,
                    indexes, counts,
                )  # fmt: skip
                if stop_rowid is None:
                    done_rowid = rowid
                if record is not None:
                    per_session.setdefault(session_id, []).append(record)
        finally:
            db.close()
        state.offset, state.carry = 0, {"rowid": done_rowid, "index": indexes}
        for turns in per_session.values():
            yield from finished(turns, options, counts)

    def _record(
        self,
        db: sqlite3.Connection,
        message_id: str,
        session_id: str,
        session: Mapping[str, Any],
        created: Any,
        answers: list[dict[str, Any]],
        home: Path,
        options: ImportOptions,
        indexes: dict[str, int],
        counts: ImportCounts,
    ) -> FieldRecord | None:
        texts = [
            str(part.get("text"))
            for (data,) in db.execute(
                "SELECT data FROM part WHERE message_id = ? ORDER BY rowid", (message_id,)
            )
            if (part := _json(data, counts)).get("type") == "text"
            and isinstance(part.get("text"), str)
            and not part.get("synthetic")
        ]
        text = "\n".join(texts)
        if not text.strip():
            return None
        made = ModelCalls()
        answer_ids = [a["id"] for a in answers]
        marks = ",".join("?" * len(answer_ids))
        rows = db.execute(
            f"SELECT data FROM part WHERE message_id IN ({marks}) ORDER BY rowid",
            answer_ids,
        ).fetchall()
        for (data,) in rows:
            part = _json(data, counts)
            if part.get("type") != "tool":
                continue
            name = str(part.get("tool") or "")
            skill = None
            if name == SKILL_TOOL:
                args = (part.get("state") or {}).get("input") or {}
                skill = str(args.get("name") or "") or None if isinstance(args, Mapping) else None
            made.add(name, skill)
        directory = str(session.get("directory") or "")
        index = indexes.get(session_id, 0)
        indexes[session_id] = index + 1
        offered = skill_folders(Path(directory) if directory else None, home)
        return FieldRecord(
            agent=self.agent,
            agent_version=str(session.get("version") or "") or None,
            session=short_hash(session_id),
            project=short_hash(directory),
            turn=message_id,
            index=index,
            time=_iso(created),
            **prompt_fields(text, with_text=options.with_text),
            **reconstructed_fields(offered, made),
        )


OPENCODE_IMPORTER = OpencodeImporter()
