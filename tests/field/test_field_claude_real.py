"""`skillbench field` on transcripts the real Claude Code CLI wrote (conftest.py): both pinned
versions, each in print and in interactive mode (`claude_run`), the same sessions; the records
equal what the fake API decided, turn by turn, and report / mine / the notebook work on them end
to end."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from claude_field_runs import SESSIONS, SKILLS, Transcripts
from field_sessions import claude_runs

from skillbench.cli import main
from skillbench.field.claude import CLAUDE_IMPORTER
from skillbench.field.importers import ImportOptions
from skillbench.field.load import field_records
from skillbench.field.reader import FileState
from skillbench.field.records import FieldRecord, ImportCounts, short_hash, text_hash
from skillbench.trigger.evalset import load_eval_set

pytestmark = pytest.mark.needs_claude
NEWEST_INTERACTIVE = [run for run in claude_runs() if run.id.endswith("-interactive")][-1:]


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


def test_each_turn_equals_what_the_fake_decided(claude_run: Transcripts, tmp_path: Path) -> None:
    records = _import(claude_run, tmp_path / "field.jsonl")
    # every turn, the last of each session too: an interactive session still open (no closing
    # line) is over at its `turn_duration` line, print mode's at its `last-prompt`
    assert len(records) == len(claude_run.prompts) == sum(len(q) for _, _, q in SESSIONS)
    turns = _by_turn(records)
    index: Counter[str] = Counter()
    for prompt in claude_run.prompts:
        record = turns[(short_hash(prompt.session_id), index[prompt.session_id])]
        index[prompt.session_id] += 1
        assert record.agent == "claude" and record.agent_version == claude_run.version
        assert record.entrypoint == ("cli" if claude_run.mode == "interactive" else "sdk-cli")
        assert record.prompt_sha256 == text_hash(prompt.query) and record.text is None
        assert record.offered_source == "transcript"
        # what the model saw in full is what the fake was sent with a description; the rest of
        # the recorded listing (the project's skills included) by name only
        full = {o.skill for o in record.offered if o.listing == "full"}
        assert full == prompt.listed_full(), prompt.query
        assert set(SKILLS) <= set(record.offered_map()), prompt.query
        # every Skill call the fake answered is an invocation by the model or nested
        decided = [i.skill for i in record.invoked if i.by in ("model", "nested")]
        assert decided == prompt.fired(), prompt.query
        assert record.first_skill == (prompt.fired() or [None])[0]
        assert record.first_tool == ("Skill" if prompt.fired() else None)
        slashed = record.invoked_by("user-slash")
        assert slashed == ([prompt.query[1:]] if prompt.query.startswith("/") else [])
        if slashed:
            assert record.invoked[0].by == "user-slash" and record.command == slashed[0]
    total_fake = Counter(s for p in claude_run.prompts for s in p.fired())
    total_records = Counter(i.skill for r in records for i in r.invoked if i.by != "user-slash")
    assert total_fake == total_records and total_fake["tidy-csv"] >= 1


def test_name_only_listing_and_late_slash(claude_run: Transcripts, tmp_path: Path) -> None:
    turns = _by_turn(_import(claude_run, tmp_path / "field.jsonl"))
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
    claude_run: Transcripts, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "field.jsonl"
    _import(claude_run, out)
    capsys.readouterr()
    assert (
        main(["field", "report", str(out), "--json", "--floor", "3", "--out", str(tmp_path / "r")])
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report == json.loads((tmp_path / "r" / "field_report.json").read_text())
    rows = {row["skill"]: row for row in report["skills"]}
    prompts = claude_run.prompts
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
    assert report["sessions"] == len(SESSIONS) and report["records"] == len(prompts)
    assert any(
        c["winner"] == "tidy-csv" and c["loser"] == "pdf-tools" for c in report["competition"]
    )


def test_mine_writes_rows_trigger_accepts(claude_run: Transcripts, tmp_path: Path) -> None:
    out = tmp_path / "field.jsonl"
    records = _import(claude_run, out, "--with-text")
    assert {r.text for r in records} >= {p.query for p in claude_run.prompts if "/" not in p.query}
    evals = tmp_path / "tidy.json"
    assert main(["field", "mine", str(out), "--skill", "tidy-csv", "--out", str(evals)]) == 0
    rows = json.loads(evals.read_text())["evals"]
    signals = {row["query"]: row["signal"] for row in rows}
    # pdf-tools won, but /tidy-csv came two turns later: the late slash is the stronger signal
    assert signals["merge my pdf documents please"] == "late-slash"
    # another skill (a built-in the fake matched) or none: the version's built-ins decide
    weather = next(p for p in claude_run.prompts if p.query == "what is the weather")
    assert signals[weather.query] == (
        "other-skill-won" if weather.fired() else "offered-not-invoked"
    )
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
    claude_run: Transcripts, tmp_path: Path
) -> None:
    projects = tmp_path / "projects"
    shutil.copytree(claude_run.projects, projects)
    out = tmp_path / "field.jsonl"
    session = next(projects.glob("*/11111111-*.jsonl"))
    lines = session.read_bytes().splitlines(keepends=True)
    cut = _first_turn_over(lines, tmp_path / "live.jsonl")
    session.write_bytes(b"".join(lines[:cut]) + b"{not json\n" + lines[cut][:40])
    first = _import(Transcripts(claude_run.home, projects, []), out)
    state = json.loads((tmp_path / "field.jsonl.state.json").read_text())
    assert state["counts"]["malformed_lines"] == 1 and state["counts"]["truncated_tails"] == 1
    session.write_bytes(b"".join(lines[:cut]) + b"{not json\n" + b"".join(lines[cut:]))
    second = _import(Transcripts(claude_run.home, projects, []), out)
    total = len(claude_run.prompts)
    assert len(first) < len(second) == total  # the rest of session 1, once
    assert len({(r.session, r.turn) for r in second}) == total
    assert [r.index for r in second if r.session == short_hash(SESSIONS[0][0])] == [0, 1, 2, 3]
    # the listing carried over the offset: the later turns still know what was offered
    assert all(r.offered for r in second)
    assert set(SKILLS) <= set(second[-1].offered_map())


def _first_turn_over(lines: list[bytes], scratch: Path) -> int:
    """How many of a session's lines are written when its first turn is over (it is emitted)."""
    for count in range(1, len(lines) + 1):
        scratch.write_bytes(b"".join(lines[:count]))
        if _read(scratch):
            return count
    raise AssertionError("the first turn is never over")


