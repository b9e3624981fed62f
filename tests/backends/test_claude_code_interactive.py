"""The claude-code backend's interactive judge against a fake interactive CLI
(tests/fake_claude_interactive/claude): a pty, the seeded config, the transcript followed.

The fake checks how it was started (a terminal, `--permission-mode dontAsk`, `--session-id`,
the query after `--`, the first-run dialogs answered, the skill installed) and fails loudly
(exit 97), so every "error is None" below also asserts the judge started it right.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_claude_code import AFTER_TURNS, SESSION_FIELDS

from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.interactive_session import (
    InteractiveClaudeCodeJudge,
    claude_code_judge,
)
from skillbench.backends.claude_cli.transcript import TranscriptParser

FAKE = Path(__file__).resolve().parents[1] / "fake_claude_interactive" / "claude"
TARGET = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
CATALOG = (SkillEntry("csv-cleaner", "Use when cleaning CSV tables.", "# CSV\n"),)
QUERY = "--merge these two PDFs"  # a query that looks like an option stays the prompt


@pytest.fixture
def record(tmp_path: Path) -> Path:
    folder = tmp_path / "calls"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key in the caller's environment (the CLI gets the forwarder's dummy)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-SECRET-0123456789")


def judge(record: Path, scenario: str, **options: Any) -> InteractiveClaudeCodeJudge:
    env = {"FAKE_CLAUDE_SCENARIO": scenario, "FAKE_CLAUDE_RECORD": str(record)}
    made = claude_code_judge(
        claude_bin=FAKE, env=env, timeout=options.pop("timeout", 20), **options
    )
    assert isinstance(made, InteractiveClaudeCodeJudge)
    return made


async def outcome_of(record: Path, scenario: str, **options: Any) -> Any:
    j = judge(record, scenario, **options)
    try:
        return await j.judge(TriggerRequest(TARGET, CATALOG, QUERY, 0))
    finally:
        await j.aclose()


def gone(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(") ")[1].startswith("Z")


async def test_the_targets_skill_call_is_a_trigger_and_the_session_is_killed(
    record: Path,
) -> None:
    outcome = await outcome_of(record, "skill_first")
    assert outcome.error is None, outcome.detail
    assert outcome.triggered is True and outcome.fired == "pdf-tools"
    assert outcome.detail["ended_early"] is True and outcome.detail["cli_mode"] == "interactive"
    assert outcome.detail["skills_available"] == ["csv-cleaner", "pdf-tools"]
    assert outcome.detail["cli_version"] == "2.1.197-fake"
    assert outcome.usage.input_tokens == 1000 and outcome.usage.output_tokens == 30
    assert gone(int((record / "pid").read_text()))  # the waiting CLI did not outlive the run
    argv = json.loads((record / "argv.json").read_text())
    assert argv[-2:] == ["--", QUERY]


async def test_a_listing_written_after_the_skill_call_still_reaches_the_outcome(
    record: Path,
) -> None:
    """Under load the real 2.1.197 wrote a turn's skill listing after its Skill call (seen in
    the suite): the decided run waits a moment for it, and reads nothing else."""
    outcome = await outcome_of(record, "listing_late")
    assert outcome.error is None and outcome.triggered is True
    assert outcome.detail["skills_available"] == ["csv-cleaner", "pdf-tools"]
    assert outcome.usage.input_tokens == 1000  # the one reply, nothing read past the decision


async def test_an_outcome_records_the_print_modes_session_fields_in_order(record: Path) -> None:
    """The detail an interactive run records (and caches), key for key and in order: its mode,
    the session fields print mode records around the transcript's turn fields, its cost."""
    turns = ["num_turns", "duration_ms", "turn_ended", "max_turns_reached"]
    shared = ["cli_mode", *SESSION_FIELDS, *turns, *AFTER_TURNS, "ended_early", "cost_known"]
    fired = await outcome_of(record, "skill_first", keep_workdirs=True)
    assert fired.error is None and list(fired.detail) == [*shared, "workdir"]
    failed = await outcome_of(record, "api_error")
    assert failed.error is not None and list(failed.detail) == [*shared, "screen_tail"]


