"""`skillbench field import opencode` on the SQLite database the real opencode CLI wrote
(conftest.py): read read-only, the listing rebuilt from the skill folders (`reconstructed`), each
`skill` tool part equal to what the fake decided, and a second import reading nothing again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from field_sessions import SKILLS, OpencodeDb

from skillbench.cli import main
from skillbench.field.load import field_records
from skillbench.field.records import text_hash


def _import(db: OpencodeDb, out: Path) -> int:
    return main(["field", "import", "opencode", "--projects", str(db.root), "--out", str(out)])


def test_opencode_turns_equal_what_the_fake_decided(
    opencode_db: OpencodeDb, tmp_path: Path
) -> None:
    out = tmp_path / "field.jsonl"
    assert _import(opencode_db, out) == 0
    records = {r.prompt_sha256: r for r in field_records(out)}
    assert len(records) == len(opencode_db.runs) == 3
    for run in opencode_db.runs:
        record = records[text_hash(run.query)]
        assert record.agent == "opencode" and record.agent_version == "1.18.33"
        assert record.offered_source == "reconstructed"
        assert set(record.offered_map()) == set(SKILLS)
        assert record.invoked_by("model") == ([run.read] if run.read else []), run.query
        assert record.first_skill == run.read
        assert record.first_tool == ("skill" if run.read else None)
    assert sum(r.read is not None for r in opencode_db.runs) == 2
    assert len({r.session for r in records.values()}) == opencode_db.sessions == 2
    assert sorted(r.index for r in records.values()) == [0, 0, 1]


def test_second_import_reads_only_new_turns(opencode_db: OpencodeDb, tmp_path: Path) -> None:
    out = tmp_path / "field.jsonl"
    assert _import(opencode_db, out) == 0
    first = out.read_text()
    assert _import(opencode_db, out) == 0
    assert out.read_text() == first


def test_database_is_opened_read_only(opencode_db: OpencodeDb, tmp_path: Path) -> None:
    db = opencode_db.root / "opencode.db"
    before = {p.name: p.read_bytes() for p in opencode_db.root.glob("opencode.db*")}
    assert _import(opencode_db, tmp_path / "field.jsonl") == 0
    assert {p.name: p.read_bytes() for p in opencode_db.root.glob("opencode.db*")} == before
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        assert con.execute("SELECT count(*) FROM session").fetchone() == (2,)


def _copy(db: OpencodeDb, tmp_path: Path) -> Path:
    """The database (WAL folded in) copied under an isolated HOME of the same layout."""
    root = tmp_path / "home" / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    with sqlite3.connect(f"file:{db.root / 'opencode.db'}?mode=ro", uri=True) as source:
        target = sqlite3.connect(root / "opencode.db")
        source.backup(target)
        target.close()
    return root


def _add_turn(root: Path, session: str, text: str, *, finished: bool) -> None:
    con = sqlite3.connect(root / "opencode.db")
    with con:
        user, reply = f"msg_user_{text}", f"msg_reply_{text}"
        con.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, 1, 1, ?)", (user, session, '{"role":"user"}'),
        )  # fmt: skip
        con.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, ?, 1, 1, ?)",
            (f"prt_{text}", user, session, '{"type":"text","text":"' + text + '"}'),
        )
        if finished:
            data = '{"role":"assistant","parentID":"' + user + '","finish":"stop"}'
            con.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) "
                "VALUES (?, ?, 2, 2, ?)", (reply, session, data),
            )  # fmt: skip
    con.close()


def test_new_turns_only_and_an_unfinished_one_held(opencode_db: OpencodeDb, tmp_path: Path) -> None:
    """A second import reads only the turn added since (by rowid); a turn without a finished
    reply in a database written just now is held until it ends."""
    root = _copy(opencode_db, tmp_path)
    out = tmp_path / "field.jsonl"
    args = ["field", "import", "opencode", "--projects", str(root), "--out", str(out)]
    assert main(args) == 0
    assert len(list(field_records(out))) == 3
    with sqlite3.connect(root / "opencode.db") as con:
        session = con.execute("SELECT id FROM session ORDER BY rowid LIMIT 1").fetchone()[0]
    _add_turn(root, session, "one more thing", finished=True)
    _add_turn(root, session, "still running", finished=False)
    assert main(args) == 0
    texts = [r.prompt_sha256 for r in field_records(out)]
    assert texts[3:] == [text_hash("one more thing")]
    _add_turn(root, session, "after it", finished=True)  # a later turn ends the held one
    assert main(args) == 0
    added = [r.prompt_sha256 for r in field_records(out)][4:]
    assert added == [text_hash("still running"), text_hash("after it")]
    assert [r.index for r in field_records(out)][3:] == [2, 3, 4]
