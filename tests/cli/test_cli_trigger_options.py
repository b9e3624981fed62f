"""Every command that runs trigger evals builds its `TriggerOptions` with the one builder,
`trigger_cmd.trigger_options`: a flag added there reaches them all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
SKILL = str(ROOT / "data" / "skills" / "csv-cleanup")
EVALS = str(ROOT / "data" / "evals" / "csv-cleanup.trigger.json")


class Built(Exception):
    """Raised by the stand-in builder: carries what the command asked it for."""


@pytest.mark.parametrize(
    ("argv", "differences"),
    [
        (["trigger", SKILL, "--evals", EVALS, "--backend", "lexical"], {}),
        (["improve", SKILL, "--evals", EVALS, "--backend", "lexical"], {}),
        (["agents", SKILL, "--evals", EVALS, "--agents", "local,lexical"], {"model": None}),
        (["agreement", SKILL, "--evals", EVALS, "--backend-a", "local", "--backend-b", "lexical"],
         {"project": None, "as_user": None}),
        (["library", str(ROOT / "data" / "library"), "--backend", "lexical"], {}),
    ],
)  # fmt: skip
def test_each_command_builds_its_options_with_the_one_builder(
    argv: list[str], differences: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.cli import trigger_cmd

    real = trigger_cmd.trigger_options

    def builder(args: Any, **fields: Any) -> Any:
        real(args, **fields)  # what it builds is valid for this command's flags
        raise Built(fields)

    monkeypatch.setattr(trigger_cmd, "trigger_options", builder)
    with pytest.raises(Built) as built:
        main(argv)
    assert built.value.args[0] == differences


@pytest.mark.parametrize(
    "argv",
    [
        ["trigger", SKILL, "--evals", EVALS],
        ["improve", SKILL, "--evals", EVALS],
        ["library", str(ROOT / "data" / "library")],
        ["gate", SKILL, "--evals", EVALS],
        ["explain", SKILL, "--evals", EVALS, "--query", "clean this csv"],
    ],
)
@pytest.mark.parametrize("backend", ["lexical", "codex"])
def test_cli_mode_is_refused_where_no_claude_code_cli_runs(
    argv: list[str], backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--cli-mode` picks how Claude Code's CLI runs (the claude-code backend) or whose
    request the replay harness captures: elsewhere it would be silently ignored, so it is an
    error, exit 2, naming the backends that take it."""
    assert main([*argv, "--backend", backend, "--cli-mode", "interactive"]) == 2
    err = capsys.readouterr().err
    assert "--cli-mode" in err and "--backend claude-code" in err


def test_agreement_refuses_a_cli_mode_neither_side_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["agreement", SKILL, "--evals", EVALS, "--backend-a", "local", "--backend-b", "lexical"]
    assert main([*argv, "--cli-mode", "print"]) == 2
    assert "--cli-mode" in capsys.readouterr().err


@pytest.mark.parametrize("backend", ["anthropic", "claude-code"])
@pytest.mark.parametrize("mode", ["interactive", "print"])
def test_the_cli_mode_reaches_the_trigger_options(
    mode: str, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.cli import trigger_cmd

    real = trigger_cmd.trigger_options

    def builder(args: Any, **fields: Any) -> Any:
        raise Built(real(args, **fields))

    monkeypatch.setattr(trigger_cmd, "trigger_options", builder)
    with pytest.raises(Built) as built:
        main(["trigger", SKILL, "--evals", EVALS, "--backend", backend, "--cli-mode", mode])
    options = built.value.args[0]
    assert options.cli_mode == mode
    assert options.judge_options()["cli_mode"] == mode


def test_the_gate_hands_the_cli_mode_to_claude_codes_judges_only() -> None:
    from skillbench.cli import build_parser
    from skillbench.cli.gate_cmd import _options

    def judge_options(*argv: str) -> dict[str, Any]:
        args = build_parser().parse_args(["gate", "skill", "--evals", "e.json", *argv])
        return dict(_options(args).trigger.judge_options())

    assert judge_options("--backend", "anthropic").get("cli_mode") == "interactive"
    assert judge_options("--backend", "anthropic", "--cli-mode", "print")["cli_mode"] == "print"
    minimal = judge_options("--backend", "anthropic", "--harness", "minimal")
    assert minimal.get("harness") == "minimal" and "cli_mode" not in minimal
    assert judge_options("--backend", "claude-code")["cli_mode"] == "interactive"
    assert judge_options("--backend", "claude-code", "--cli-mode", "print")["cli_mode"] == "print"
    assert "cli_mode" not in judge_options("--backend", "lexical")
