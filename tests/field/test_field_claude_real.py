"""`skillbench field` on transcripts the real Claude Code CLI wrote (conftest.py): the records
equal what the fake API decided, turn by turn, and report / mine work on them end to end."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from field_sessions import INTERACTIVE, SESSIONS, SKILLS, Transcripts

from skillbench.cli import main
from skillbench.field.load import field_records
from skillbench.field.records import FieldRecord, short_hash, text_hash
from skillbench.trigger.evalset import load_eval_set

pytestmark = pytest.mark.needs_claude


def _import(transcripts: Transcripts, out: Path, *extra: str) -> list[FieldRecord]:
    code = main(
        [
            "field",
            "import",
            "claude",
            "--projects",
            str(transcripts.projects),
            "--out",
            str(out),
            *extra,
        ]
    )
    assert code == 0
    return list(field_records(out))


def _by_turn(records: list[FieldRecord]) -> dict[tuple[str, int], FieldRecord]:
    return {(r.session, r.index): r for r in records}


def test_each_turn_equals_what_the_fake_decided(
    claude_transcripts: Transcripts, tmp_path: Path
) -> None:
    records = _import(claude_transcripts, tmp_path / "field.jsonl")
    assert len(records) == len(claude_transcripts.prompts) == 8
    turns = _by_turn(records)
    index: Counter[str] = Counter()
    for prompt in claude_transcripts.prompts:
        record = turns[(short_hash(prompt.session_id), index[prompt.session_id])]
        index[prompt.session_id] += 1
        assert record.agent == "claude" and record.agent_version == "2.1.197"
        interactive = prompt.session_id == INTERACTIVE[0]
        assert record.entrypoint == ("cli" if interactive else "sdk-cli")
        assert record.prompt_sha256 == text_hash(prompt.query) and record.text is None
        assert record.offered_source == "transcript"
        # what the model saw in full is what the fake was sent with a description
        full = {o.skill for o in record.offered if o.listing == "full"}
        assert full == prompt.listed_full(), prompt.query
        # every Skill call the fake answered is an invocation by the model or nested
        decided = [i.skill for i in record.invoked if i.by in ("model", "nested")]
        assert decided == prompt.fired(), prompt.query
        assert record.first_skill == (prompt.fired() or [None])[0]
        if prompt.query.startswith("/"):
            assert record.invoked[0].by == "user-slash"
            assert record.invoked[0].skill == prompt.query[1:]
    total_fake = Counter(s for p in claude_transcripts.prompts for s in p.fired())
    total_records = Counter(i.skill for r in records for i in r.invoked if i.by != "user-slash")
    assert total_fake == total_records and total_fake["tidy-csv"] >= 1


def test_name_only_listing_and_late_slash(claude_transcripts: Transcripts, tmp_path: Path) -> None:
    turns = _by_turn(_import(claude_transcripts, tmp_path / "field.jsonl"))
    first, small = (short_hash(sid) for sid, _, _ in SESSIONS[:2])
    # the small listing budget shed the project skills' descriptions
    assert turns[(small, 0)].offered_map()["tidy-csv"] == "name-only"
    assert turns[(first, 0)].offered_map()["tidy-csv"] == "full"
    # offered, not invoked, slashed within three turns: a late-slash miss; the turn that
    # invoked it is not one
    assert turns[(first, 0)].followed.slash_later == []
    assert turns[(first, 1)].followed.slash_later == ["tidy-csv"]
    assert turns[(first, 2)].followed.slash_later == ["tidy-csv"]
    assert turns[(small, 0)].followed.slash_later == ["pdf-tools"]
    assert turns[(first, 0)].followed.attributed_turns.get("tidy-csv", 0) >= 1


def test_report_counts_match_the_fake(
    claude_transcripts: Transcripts, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "field.jsonl"
    _import(claude_transcripts, out)
    capsys.readouterr()
    assert (
        main(["field", "report", str(out), "--json", "--floor", "3", "--out", str(tmp_path / "r")])
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report == json.loads((tmp_path / "r" / "field_report.json").read_text())
    rows = {row["skill"]: row for row in report["skills"]}
    prompts = claude_transcripts.prompts
    tidy = rows["tidy-csv"]
    slashed = sum(p.query == "/tidy-csv" for p in prompts)
    assert tidy["slash_turns"] == slashed == 1
    assert tidy["exposed_turns"] == len(prompts) - slashed
    assert tidy["proactive_turns"] == sum(
        "tidy-csv" in p.fired() for p in prompts if not p.query.startswith("/")
    )  # in a slash turn the model's Skill call is nested in the slashed skill
    assert tidy["exposed_name_only"] == 2 and tidy["late_slash_misses"] == 2
    rate = tidy["proactive_rate"]
    assert rate["n"] == tidy["exposed_turns"] and rate["low"] <= rate["value"] <= rate["high"]
    assert report["sessions"] == 4 and report["records"] == 8
    assert any(
        c["winner"] == "tidy-csv" and c["loser"] == "pdf-tools" for c in report["competition"]
    )


def test_mine_writes_rows_trigger_accepts(claude_transcripts: Transcripts, tmp_path: Path) -> None:
    out = tmp_path / "field.jsonl"
    records = _import(claude_transcripts, out, "--with-text")
    assert {r.text for r in records} >= {
        p.query for p in claude_transcripts.prompts if "/" not in p.query
    }
    evals = tmp_path / "tidy.json"
    assert main(["field", "mine", str(out), "--skill", "tidy-csv", "--out", str(evals)]) == 0
    rows = json.loads(evals.read_text())["evals"]
    signals = {row["query"]: row["signal"] for row in rows}
    # pdf-tools won, but /tidy-csv came two turns later: the late slash is the stronger signal
    assert signals["merge my pdf documents please"] == "late-slash"
    assert signals["what is the weather"] == "other-skill-won"  # the fake chose a built-in
    assert signals["hello there friend"] == "late-slash"
    assert all(row["label"] == "to-confirm" and row["session"] for row in rows)
    # the same query proactive in one session, name-only-and-missed in another: one row kept,
    # the positive one; the file loads as a trigger eval set
    assert signals["clean my spreadsheet csv duplicate rows"] == "proactive"
    assert {q.text for q in load_eval_set(evals)} == set(signals)


def test_mine_without_text_is_refused(claude_transcripts: Transcripts, tmp_path: Path) -> None:
    out = tmp_path / "field.jsonl"
    _import(claude_transcripts, out)
    evals = tmp_path / "tidy.json"
    assert main(["field", "mine", str(out), "--skill", "tidy-csv", "--out", str(evals)]) == 2
    assert not evals.exists()


def test_incremental_import_reads_only_what_was_appended(
    claude_transcripts: Transcripts, tmp_path: Path
) -> None:
    projects = tmp_path / "projects"
    shutil.copytree(claude_transcripts.projects, projects)
    out = tmp_path / "field.jsonl"
    session = next(projects.glob("*/11111111-*.jsonl"))
    lines = session.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"last-prompt"' in line) + 1
    session.write_bytes(b"".join(lines[:cut]) + b"{not json\n" + lines[cut][:40])
    first = _import(Transcripts(claude_transcripts.home, projects, []), out)
    state = json.loads((tmp_path / "field.jsonl.state.json").read_text())
    assert state["counts"]["malformed_lines"] == 1 and state["counts"]["truncated_tails"] == 1
    session.write_bytes(b"".join(lines[:cut]) + b"{not json\n" + b"".join(lines[cut:]))
    second = _import(Transcripts(claude_transcripts.home, projects, []), out)
    assert len(second) == len(first) + 3 == 8  # the other three turns of session 1, once
    assert len({(r.session, r.turn) for r in second}) == 8
    assert [r.index for r in second if r.session == short_hash(SESSIONS[0][0])] == [0, 1, 2, 3]
    # the listing carried over the offset: the later turns still know what was offered
    assert all(r.offered for r in second)
    assert set(SKILLS) <= set(second[-1].offered_map())
