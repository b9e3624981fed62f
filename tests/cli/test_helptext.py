"""Every option's help gives its default (or says it is required) and an example; --version
names the commit."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import pytest

from skillbench.cli import build_parser, main
from skillbench.cli.helptext import PLACEHOLDERS, option_help


def _options(
    parser: argparse.ArgumentParser, command: str = ""
) -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.extend(_options(sub, f"{command} {name}".strip()))
        elif action.option_strings and action.dest not in ("help", "version"):
            found.append((command, action))
    return found


OPTIONS = _options(build_parser())


@pytest.mark.parametrize(
    ("command", "action"),
    OPTIONS,
    ids=[f"{c} {max(a.option_strings, key=len)}" for c, a in OPTIONS],
)
def test_every_option_states_default_and_example(command: str, action: argparse.Action) -> None:
    text = action.help or ""
    assert "default" in text.lower() or "required" in text.lower(), text
    flag = max(action.option_strings, key=len)
    assert f"e.g. {flag}" in text or "e.g. -" in text, text


@pytest.mark.parametrize(
    ("command", "action"),
    OPTIONS,
    ids=[f"{c} {max(a.option_strings, key=len)}" for c, a in OPTIONS],
)
def test_every_example_uses_a_real_value(command: str, action: argparse.Action) -> None:
    """`--junit report.xml`, `--max-cost 2.50`: never a placeholder (VALUE, path/to/…) or the
    option's metavar (FILE, N, USD)."""
    example = (action.help or "").split("e.g. ", 1)[1]
    assert not any(word in example for word in PLACEHOLDERS), example
    if action.nargs != 0 and action.metavar and isinstance(action.metavar, str):
        value = example.split(maxsplit=1)[1] if " " in example else ""
        assert not value.startswith(action.metavar), example


def test_trailing_defaults_are_kept_and_named() -> None:
    parser = argparse.ArgumentParser()
    runs = parser.add_argument("--runs", type=int, default=3, help="runs per query (3)")
    mode = parser.add_argument("--mode", default="x", help="the mode (default)")
    flag = parser.add_argument("--fast", action="store_true", help="go fast")
    assert option_help("", runs) == "runs per query (default 3; e.g. --runs 5)"
    assert option_help("", mode).startswith("the mode (default x; e.g. --mode")
    assert option_help("", flag) == "go fast (default off; e.g. --fast)"


def test_version_names_the_commit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    out = capsys.readouterr().out.strip()
    root = Path(__file__).resolve().parents[2]
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=False
    )
    if head.returncode != 0:
        assert "commit unknown" in out
    else:
        assert re.match(r"^skillbench \S+ \(commit [0-9a-f]{12}", out), out
        assert head.stdout.strip()[:12] in out
