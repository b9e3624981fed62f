"""Dollars as reports state them: the price table's answer (`schemas.prices.PriceTable.dollars`,
the one formula), rounded, or "unknown" — never 0 for a model without a price."""

from __future__ import annotations

from skillbench.errors import InputError
from skillbench.schemas.cost import UNKNOWN, Dollars, TokenCounts
from skillbench.schemas.prices import PriceTable, load_prices


def dollars_or_unknown(
    table: PriceTable, model: str | None, tokens: TokenCounts, *, batch: bool = False
) -> Dollars:
    """USD of `tokens` at the model's price (rounded to 6 places), or "unknown"."""
    total = table.dollars(model, tokens, batch=batch)
    return UNKNOWN if total is None else round(total, 6)


def price_table_date() -> str | None:
    """The `as_of` date of the price table in use (shipped or overridden)."""
    try:
        return load_prices().as_of
    except InputError:
        return None
