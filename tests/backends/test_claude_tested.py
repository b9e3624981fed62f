"""The tested Claude Code versions are declared once (`backends/claude_cli/tested.py`): the
Makefile installs those, and reports warn when the CLI in use is newer than all of them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from skillbench.backends.claude_cli import tested
from skillbench.backends.claude_cli.spec import CLAUDE_PACKAGE
from skillbench.backends.claude_cli.tested import (
    CLAUDE_LATEST,
    CLAUDE_PIN,
    cli_warnings,
    is_untested,
    release_key,
    untested_warning,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_makefile_installs_the_declared_versions() -> None:
    rule = "show-pins: ; @echo $(CLAUDE_VERSION) $(CLAUDE_LATEST_VERSION) $(CLAUDE_LATEST_PREFIX)"
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "--eval", rule, "show-pins"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == [CLAUDE_PIN, CLAUDE_LATEST, f".tools/claude-{CLAUDE_LATEST}"]
    assert f"@anthropic-ai/claude-code@{CLAUDE_PIN}" == CLAUDE_PACKAGE


def test_release_numbers_compare_as_numbers() -> None:
    assert release_key("2.1.332 (Claude Code)") == (2, 1, 332)
    assert release_key("2.1.197-fake") == (2, 1, 197)
    assert release_key("unknown") is None and release_key(None) is None
    assert is_untested("2.1.1000")  # not a string comparison: 1000 > 332
    assert not is_untested("2.1.99") and not is_untested(CLAUDE_LATEST)
    assert not is_untested("2.1.197-fake") and not is_untested("nightly")


def test_a_newer_cli_is_named_with_the_newest_tested(monkeypatch: pytest.MonkeyPatch) -> None:
    warning = untested_warning("2.1.400")
    assert warning is not None and warning.startswith("UNTESTED CLI: Claude Code 2.1.400")
    assert f"newer than {CLAUDE_LATEST}" in warning
    assert cli_warnings({"claude_code": "2.1.400"}) == [warning]
    assert cli_warnings({"claude_code": CLAUDE_PIN}) == [] == cli_warnings(None)
    # moving the newest tested version (what scripts/move-claude-pin.sh does) moves the line
    monkeypatch.setattr(tested, "TESTED_CLAUDE_VERSIONS", (CLAUDE_PIN, "2.1.400"))
    assert untested_warning("2.1.400") is None
