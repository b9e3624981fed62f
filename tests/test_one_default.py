"""One default number of runs everywhere trigger rates are measured (issue 31, item 7): the CLI
commands, the Python API and the notebooks all read `skillbench.limits.DEFAULT_RUNS`, and the
notebooks' parameters carry the CLI's names."""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path
from typing import Any

import pytest

from skillbench.cli import build_parser
from skillbench.improve.options import ImproveOptions
from skillbench.limits import DEFAULT_RUNS
from skillbench.trigger.agreement import AgreementOptions
from skillbench.trigger.options import DEFAULT_OPTIONS, TriggerOptions
from skillbench.trigger.run import DEFAULT_RUNS as RUN_DEFAULT

ROOT = Path(__file__).resolve().parents[1]

#: Each notebook measuring trigger rates, and the CLI command it mirrors.
NOTEBOOK_COMMANDS = {
    "trigger_eval": "trigger",
    "improve_description": "improve",
    "library_routing": "library",
    "agents_side_by_side": "agents",
    "backend_agreement": "agreement",
}
#: Parameters only a notebook has, and why.
NOTEBOOK_ONLY = {
    "report_dir": "where the report runner puts the notebook's outputs",
    "backend_options": "per-agent backend keywords (a dict; the CLI has per-option flags)",
    "from_report": "`report trigger_eval --from FILE` (`from` is a Python keyword)",
}


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    chosen: argparse.ArgumentParser = sub.choices[command]
    return chosen


def _cli_names(command: str) -> set[str]:
    """The names of a command's options and positionals, as notebook identifiers."""
    names = set()
    for action in _subparser(command)._actions:
        for flag in action.option_strings or [action.dest]:
            names.add(flag.lstrip("-").replace("-", "_"))
    return names


def _parameters(notebook: str) -> dict[str, Any]:
    """The literal values of a notebook's `parameters` cell, read with ast (nothing executed)."""
    cells = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    (cell,) = [c for c in cells["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    values: dict[str, Any] = {}
    for node in ast.parse("".join(cell["source"])).body:
        assert isinstance(node, ast.Assign), ast.unparse(node)
        (target,) = node.targets
        assert isinstance(target, ast.Name)
        values[target.id] = ast.literal_eval(node.value)
    return values


@pytest.mark.parametrize("command", ["trigger", "library", "improve", "agents", "agreement"])
def test_every_command_defaults_to_the_one_constant(command: str) -> None:
    assert _subparser(command).get_default("runs") == DEFAULT_RUNS


def test_the_python_api_defaults_to_the_one_constant() -> None:
    assert RUN_DEFAULT == DEFAULT_RUNS
    assert TriggerOptions().runs == DEFAULT_OPTIONS.runs == DEFAULT_RUNS
    assert ImproveOptions().trigger.runs == DEFAULT_RUNS
    assert AgreementOptions().trigger.runs == DEFAULT_RUNS


@pytest.mark.parametrize("notebook", sorted(NOTEBOOK_COMMANDS))
def test_notebooks_default_to_the_constant_under_the_cli_names(notebook: str) -> None:
    params = _parameters(notebook)
    assert params["runs"] == DEFAULT_RUNS
    unknown = set(params) - _cli_names(NOTEBOOK_COMMANDS[notebook]) - set(NOTEBOOK_ONLY)
    assert not unknown, f"{notebook}: parameters not named like a CLI option: {sorted(unknown)}"


@pytest.mark.parametrize("notebook", ["overfitting_analysis", "report_diff"])
def test_the_other_trigger_notebooks_default_to_the_constant(notebook: str) -> None:
    assert _parameters(notebook)["runs"] == DEFAULT_RUNS
