"""`--as-user [HOME]` on every command that runs trigger evals: refused (exit 2) where no
replay harness captures or HOME is no folder, and handed to the replay judge (only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillbench.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
SKILL = str(ROOT / "data" / "skills" / "csv-cleanup")
EVALS = str(ROOT / "data" / "evals" / "csv-cleanup.trigger.json")
COMMANDS = [
    ["trigger", SKILL, "--evals", EVALS],
    ["improve", SKILL, "--evals", EVALS],
    ["library", str(ROOT / "data" / "library")],
    ["gate", SKILL, "--evals", EVALS],
    ["explain", SKILL, "--evals", EVALS, "--query", "clean this csv"],
]


@pytest.mark.parametrize("argv", COMMANDS)
@pytest.mark.parametrize("backend", ["claude-code", "lexical"])
def test_as_user_is_refused_where_no_replay_harness_captures(
    argv: list[str], backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--backend", backend, "--as-user", str(tmp_path)]) == 2
    assert "--as-user" in capsys.readouterr().err


@pytest.mark.parametrize("argv", COMMANDS)
def test_a_home_that_is_no_folder_is_exit_2(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nobody"
    assert main([*argv, "--backend", "anthropic", "--as-user", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "--as-user" in err and "nobody" in err


def test_the_agreement_refuses_it_without_a_replay_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["agreement", SKILL, "--evals", EVALS, "--backend-a", "local", "--backend-b"]
    assert main([*argv, "lexical", "--as-user", str(tmp_path)]) == 2
    assert "--as-user" in capsys.readouterr().err


def parse(*argv: str) -> Any:
    return build_parser().parse_args(list(argv))


def test_it_reaches_the_replay_judge_of_each_command(tmp_path: Path) -> None:
    from skillbench.cli.agreement_cmd import _project_options
    from skillbench.cli.gate_cmd import _options
    from skillbench.cli.trigger_cmd import trigger_options

    home = str(tmp_path)
    for command in (["trigger", "x", "--evals", "e"], ["improve", "x", "--evals", "e"]):
        args = parse(*command, "--backend", "anthropic", "--as-user", home)
        assert trigger_options(args).judge_options()["as_user"] == home
    library = parse("library", "x", "--backend", "anthropic", "--as-user", home)
    assert trigger_options(library).judge_options()["as_user"] == home
    bare = parse("trigger", "x", "--evals", "e", "--backend", "anthropic", "--as-user")
    assert trigger_options(bare).judge_options()["as_user"] == "~"  # your own HOME
    plain = parse("trigger", "x", "--evals", "e", "--backend", "anthropic")
    assert "as_user" not in trigger_options(plain).judge_options()  # keys as before
    gate = parse("gate", "x", "--evals", "e.json", "--backend", "anthropic", "--as-user", home)
    assert _options(gate).trigger.judge_options()["as_user"] == home
    both = parse("agreement", "x", "--evals", "e", "--backend-a", "anthropic", "--as-user", home)
    both.backend_b = "claude-code"
    assert _project_options(both) == {"a": {"as_user": home}}


def test_the_agreement_hands_it_to_the_replay_side_only() -> None:
    from skillbench.trigger.agreement import AgreementOptions
    from skillbench.trigger.options import TriggerOptions

    options = AgreementOptions(
        trigger=TriggerOptions(as_user="~"), backend_a="anthropic", backend_b="claude-code"
    )
    assert options.side("a").as_user == "~"
    assert options.side("b").as_user is None
