"""Every report states the Claude Code CLI mode whose request was measured (issue 32 item 1)."""

from __future__ import annotations

import pytest

from skillbench.backends.anthropic.replay import ReplayJudge
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.improve.verdict import loop_harness
from skillbench.schemas.loop import LoopSettings
from skillbench.schemas.trigger import HarnessInfo
from skillbench.trigger.listing import harness_line
from skillbench.trigger.run import harness_info


@pytest.mark.parametrize(
    ("mode", "phrase"),
    [
        ("interactive", "replay (Claude Code's own request, interactive CLI)"),
        ("print", "replay (Claude Code's own request, print mode, claude -p)"),
    ],
)
def test_the_replay_reports_name_the_cli_mode(mode: str, phrase: str) -> None:
    judge = ReplayJudge(api_key="sk-ant-dummy-offline", claude_bin=REPO_CLAUDE, cli_mode=mode)
    info = harness_info(judge)
    assert info is not None and info.cli_mode == mode
    assert harness_line(info) == phrase
    assert judge.versions()["cli_mode"] == mode


def test_a_bad_cli_mode_is_refused_by_the_judge() -> None:
    from skillbench.errors import InputError

    with pytest.raises(InputError, match="--cli-mode"):
        ReplayJudge(api_key="sk-ant-dummy-offline", claude_bin=REPO_CLAUDE, cli_mode="tty")


def test_the_improve_header_states_the_trigger_harness_and_its_mode() -> None:
    line = harness_line(HarnessInfo(name="claude-code", claude_code_request=True, cli_mode="print"))
    settings = LoopSettings(
        rounds=1, runs=1, threshold=0.5, seed=0, proposer="claude", trigger_harness=line
    )
    assert loop_harness(settings) == (
        "claude-code (Claude Code's own request, print mode, claude -p); proposer claude"
    )
