"""A user-set price for another agent's model reaches each call's cost, so `--max-cost` meters
it as the estimate prices it (issue 37: Gemini and Codex calls were always 0 dollars)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends.base import CallUsage
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.codex.spec import CODEX_SPEC
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.gemini.spec import GEMINI_SPEC
from skillbench.schemas.prices import PRICES_ENV

MILLION = 1_000_000


def _prices(tmp_path: Path, model: str) -> Path:
    table = tmp_path / "prices.json"
    row = {"input": 2.0, "output": 8.0, "cache_write_5m": 2.0, "cache_read": 0.5}
    table.write_text(json.dumps({"as_of": "2030-01-01", "models": {model: row}}))
    return table


@pytest.mark.parametrize("agent", [GEMINI, CODEX], ids=["gemini", "codex"])
def test_a_user_set_price_prices_each_call(
    agent: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = str(agent.default_model)  # type: ignore[attr-defined]
    usage = CallUsage(input_tokens=MILLION, output_tokens=MILLION)
    monkeypatch.delenv(PRICES_ENV, raising=False)
    dollars, note = agent.price(model, usage)  # type: ignore[attr-defined]
    assert dollars == 0.0 and note is not None and "no price known" in note
    monkeypatch.setenv(PRICES_ENV, str(_prices(tmp_path, model)))
    dollars, note = agent.price(model, usage)  # type: ignore[attr-defined]
    assert dollars == pytest.approx(10.0) and note is None


ENDPOINT = {"gemini": ("GOOGLE_GEMINI_BASE_URL", ""), "codex": ("OPENAI_BASE_URL", "/v1")}
"""The variable each agent's SDK reads its endpoint from, and the path under the fake's root."""


@pytest.mark.parametrize("agent", [GEMINI, CODEX], ids=["gemini", "codex"])
def test_a_user_set_price_trips_max_cost_end_to_end(
    agent: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`skillbench trigger --agent gemini|codex --max-cost` with the real pinned CLI (its request
    captured from a loopback fake, replayed against it): the user's price for the agent's model
    makes every call cost $1 (1,000 prompt-cache tokens a reply, at $1,000 per million; the
    estimate, which prices none of them as cached, is $0 and lets the run start), so a cap of
    $2.50 stops the run after the calls under way: exit 3, the report stopped at the cap."""
    from agent_fake_api import FakeAgentAPI

    from skillbench.backends.spec import register_backend, unregister_backend
    from skillbench.cli import main
    from skillbench.errors import EXIT_COST_CAP, BackendError

    try:
        agent.locate()
    except BackendError as exc:
        pytest.skip(str(exc))
    spec = {"gemini": GEMINI_SPEC, "codex": CODEX_SPEC}[agent.name]
    register_backend(spec)  # the entry points reach the venv only on reinstall
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv(agent.key_variable, "dummy-offline")
    row = {"input": 0.0, "output": 0.0, "cache_write_5m": 0.0, "cache_read": 1000.0}
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"models": {agent.default_model: row}}))
    monkeypatch.setenv(PRICES_ENV, str(table))
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: csv-cleanup\ndescription: Clean CSV files. Use when a CSV is messy.\n---\n# CSV\n"
    )
    evals = tmp_path / "evals.json"
    evals.write_text(
        json.dumps([{"query": f"tidy csv {i}", "should_trigger": True} for i in range(4)])
    )
    argv = ["trigger", str(skill), "--evals", str(evals), "--agent", agent.name]
    argv += ["--runs", "3", "--workers", "1", "--max-cost", "2.5", "--json"]
    try:
        with FakeAgentAPI() as fake:
            variable, path = ENDPOINT[agent.name]
            monkeypatch.setenv(variable, fake.url + path)
            code = main(argv)
    finally:
        unregister_backend(spec.name)
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert code == EXIT_COST_CAP, cost
    assert cost["stopped_at_cap"] and 3 <= cost["calls"] < 12
    assert cost["dollars"] == pytest.approx(cost["calls"])  # $1 a call, each metered
