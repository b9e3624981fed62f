"""skillbench.redaction: one redactor, pattern-based, for files, cache rows, terminal and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench import redaction
from skillbench.backends import anthropic, claude_code
from skillbench.backends.cache import scrub_secrets
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
