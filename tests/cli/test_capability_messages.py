"""A refusal that says which backends can do something lists them from their specs, not from a
list written into the message (issue 37): `--harness` names every backend with harnesses (codex's
replay/session too, which the old "anthropic only" left out), `--cli-mode` the harness that takes
it, `--cluster` the session backends, and a core install without the default's extra every
backend it can run."""

from __future__ import annotations

import pytest

from skillbench.cli import common
from skillbench.errors import InputError


def test_harness_names_every_backend_with_harnesses() -> None:
    with pytest.raises(InputError) as refused:
        common.check_harness("replay", "gemini")
    assert refused.value.path == "--harness"
    assert "--backend anthropic or codex only" in str(refused.value)


def test_cli_mode_names_the_harness_that_takes_it() -> None:
    with pytest.raises(InputError) as refused:
        common.check_cli_mode("print", "codex", None)
    assert refused.value.path == "--cli-mode"
    message = str(refused.value)
    assert "--backend anthropic (its replay harness) and --backend claude-code only" in message


def test_a_core_install_is_told_every_backend_it_can_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import skillbench.extras

    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    monkeypatch.setattr(skillbench.extras, "missing_package", lambda extra: "onnxruntime")
    with pytest.raises(InputError) as refused:
        common.check_default_backend(None)
    said = str(refused.value)
    for named in ("anthropic (ANTHROPIC_API_KEY)", "claude-code (the claude CLI)", "lexical ("):
        assert f"--backend {named}" in said
    assert "--backend codex" not in said  # it needs the agents extra