def _read(path: Path) -> list[FieldRecord]:
    return list(CLAUDE_IMPORTER.read(path, FileState(offset=0, inode=0), ImportOptions(),
                                     ImportCounts()))  # fmt: skip


def test_a_turn_is_emitted_only_once_it_is_over(claude_run: Transcripts, tmp_path: Path) -> None:
    """Read at every moment of its writing (each prefix of whole lines, the file just written),
    a session yields only turns equal to those of the whole file: never one cut short. 2.1.332
    writes a `last-prompt` line before the turn's answer, so that line alone does not end it."""
    live = tmp_path / "live.jsonl"
    for session in sorted(claude_run.projects.glob("*/*.jsonl")):
        lines = session.read_bytes().splitlines(keepends=True)
        whole = {
            r.index: r.model_dump(exclude={"followed": {"slash_later"}}) for r in _read(session)
        }
        assert len(whole) == len([p for p in claude_run.prompts if p.session_id == session.stem])
        emitted = 0
        for cut in range(1, len(lines) + 1):
            live.write_bytes(b"".join(lines[:cut]))
            early = _read(live)
            for record in early:
                assert (
                    record.model_dump(exclude={"followed": {"slash_later"}}) == whole[record.index]
                ), f"{session.name}: turn {record.index} emitted after line {cut}"
            assert len(early) >= emitted  # a turn once over stays over
            emitted = len(early)
        assert emitted == len(whole)


def test_lines_written_out_of_order_are_read_in_conversation_order(
    claude_run: Transcripts, tmp_path: Path
) -> None:
    """Under load the interactive CLI (2.1.197) wrote a turn's prompt line and its attachments
    after the turn's Skill call and tool results; each line's `parentUuid` still gives the
    conversation's order. The same lines so moved give the same records."""
    session = next(claude_run.projects.glob("*/11111111-*.jsonl"))
    lines = session.read_bytes().splitlines(keepends=True)
    kinds = [json.loads(line) for line in lines]
    prompt = next(i for i, d in enumerate(kinds) if d.get("type") == "user" and d.get("promptId"))
    skill = next(
        i
        for i, d in enumerate(kinds)
        if d.get("type") == "assistant" and "Skill" in json.dumps(d["message"]["content"])
    )
    if skill < prompt:  # the CLI itself wrote this turn out of order (seen under load)
        assert _read(session)[0].first_skill == "tidy-csv"  # the fake fired tidy-csv
        return
    first = next(i for i, d in enumerate(kinds) if i > prompt and d.get("type") == "assistant")
    last = next(i for i, d in enumerate(kinds) if i > first and d.get("type") == "assistant")
    assert "Skill" in json.dumps(kinds[first]["message"]["content"])  # the fake fired tidy-csv
    block = [line for i, line in enumerate(lines[prompt:first], prompt) if b'"uuid"' in line]
    rest = [line for i, line in enumerate(lines) if not (prompt <= i < first and line in block)]
    at = rest.index(lines[last])
    moved = tmp_path / "projects" / session.parent.name / session.name
    moved.parent.mkdir(parents=True)
    moved.write_bytes(b"".join(rest[:at] + block + rest[at:]))
    assert moved.read_bytes() != session.read_bytes()
    assert [r.model_dump() for r in _read(moved)] == [r.model_dump() for r in _read(session)]


@pytest.mark.slow
@pytest.mark.parametrize("claude_run", NEWEST_INTERACTIVE, indirect=True)
def test_the_field_report_notebook_renders(claude_run: Transcripts, tmp_path: Path) -> None:
    """The notebook on records of the newest CLI's interactive transcripts (the records of every
    version and mode have one shape: the tests above)."""
    from skillbench.reports.runner import run_notebook

    out = tmp_path / "field.jsonl"
    _import(claude_run, out)
    result = run_notebook("field_report", {"field_file": str(out)}, out_root=tmp_path / "reports")
    assert result.ok, result.manifest.error
