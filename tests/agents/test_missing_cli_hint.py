"""A missing agent CLI names, in this order, what a pip user can run (`npm install -g` of the
pinned package), then `make <target>` (a clone of skillbench only), then the variable that names a
binary: the same wording for every agent (`backends.spec.cli_install_hint`); through the CLI:
`test_gemini_codex_backends.test_missing_cli_is_exit_2_naming_npm_then_make_agents`."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.backends.claude_cli.session import resolve_claude_bin
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.opencode.agent import OPENCODE
from skillbench.errors import BackendError

AGENTS = {
    "gemini": (GEMINI, "npm install -g @google/gemini-cli@0.61.0"),
    "codex": (CODEX, "npm install -g @openai/codex@0.169.0"),
    "opencode": (OPENCODE, "npm install -g opencode-ai@1.18.33"),
}


def _in_order(message: str, *parts: str) -> None:
    places = [message.find(part) for part in parts]
    assert -1 not in places, (parts, message)
    assert places == sorted(places), message


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_a_missing_agent_cli_names_npm_first_then_make_then_the_variable(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    agent, npm = AGENTS[name]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(agent.bin_variable, str(tmp_path / f"no-such-{name}"))
    with pytest.raises(BackendError) as caught:
        agent.locate()
    _in_order(str(caught.value), npm, "make agents", agent.bin_variable)


def test_a_missing_claude_cli_names_npm_first_then_make_then_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SKILLBENCH_CLAUDE_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(
        "skillbench.backends.claude_cli.session.REPO_CLAUDE", tmp_path / "no-such-claude"
    )
    with pytest.raises(BackendError) as caught:
        resolve_claude_bin()
    npm = "npm install -g @anthropic-ai/claude-code@2.1.197"
    _in_order(str(caught.value), npm, "make claude", "SKILLBENCH_CLAUDE_BIN")
