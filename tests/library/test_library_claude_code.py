"""`skillbench library --backend claude-code` end to end with the fake `claude` CLI (offline):
each query-run is one CLI session with the WHOLE library installed in its project, the skill it
fires lands in the right cell of the matrix, and a re-run is answered by the call cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.library.discover import load_library

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"
FAKE = ROOT / "tests" / "fake_claude" / "claude"
GREEDY = "changelog-writer"  # the fake fires this skill whatever the query


def test_library_on_claude_code_installs_every_skill_and_fills_the_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "calls"
    record.mkdir()
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE))
    monkeypatch.setenv("FAKE_CLAUDE_SCENARIO", "skill_first")
    monkeypatch.setenv("FAKE_CLAUDE_SKILL", GREEDY)
    monkeypatch.setenv("FAKE_CLAUDE_RECORD", str(record))
    cache, out = tmp_path / "cache.sqlite", tmp_path / "library.json"
    args = ["library", str(SAMPLE), "--backend", "claude-code", "--runs", "1", "--workers", "4"]
    args += ["--cli-mode", "print"]  # the print-mode fake (interactive: the default)
    code = main([*args, "--cache", str(cache), "--out", str(out)])
    assert code == 1  # one skill takes every request: the library check fails
    report = json.loads(out.read_text("utf-8"))

    library = load_library(SAMPLE)
    names = sorted(s.name for s in library.entries)
    sessions = [json.loads(p.read_text()) for p in record.glob("call-*.json")]
    assert len(sessions) == report["calls"] == len(report["queries"]) == len(library.queries)
    assert all(s["skills"] == names for s in sessions)  # every skill installed in every session
    assert {s["prompt"].strip() for s in sessions} == {q.text for q in library.queries}

    per_skill = {s["name"]: s for s in report["per_skill"]}
    assert per_skill[GREEDY]["recall"]["value"] == 1.0
    tested = [n for n, s in per_skill.items() if n != GREEDY and s["recall"]["value"] is not None]
    assert tested and all(per_skill[n]["recall"]["value"] == 0.0 for n in tested)
    stolen = {p["b"] for p in report["pairs"] if p["a"] == GREEDY and p["b_to_a"] > 0}
    assert "release-announcer" in stolen  # the worst pairs name who took whose requests

    for path in record.glob("call-*.json"):
        path.unlink()
    again = tmp_path / "again.json"
    assert main([*args, "--cache", str(cache), "--out", str(again)]) == 1
    second = json.loads(again.read_text("utf-8"))
    assert second["calls"] == 0 and second["cache_hits"] == report["calls"]
    assert not list(record.glob("call-*.json"))  # no session ran
    assert second["matrix"] == report["matrix"]
