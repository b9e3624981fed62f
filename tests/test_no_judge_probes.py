"""No question package probes a judge: what reports need (harness, listing, mode, version) is
declared by the judge and read through `backends.describe` (issue 37)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "skillbench"
QUESTIONS = ("trigger", "library", "improve", "gate", "cli", "cost/estimate.py")
JUDGE_ATTRIBUTES = {
    "agent",
    "batch",
    "cache_before_query",
    "escalated",
    "extra_env",
    "harness",
    "harness_info",
    "inner",
    "is_proxy",
    "judge_many",
    "known_template",
    "limiter",
    "listing_budget",
    "listing_info",
    "max_concurrency",
    "reported_models",
    "template_for",
    "warm_up",
}


NOT_JUDGES = {"estimator"}  # `cost.estimate` asks an estimator (not a judge) for its batch rate


def probes(source: str) -> list[tuple[int, str]]:
    """(line, attribute) of every `getattr` / `hasattr` asking for a judge's attribute."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in JUDGE_ATTRIBUTES
            and not (isinstance(node.args[0], ast.Name) and node.args[0].id in NOT_JUDGES)
        ):
            found.append((node.lineno, str(node.args[1].value)))
    return found


def test_the_scanner_sees_a_probe() -> None:
    source = "a = getattr(j, 'harness', None)\nb = hasattr(j, 'batch')\nc = getattr(q, 'text')\n"
    assert probes(source) == [(1, "harness"), (2, "batch")]


def test_no_judge_probe_in_the_question_packages() -> None:
    found = [
        f"skillbench/{path.relative_to(PACKAGE).as_posix()}:{line}: {name!r}"
        for package in QUESTIONS
        for path in sorted(
            (PACKAGE / package).rglob("*.py")
            if (PACKAGE / package).is_dir()
            else [PACKAGE / package]
        )
        for line, name in probes(path.read_text(encoding="utf-8"))
    ]
    assert not found, "ask backends.describe, not the judge's attributes:\n" + "\n".join(found)
