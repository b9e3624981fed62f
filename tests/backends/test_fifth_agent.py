"""Adding an agent is its package plus its entry point (issue 37): a fifth agent registered
in-process (`tests/fifth_agent.py`, as a plugin's entry point would register it) gets its
validator profile, its place among the agents and in the `--agent` help, its install line
(`make agents`, the GitHub Action) and its prices — in estimates, in each call's cost and
against `--max-cost` — with no edit outside its module."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import fifth_agent
import pytest
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.backends import packages, registry
from skillbench.backends.spec import register_backend, unregister_backend
from skillbench.cli import build_parser, main
from skillbench.cli.action_steps import tools_step
from skillbench.cost.estimate import get_estimator
from skillbench.errors import EXIT_COST_CAP
from skillbench.schemas.cost import TokenCounts
from skillbench.schemas.prices import PRICES_ENV, load_prices
from skillbench.validate.rules import profiles, validate_skill

NAME = fifth_agent.NAME


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(PRICES_ENV, raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # token counts by characters
    register_backend(fifth_agent.SPEC)
    yield
    unregister_backend(NAME)


def test_its_validator_profile_is_its_own(tmp_path: Path) -> None:
    assert NAME in profiles().names and profiles().agents[NAME] == "Quill"
    clean = make_skill(tmp_path / "a", frontmatter="name: csv-tidy\ndescription: x\nmood: calm\n")
    assert validate_skill(clean, profile=NAME).valid  # its own key is known
    assert not validate_skill(clean, profile="agentskills", strict=True).valid  # not elsewhere
    bad = make_skill(
        tmp_path / "b",
        frontmatter=f"name: csv-tidy-with-a-long-name\ndescription: {GOOD_DESCRIPTION}\nmood: x\n",
    )
    report = validate_skill(bad, profile=NAME)
    codes = [f.code for f in report.errors]
    assert "QUILL_MOOD" in codes and "AGENT_LIMIT" in codes  # its check, its limit of 20
    assert "QUILL_MOOD" not in {f.code for f in validate_skill(bad).errors}  # default profile
    assert "QUILL_MOOD" in profiles().codes()
    assert main(["validate", str(bad), "--profile", NAME, "--json"]) == 1


def test_it_is_an_agent_by_default_and_in_the_agent_help() -> None:
    assert NAME in registry.agent_names()  # `skillbench agents` runs it unless told otherwise
    assert registry.agent_backend("Quill") == NAME
    parser = build_parser()
    trigger = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        "trigger"
    ]
    agent = next(a for a in trigger._actions if "--agent" in a.option_strings)
    assert NAME in str(agent.help)


def test_its_cli_is_installed_by_make_agents_and_the_action(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert packages.main(["agents"]) == 0
    assert fifth_agent.PACKAGE in capsys.readouterr().out.split()
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out.txt"))
    args = argparse.Namespace(backend=NAME, args="", behavior="false")
    assert tools_step(args) == 0
    assert f"cli-package={fifth_agent.PACKAGE}" in (tmp_path / "out.txt").read_text()


def test_its_prices_price_estimates_and_calls() -> None:
    assert load_prices().lookup(fifth_agent.MODEL) is not None
    estimator = get_estimator(NAME, model=fifth_agent.MODEL)
    assert estimator.backend == NAME and estimator.price_known()
    dollars = estimator.dollars(TokenCounts(input_tokens=1_000_000), 1)
    assert dollars == pytest.approx(2.0)


def test_its_prices_trip_max_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each call costs $0.20 by its declared price (the estimate, far less, lets the run start):
    a cap of $0.50 stops the run after three calls, exit 3."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    skill = make_skill(tmp_path)
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "tidy my csv", "should_trigger": True}]))
    argv = ["trigger", str(skill), "--evals", str(evals), "--agent", NAME, "--runs", "10"]
    argv += ["--workers", "1", "--max-cost", "0.5", "--model", fifth_agent.MODEL, "--json"]
    assert main(argv) == EXIT_COST_CAP
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert cost["stopped_at_cap"] and cost["calls"] == 3
    assert cost["dollars"] == pytest.approx(0.6)


def test_its_session_files_are_read_by_field_import(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    turns = [
        {
            "session": "s1",
            "turn": "t1",
            "prompt": "tidy this csv",
            "offered": ["csv"],
            "skill": "csv",
        },
        {"session": "s1", "turn": "t2", "prompt": "thanks", "offered": ["csv"], "skill": None},
    ]
    (sessions / "a.quill.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    out = tmp_path / "field.jsonl"
    assert main(["field", "import", NAME, "--projects", str(sessions), "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["agent"], r["first_skill"]) for r in records] == [(NAME, "csv"), (NAME, None)]