async def test_a_read_of_the_targets_skill_md_is_a_trigger(record: Path) -> None:
    outcome = await outcome_of(record, "read_skill_md")
    assert outcome.error is None and outcome.triggered is True


async def test_a_turn_that_ends_with_text_is_no_trigger(record: Path) -> None:
    outcome = await outcome_of(record, "text")
    assert outcome.error is None, outcome.detail
    assert outcome.triggered is False and outcome.fired is None
    assert outcome.detail["turn_ended"] is True and outcome.detail["duration_ms"] == 1234
    # one reply written as two content-block lines: its usage is counted once
    assert outcome.detail["num_turns"] == 1 and outcome.usage.input_tokens == 1000


async def test_another_skill_is_recorded_as_fired(record: Path) -> None:
    outcome = await outcome_of(record, "other_skill")
    assert outcome.error is None
    assert outcome.triggered is False and outcome.fired == "csv-cleaner"


async def test_without_an_early_stop_the_turn_is_run_to_its_end(record: Path) -> None:
    outcome = await outcome_of(record, "skill_then_end", stop_on_trigger=False)
    assert outcome.error is None and outcome.triggered is True
    assert outcome.detail["ended_early"] is False and outcome.detail["turn_ended"] is True
    assert outcome.usage.input_tokens == 2000  # both replies


@pytest.mark.parametrize(
    ("scenario", "options", "error"),
    [
        ("hang", {"timeout": 1.5}, "timeout: the turn did not end within 1.5 s"),
        ("exit", {}, "the interactive CLI ended (code 3) before its turn did"),
        ("api_error", {}, "API error: API Error: 529 Overloaded"),
        ("bash_loop", {"max_turns": 2}, "error_max_turns: 2 replies without any skill called"),
    ],
)
async def test_errors_are_error_outcomes_never_misses(
    record: Path, scenario: str, options: dict[str, Any], error: str
) -> None:
    outcome = await outcome_of(record, scenario, **options)
    assert outcome.triggered is False and outcome.fired is None
    assert outcome.error is not None and outcome.error.startswith(error), outcome.error
    if scenario == "exit":
        assert "crashed" in outcome.error  # what the terminal showed
    if scenario == "bash_loop":  # the target's call after the turn limit is never read
        assert outcome.detail["skills_invoked"] == []


async def test_the_turn_limit_after_another_skill_is_a_valid_outcome(record: Path) -> None:
    outcome = await outcome_of(record, "other_then_target", max_turns=2)
    assert outcome.error is None
    assert outcome.triggered is False and outcome.fired == "csv-cleaner"
    assert outcome.detail["max_turns_reached"] is True


async def test_a_cli_failing_its_start_checks_shows_why(record: Path) -> None:
    outcome = await outcome_of(record, "skill_first", extra_args=["--permission-mode", "default"])
    assert outcome.error is not None and "a permission prompt could wait" in outcome.error


async def test_no_key_is_an_error_at_once(record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a key the interactive CLI would sit at its login screen until the timeout."""
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    outcome = await outcome_of(record, "skill_first")
    assert outcome.error is not None and outcome.error.startswith("authentication_failed")
    assert not (record / "pid").exists()  # no CLI was started


def test_a_transcript_reply_past_the_turn_limit_is_not_read() -> None:
    parser = TranscriptParser(max_turns=1)
    for number in (1, 2):
        call = {"type": "tool_use", "id": f"t{number}", "name": "Skill", "input": {"skill": "x"}}
        message = {"id": f"m{number}", "content": [call], "usage": {"input_tokens": 5}}
        parser.feed(json.dumps({"type": "assistant", "message": message, "sessionId": "s"}))
    assert parser.over_turns and parser.done and parser.turns == 1
    assert [t.id for t in parser.session.tool_uses] == ["t1"]
    assert parser.session.stream_usage.input_tokens == 5
