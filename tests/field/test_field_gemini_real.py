"""`skillbench field import gemini` on chats the real Gemini CLI wrote (conftest.py): the
listing is rebuilt from the skill folders (marked `reconstructed`), each `activate_skill` equals
what the fake decided."""

from __future__ import annotations

from pathlib import Path

from field_sessions import SKILLS, GeminiChats

from skillbench.cli import main
from skillbench.field.load import field_records
from skillbench.field.records import text_hash


def test_gemini_turns_equal_what_the_fake_decided(
    gemini_chats: GeminiChats, tmp_path: Path
) -> None:
    out = tmp_path / "field.jsonl"
    args = ["field", "import", "gemini", "--projects", str(gemini_chats.root)]
    assert main([*args, "--out", str(out)]) == 0
    records = {r.prompt_sha256: r for r in field_records(out)}
    assert len(records) == len(gemini_chats.runs) == 3
    for run in gemini_chats.runs:
        record = records[text_hash(run.query)]
        assert record.agent == "gemini" and record.offered_source == "reconstructed"
        assert set(record.offered_map()) == set(SKILLS)
        assert record.invoked_by("model") == ([run.read] if run.read else []), run.query
        assert record.first_skill == run.read
    assert sum(r.read is not None for r in gemini_chats.runs) == 2
