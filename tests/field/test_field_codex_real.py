"""`skillbench field import codex` on rollouts the real Codex CLI wrote (conftest.py): the
listing comes from the rollout, and each skill read equals what the fake decided."""

from __future__ import annotations

from pathlib import Path

from field_sessions import SKILLS, CodexRollouts

from skillbench.cli import main
from skillbench.field import importers
from skillbench.field.load import field_records
from skillbench.field.records import text_hash


def test_codex_turns_equal_what_the_fake_decided(
    codex_rollouts: CodexRollouts, tmp_path: Path
) -> None:
    out = tmp_path / "field.jsonl"
    args = ["field", "import", "codex", "--projects", str(codex_rollouts.sessions)]
    assert main([*args, "--out", str(out)]) == 0
    records = {r.prompt_sha256: r for r in field_records(out)}
    assert len(records) == len(codex_rollouts.runs) == 3
    for run in codex_rollouts.runs:
        record = records[text_hash(run.query)]
        assert record.agent == "codex" and record.agent_version == "0.169.0"
        assert record.offered_source == "transcript"
        offered = record.offered_map()
        assert {s: offered[s] for s in SKILLS} == {s: "full" for s in SKILLS}
        assert "skill-creator" in offered  # Codex's built-ins compete too
        expected = [run.read] if run.read else []
        assert record.invoked_by("model") == expected, run.query
        assert record.first_skill == run.read
    assert sum(r.read is not None for r in codex_rollouts.runs) == 2
    assert importers.SETTLED_SECONDS > 0  # turns were emitted on task_complete, not on age
