"""A user-set price for another agent's model reaches each call's cost, so `--max-cost` meters
it as the estimate prices it (issue 37: Gemini and Codex calls were always 0 dollars)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.backends.base import CallUsage
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.gemini.agent import GEMINI
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
