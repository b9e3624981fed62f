"""Pricing: the shipped dated table, user overrides, unknown models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.backends.base import CallUsage
from skillbench.errors import InputError
from skillbench.schemas.prices import PRICES_ENV, cost, load_prices, shipped_prices

MILLION = 1_000_000


def test_shipped_table_is_dated_and_sourced() -> None:
    table = shipped_prices()
    assert table.as_of and table.source and "claude.com" in table.source
    assert table.batch_discount == 0.5
    for family in ("claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5"):
        assert family in table.models


def test_haiku_cost_by_category() -> None:
    usage = CallUsage(
        input_tokens=MILLION,
        output_tokens=MILLION,
        cache_creation_input_tokens=MILLION,
        cache_read_input_tokens=MILLION,
    )
    assert cost("claude-haiku-4-5", usage) == pytest.approx(1 + 5 + 1.25 + 0.10)
    assert cost("claude-haiku-4-5", usage, batch=True) == pytest.approx((1 + 5 + 1.25 + 0.10) / 2)


def test_dated_and_suffixed_ids_resolve() -> None:
    usage = CallUsage(input_tokens=2 * MILLION, output_tokens=MILLION // 2)
    assert cost("claude-sonnet-4-5-20250929", usage) == pytest.approx(6 + 7.5)
    assert cost("claude-opus-4-6[1m]", usage) == pytest.approx(10 + 12.5)
    assert cost("claude-opus-4-1-20250805", usage) == pytest.approx(30 + 37.5)


def test_unknown_model_is_none_with_warning() -> None:
    with pytest.warns(UserWarning, match="no price known"):
        assert cost("claude-haiku-9-9", CallUsage(input_tokens=10)) is None
    with pytest.warns(UserWarning):
        assert cost(None, CallUsage()) is None


def test_override_file_by_env_and_argument(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    override = tmp_path / "prices.json"
    override.write_text(
        json.dumps(
            {
                "as_of": "2030-01-01",
                "batch_discount": 0.25,
                "models": {
                    "my-model": {"input": 2, "output": 4, "cache_write_5m": 3, "cache_read": 0.5},
                    "claude-haiku-4-5": {
                        "input": 10,
                        "output": 50,
                        "cache_write_5m": 12.5,
                        "cache_read": 1,
                    },
                },
            }
        )
    )
    usage = CallUsage(input_tokens=MILLION, output_tokens=MILLION)
    assert cost("my-model", usage, prices=override) == pytest.approx(6)
    assert cost("my-model", usage, prices=override, batch=True) == pytest.approx(4.5)
    monkeypatch.setenv(PRICES_ENV, str(override))
    assert cost("claude-haiku-4-5", usage) == pytest.approx(60)
    assert cost("claude-sonnet-4-5", usage) == pytest.approx(18)  # shipped row kept
    assert load_prices().as_of == "2030-01-01"


def test_bad_override_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {"models": {"m": {"input": -1, "output": 1, "cache_write_5m": 1, "cache_read": 1}}}
        )
    )
    with pytest.raises(InputError) as info:
        load_prices(bad)
    assert "bad.json" in str(info.value) and "models.m.input" in str(info.value)
    missing = tmp_path / "missing.json"
    with pytest.raises(InputError, match=r"missing\.json"):
        load_prices(missing)
