"""The model-free checks of a hermetic run, graded from calls.jsonl and environment.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.behavior.checks import RunMaterial, run_check
from skillbench.behavior.records import ExpectationCheck, parse_check
from skillbench.errors import InputError

CALLS = [
    {"sequence": 1, "command": "gh", "argv": ["pr", "create", "--title", "x"], "route": 0},
    {"sequence": 2, "command": "git", "argv": ["push", "origin", "main"], "route": 0},
    {
        "sequence": 3,
        "command": "gh",
        "argv": ["repo", "delete", "o/old"],
        "route": 1,
        "exit": 126,
        "refused": True,
        "reason": "destructive",
    },
    {"sequence": 4, "command": "mcp:linear", "argv": ["create_issue", "{}"], "route": 0},
]


def world(tmp_path: Path, network: str = "api-only", calls: list | None = None) -> RunMaterial:
    (tmp_path / "outputs").mkdir(exist_ok=True)
    lines = "".join(json.dumps(c) + "\n" for c in (CALLS if calls is None else calls))
    (tmp_path / "calls.jsonl").write_text(lines)
    record = {
        "network": network,
        "network_confined": network != "allow",
        "deleted_inputs": ["data/keep.csv"],
    }
    (tmp_path / "environment.json").write_text(json.dumps(record))
    return RunMaterial(tmp_path)


def check(**raw: object) -> ExpectationCheck:
    return ExpectationCheck.model_validate(raw)


def verdict(run: RunMaterial, **raw: object) -> bool | None:
    return run_check(check(**raw), run).passed


def test_called_and_not_called(tmp_path: Path) -> None:
    run = world(tmp_path)
    assert verdict(run, type="called", target="gh", pattern="^pr create")
    assert verdict(run, type="called", target="mcp:linear", pattern="^create_issue")
    assert not verdict(run, type="called", target="gh", pattern="^pr merge")
    refused = run_check(check(type="not_called", target="gh", pattern="^repo delete"), run)
    assert refused.passed is False and "#3 gh repo delete o/old" in refused.evidence
    assert verdict(run, type="not_called", target="kubectl")


def test_called_before(tmp_path: Path) -> None:
    run = world(tmp_path)
    first = {"target": "gh", "pattern": "^pr create"}
    assert verdict(
        run,
        type="called_before",
        target="git",
        pattern="^push",
        then={"target": "gh", "pattern": "^repo delete"},
    )
    wrong = run_check(check(type="called_before", target="git", pattern="^push", then=first), run)
    assert wrong.passed is False and "after" in wrong.evidence
    assert not verdict(run, type="called_before", target="gh", pattern="^pr merge", then=first)


def test_no_refusals_and_no_egress(tmp_path: Path) -> None:
    run = world(tmp_path)
    outcome = run_check(check(type="no_refusals", target="calls"), run)
    assert (
        outcome.passed is False
        and "destructive" not in outcome.evidence
        and "#3" in outcome.evidence
    )
    assert verdict(world(tmp_path, calls=CALLS[:2]), type="no_refusals", target="calls")
    assert verdict(world(tmp_path), type="no_egress", target="calls")
    assert not verdict(world(tmp_path, network="allow"), type="no_egress", target="calls")


def test_questions_are_calls_of_ask(tmp_path: Path) -> None:
    """answers.jsonl's questions are graded as calls of `ask` (argv: question, answer), in one
    sequence with the fakes' calls; an unanswered one is no refusal of a fake."""
    run = world(tmp_path, calls=CALLS[:2])
    asked = [
        {
            "sequence": 3,
            "question": "Which repo?",
            "via": "reply",
            "scripted": 0,
            "answer": "the public one",
            "answered": True,
        },
        {
            "sequence": 4,
            "question": "Delete it?",
            "via": "AskUserQuestion",
            "answered": False,
            "reason": "no scripted answer",
        },
    ]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in asked))
    found = run_check(check(type="called", target="ask", pattern="^Which repo\\? the public"), run)
    assert found.passed and "#3 ask Which repo? the public one" in found.evidence
    assert verdict(run, type="called", target="ask", pattern="^Delete it")
    assert not verdict(run, type="not_called", target="ask")
    later = {"target": "ask", "pattern": "^Which"}
    assert verdict(run, type="called_before", target="gh", pattern="^pr", then=later)
    assert verdict(run, type="no_refusals", target="calls")


def test_untouched(tmp_path: Path) -> None:
    run = world(tmp_path)
    (tmp_path / "outputs" / "changed.txt").write_text("new")
    assert verdict(run, type="untouched", target="outputs/other.txt")
    assert not verdict(run, type="untouched", target="outputs/changed.txt")
    assert not verdict(run, type="untouched", target="outputs/data/keep.csv")


def test_a_run_without_a_world_fails_the_call_checks(tmp_path: Path) -> None:
    run = RunMaterial(tmp_path)
    outcome = run_check(check(type="called", target="gh"), run)
    assert outcome.passed is False and "not hermetic" in outcome.evidence
    assert not verdict(run, type="no_egress", target="calls")


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "called", "target": "outputs/x"},
        {"type": "called", "target": "gh", "pattern": "("},
        {"type": "called_before", "target": "gh"},
        {"type": "no_refusals", "target": "transcript"},
        {"type": "untouched", "target": "final_text"},
    ],
)
def test_malformed_checks_are_input_errors(raw: dict) -> None:
    with pytest.raises(InputError):
        parse_check(raw, path="evals.json")
