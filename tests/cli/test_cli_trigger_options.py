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
         {"project": None}),
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
