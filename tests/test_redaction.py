"""skillbench.redaction: one redactor, pattern-based, for files, cache rows, terminal and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench import redaction
from skillbench.backends.anthropic import sdk as anthropic
from skillbench.backends.cache import scrub_secrets
from skillbench.backends.claude_cli import session as claude_code
from skillbench.cli import main
from skillbench.io import write_json
from skillbench.reports.manifest import redact as manifest_redact
from skillbench.trigger.run import redact as trigger_redact

KEY = "sk-ant-api03-" + "A1b2C3d4" * 6


@pytest.mark.parametrize(
    "secret",
    [
        KEY,
        "ghp_" + "x" * 36,
        "AKIA" + "ABCDEFGHIJKLMNOP",
        "Bearer abcdefghijklmnopqrstuvwxyz012345",
        "sk-proj-" + "z" * 40,
    ],
)
def test_key_shapes_are_redacted(secret: str) -> None:
    text = redaction.redact(f"before {secret} after")
    assert secret not in text and redaction.REDACTED in text
    assert text.startswith("before ") and text.endswith(" after")


def test_environment_secrets_and_passed_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plain-looking-value-42")
    assert redaction.redact("x plain-looking-value-42 y") == "x [REDACTED] y"
    assert redaction.redact("id hunter2hunter2", ["hunter2hunter2"]) == "id [REDACTED]"
    assert redaction.redact("short abc", ["abc"]) == "short abc"  # too short to be a secret


def test_every_former_redactor_now_gives_the_same_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    text = f"failed with {KEY}"
    expected = "failed with [REDACTED]"
    assert anthropic.redact(text, KEY) == expected
    assert claude_code.redact(text, [KEY]) == expected
    assert manifest_redact(text) == expected
    assert trigger_redact(text) == expected
    assert scrub_secrets({"a": [text]}) == {"a": [expected]}


def test_nothing_written_as_json_carries_a_key(tmp_path: Path) -> None:
    path = write_json(tmp_path / "r.json", {"model": KEY, "nested": [{"note": f"k={KEY}"}]})
    text = path.read_text()
    assert KEY not in text and json.loads(text)["model"] == "[REDACTED]"


def test_key_shaped_model_option_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trigger", "skill", "--evals", "e.json", "--model", KEY]) == 2
    err = capsys.readouterr().err
    assert "argument --model: looks like an API key" in err and KEY not in err


def test_key_shaped_report_parameter_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "trigger_eval", "-p", "model", KEY]) == 2
    err = capsys.readouterr().err
    assert "-p model: looks like an API key" in err and KEY not in err


def test_a_changed_secret_value_is_picked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_API_KEY", "first-secret-value")
    assert redaction.redact("first-secret-value") == "[REDACTED]"
    monkeypatch.setenv("SOME_API_KEY", "second-secret-value")
    assert redaction.redact("second-secret-value first-secret-value") == (
        "[REDACTED] first-secret-value"
    )


def test_base64_payloads_are_never_altered() -> None:
    import base64
    import random

    rng = random.Random(7)
    blob = base64.b64encode(bytes(rng.randrange(256) for _ in range(300_000))).decode()
    planted = blob[:1000] + "AIza" + "B" * 35 + "AKIA" + "C" * 16 + blob[1000:]
    assert redaction.redact(planted) == planted  # key-like runs inside base64 are data
    assert redaction.redact("key AIza" + "B" * 35 + " end") == "key [REDACTED] end"


def test_bytes_text_is_redacted_and_a_binary_holding_a_secret_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "plainAwsSecretValue/0123456789")
    text = f"key={KEY}\naws=plainAwsSecretValue/0123456789\n".encode()
    assert redaction.redact_bytes(text) == b"key=[REDACTED]\naws=[REDACTED]\n"
    clean = b"\x89PNG\r\n\x1a\n\x00\xff plain bytes"
    assert redaction.redact_bytes(clean) is clean
    assert redaction.redact_bytes(b"\x00\xff" + KEY.encode() + b"\xfe") is None
    assert redaction.redact_bytes(b"\xff" + b"plainAwsSecretValue/0123456789" + b"\xfe") is None
    assert redaction.redact_bytes(b"\xffshort\xfe", ["value-passed-in-1"]) == b"\xffshort\xfe"
    assert redaction.redact_bytes(b"\xffvalue-passed-in-1\xfe", ["value-passed-in-1"]) is None


def test_a_secret_holding_another_secrets_tail_is_redacted_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("MY_TOKEN", "plain-token-" + KEY[-12:])  # shares the key's last 12 chars
    assert redaction.redact(f"t={'plain-token-' + KEY[-12:]}") == "t=[REDACTED]"


def test_a_run_folder_never_holds_a_secret_even_from_an_old_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.backends.base import CallUsage
    from skillbench.behavior.records import RunRecord, read_run_record
    from skillbench.behavior.run_files import ExecutionResult, make_timing, write_run_folder
    from skillbench.schemas.skill_creator import SCMetrics

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    metrics = SCMetrics(
        tool_calls={},
        total_tool_calls=0,
        total_steps=1,
        files_created=[],
        errors_encountered=0,
        output_chars=0,
        transcript_chars=0,
    )
    # as a cache written before outputs were redacted would give it back
    result = ExecutionResult(
        status="ok",
        final_text="done",
        events=[],
        transcript_md="# t\n",
        outputs={"a.md": f"key {KEY}".encode(), "b.bin": b"\xff" + KEY.encode(), "c.md": b"ok"},
        metrics=metrics,
        timing=make_timing(CallUsage(), 1.0, "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"),
        cached=True,
    )
    record = RunRecord(
        case_id="c",
        config="baseline",
        version=None,
        run_number=1,
        prompt="p",
        backend="anthropic",
        model="m",
        status="ok",
        started_at="2026-01-01T00:00:00Z",
        duration_s=1.0,
    )
    run = write_run_folder(tmp_path / "run-1", record, result)
    assert (run / "outputs" / "a.md").read_text() == "key [REDACTED]"
    assert not (run / "outputs" / "b.bin").exists()
    assert (run / "outputs" / "c.md").read_bytes() == b"ok"
    written = read_run_record(run / "run.json")
    assert written.redacted_outputs == ["a.md"] and written.withheld_outputs == ["b.bin"]
    for path in run.rglob("*"):
        assert not (path.is_file() and KEY.encode() in path.read_bytes()), path
    result.outputs, result.redacted_outputs, result.withheld_outputs = {"c.md": b"ok"}, [], []
    plain = write_run_folder(tmp_path / "run-2", record, result)
    assert "redacted_outputs" not in json.loads((plain / "run.json").read_text())  # nothing to say
