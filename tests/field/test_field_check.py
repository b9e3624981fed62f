"""`skillbench field check` on a field file imported `--with-text` from transcripts the real
Claude Code CLI wrote (conftest.py), replayed through the anthropic backend's minimal harness
against the loopback mock Messages API (tests/e2e_mock_api.py): the agreement counts equal what
the two fakes decided; the plan comes first; `--dry-run` and a `--max-cost` below the estimate
make no model call (only the free `count_tokens` may be asked, which this mock refuses); a file without text or listing descriptions is refused naming it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_mock_api import MockAPI
from field_sessions import Transcripts

from skillbench.cli import main
from skillbench.field.load import field_records

pytestmark = pytest.mark.needs_claude


@pytest.fixture
def field_file(claude_transcripts: Transcripts, tmp_path: Path) -> Path:
    out = tmp_path / "text.jsonl"
    args = ["field", "import", "claude", "--projects", str(claude_transcripts.projects)]
    assert main([*args, "--with-text", "--out", str(out)]) == 0
    return out


@pytest.fixture
def api(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[tuple[MockAPI, list[tuple[str, str | None]]]]:
    """The mock, and what it decided, in order: (query, the skill its reply invoked or None)."""
    for name in ("ANTHROPIC_AUTH_TOKEN", "SKILLBENCH_BACKEND", "SKILLBENCH_MAX_COST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-offline")
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    decided: list[tuple[str, str | None]] = []
    with MockAPI() as mock:
        route = mock.router.reply

        def recording(body: dict[str, Any]) -> dict[str, Any]:
            reply = route(body)
            from benchmarks.mock_messages_server import user_text

            used = [b["input"]["skill"] for b in reply["content"] if b.get("type") == "tool_use"]
            decided.append((user_text(body.get("messages") or []), used[0] if used else None))
            return reply

        mock.router.reply = recording  # type: ignore[method-assign]
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        yield mock, decided


def check_args(field_file: Path, *extra: str) -> list[str]:
    return ["field", "check", str(field_file), "--backend", "anthropic", "--harness", "minimal",
            "--model", "claude-haiku-4-5", *extra]  # fmt: skip


def test_agreement_counts_equal_what_the_fakes_decided(
    field_file: Path,
    api: tuple[MockAPI, list[tuple[str, str | None]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    mock, decided = api
    records = [r for r in field_records(field_file) if r.command is None]
    assert any(o.description for r in records for o in r.offered)  # stored with --with-text
    # one call per turn, in order (no cache: a turn repeated with the same listing is asked again)
    assert main(check_args(field_file, "--json", "--no-cache", "--workers", "1")) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert captured.err.index("plan: field check") < captured.err.index("calls")
    assert mock.count("route") == len(records) == result["turns"]
    expected: Counter[str] = Counter()
    assert [q for q, _ in decided] == [r.text for r in records]
    for record, (_, lab) in zip(records, decided, strict=True):  # the field fake vs the lab fake
        field = record.first_skill
        if field is None and lab is None:
            expected["neither"] += 1
        elif field is None:
            expected["lab_only"] += 1
        elif lab is None:
            expected["field_only"] += 1
        else:
            expected["same_skill" if field == lab else "other_skill"] += 1
    for key in ("same_skill", "other_skill", "neither", "lab_only", "field_only"):
        assert result[key] == expected[key], key
    assert result["compared"] == len(records) and result["errors"] == 0
    assert expected["same_skill"] >= 1 and expected["neither"] >= 1
    assert result["kappa"]["n"] == len(records)


def test_dry_run_prints_the_plan_and_makes_no_call(
    field_file: Path,
    api: tuple[MockAPI, list[tuple[str, str | None]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    mock, _ = api
    assert main(check_args(field_file, "--dry-run")) == 0
    out = capsys.readouterr().out
    turns = sum(1 for r in field_records(field_file) if r.command is None)
    assert f"{turns} recorded turns" in out and "$" in out
    assert mock.count("route") == 0


def test_max_cost_below_the_estimate_exits_3_before_any_call(
    field_file: Path, api: tuple[MockAPI, list[tuple[str, str | None]]]
) -> None:
    mock, _ = api
    assert main(check_args(field_file, "--max-cost", "0.0000001")) == 3
    assert mock.count("route") == 0


def test_records_without_text_are_refused_naming_the_file(
    claude_transcripts: Transcripts, api: tuple[MockAPI, list[tuple[str, str | None]]], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    mock, _ = api
    bare = tmp_path / "bare.jsonl"
    args = ["field", "import", "claude", "--projects", str(claude_transcripts.projects)]
    assert main([*args, "--out", str(bare)]) == 0
    assert main(check_args(bare)) == 2
    assert "bare.jsonl" in capsys.readouterr().err
    assert mock.count("route") == 0


def test_records_without_listing_descriptions_are_refused(
    field_file: Path, api: tuple[MockAPI, list[tuple[str, str | None]]], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    mock, _ = api
    old = tmp_path / "old.jsonl"  # a --with-text file of before the descriptions were stored
    lines = [json.loads(line) for line in field_file.read_text().splitlines()]
    for line in lines:
        line["offered"] = [
            {k: v for k, v in o.items() if k != "description"} for o in line["offered"]
        ]
    old.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert any(o["listing"] == "full" for line in lines for o in line["offered"])
    assert main(check_args(old)) == 2
    assert "old.jsonl" in capsys.readouterr().err and mock.count("route") == 0


def test_replay_harness_with_the_real_cli_agrees_as_the_fakes_decided(
    field_file: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The default replay harness: the real pinned CLI captures its request once against the
    loopback fake of tests/mock_anthropic_sse.py, which then routes each replayed turn by the
    listing it is shown; the counts equal the fake's answers to the replayed requests."""
    from mock_anthropic_sse import MockAnthropic

    records = [r for r in field_records(field_file) if r.command is None]
    with MockAnthropic() as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-offline")
        monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "calls.sqlite"))
        monkeypatch.delenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", raising=False)
        args = ["field", "check", str(field_file), "--backend", "anthropic", "--json"]
        assert main([*args, "--no-cache", "--workers", "1"]) == 0
        sent = [r for r in mock.requests if r.path.startswith("/v1/messages") and r.listing]
    result = json.loads(capsys.readouterr().out)
    replayed = sent[-len(records) :]  # the capture's own requests come first
    lab_fired = [r.answered_skill for r in replayed]
    both = sum(
        1 for rec, lab in zip(records, lab_fired, strict=True) if lab and lab == rec.first_skill
    )
    neither = sum(
        1 for rec, lab in zip(records, lab_fired, strict=True) if not lab and not rec.first_skill
    )
    assert result["turns"] == result["compared"] == len(records)
    assert (result["same_skill"], result["neither"]) == (both, neither)
    assert result["same_skill"] >= 1
