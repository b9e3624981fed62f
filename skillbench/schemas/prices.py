"""Per-model prices and THE dollar formula: a dated table shipped with skillbench, overridable
by a user JSON file.

It lives in `schemas/` (below `backends/`) because it is a file format (`prices.json`) and
because the backends price each call they make; everything else about money (estimates, the
meter, the cap, plans) is in `skillbench/cost/`.

The shipped table (`skillbench/data/prices.json`) records the date the prices were taken and
their public source. A backend may declare prices of its own models (`BackendSpec.prices`; the
backends registry adds them with `add_price_source`): their models extend the shipped table. A
user file (`$SKILLBENCH_PRICES` or the `path` argument) has the same shape; its models replace or
extend both, its `batch_discount` (if given) replaces the shipped one. An unknown model costs
None (with a warning), never a guessed price.
"""

from __future__ import annotations

import logging
import os
import re
import warnings
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skillbench.errors import InputError
from skillbench.io import read_json
from skillbench.schemas.cost import TokenCounts

PRICES_ENV = "SKILLBENCH_PRICES"
PriceSource = Callable[[], Iterable[object]]
"""Returns price tables (`PriceTable`s, or mappings of that shape) to lay over the shipped one."""
logger = logging.getLogger(__name__)
_DATE_SUFFIX = re.compile(r"(-\d{8}|@\d{8})$")
_CONTEXT_SUFFIX = re.compile(r"\[[^\]]*\]$")


class ModelPrice(BaseModel):
    """USD per million tokens for one model."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_write_5m: float = Field(ge=0)
    cache_read: float = Field(ge=0)


class PriceTable(BaseModel):
    """A dated price table (the shipped one, or a user override)."""

    model_config = ConfigDict(extra="forbid")

    as_of: str | None = None
    source: str | None = None
    currency: str = "USD"
    unit: str = "per million tokens"
    batch_discount: float | None = Field(default=None, ge=0, le=1)
    models: dict[str, ModelPrice] = Field(default_factory=dict)
    aliases: dict[str, str] = Field(default_factory=dict)

    def merged(self, override: PriceTable) -> PriceTable:
        """This table with the override's models, aliases and discount laid over it."""
        return PriceTable(
            as_of=override.as_of or self.as_of,
            source=override.source or self.source,
            currency=self.currency,
            unit=self.unit,
            batch_discount=(
                override.batch_discount
                if override.batch_discount is not None
                else self.batch_discount
            ),
            models={**self.models, **override.models},
            aliases={**self.aliases, **override.aliases},
        )

    def extended(self, other: PriceTable) -> PriceTable:
        """This table with the other's models and aliases added (its date, source and discount
        stay: a backend's own prices extend the table, they do not re-date it)."""
        return self.model_copy(
            update={
                "models": {**self.models, **other.models},
                "aliases": {**self.aliases, **other.aliases},
            }
        )

    def lookup(self, model: str) -> ModelPrice | None:
        """The price of `model`, accepting dated ids (`-20251001`) and `[1m]`-style suffixes."""
        name = _CONTEXT_SUFFIX.sub("", model.strip().lower())
        for candidate in (name, _DATE_SUFFIX.sub("", name)):
            candidate = self.aliases.get(candidate, candidate)
            if candidate in self.models:
                return self.models[candidate]
        return None

    def dollars(
        self, model: str | None, tokens: TokenCounts, *, batch: bool = False
    ) -> float | None:
        """USD of `tokens` at the model's price (None when the table lacks the model): the one
        dollar formula. Cache writes are priced at the 5-minute rate; the batch discount
        applies to every token kind (the Batch API halves input and output; cache multipliers
        stack on top)."""
        price = self.lookup(model) if model else None
        if price is None:
            return None
        total = (
            tokens.input_tokens * price.input
            + tokens.output_tokens * price.output
            + tokens.cache_creation_input_tokens * price.cache_write_5m
            + tokens.cache_read_input_tokens * price.cache_read
        ) / 1_000_000
        if batch:
            total *= 1 - (self.batch_discount if self.batch_discount is not None else 0.5)
        return total


def _parse_table(data: object, source: str | Path) -> PriceTable:
    try:
        return PriceTable.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        raise InputError(first["msg"], path=source, field=field, rule="price-table") from None


@lru_cache(maxsize=1)
def shipped_prices() -> PriceTable:
    """The price table shipped with skillbench."""
    resource = resources.files("skillbench").joinpath("data", "prices.json")
    with resources.as_file(resource) as path:
        return _parse_table(read_json(path), path)


_sources: list[PriceSource] = []


def add_price_source(source: PriceSource) -> None:
    """Lay the tables `source()` returns over the shipped table in every `load_prices` (under
    the user's file); added once."""
    if source not in _sources:
        _sources.append(source)


def remove_price_source(source: PriceSource) -> None:
    """Forget a source (tests)."""
    if source in _sources:
        _sources.remove(source)


def _declared(table: PriceTable) -> PriceTable:
    """`table` extended by every source's tables; one that is not a price table is skipped
    with a warning (pricing must not fail a run)."""
    for source in _sources:
        for item in source():
            try:
                extra = item if isinstance(item, PriceTable) else PriceTable.model_validate(item)
            except ValidationError as exc:
                logger.warning("a declared price table is not one (%s); skipped", exc)
                continue
            table = table.extended(extra)
    return table


def load_prices(path: str | Path | None = None) -> PriceTable:
    """The shipped table with the backends' declared prices (`add_price_source`), overridden
    by `path` or else by `$SKILLBENCH_PRICES` when set."""
    table = _declared(shipped_prices())
    override = path if path is not None else os.environ.get(PRICES_ENV) or None
    if override is None:
        return table
    return table.merged(_parse_table(read_json(override), override))


def cost(
    model: str | None,
    usage: TokenCounts,
    *,
    batch: bool = False,
    prices: PriceTable | str | Path | None = None,
) -> float | None:
    """USD cost of one call's usage (`PriceTable.dollars`); None, with a warning, when the
    model has no known price."""
    table = prices if isinstance(prices, PriceTable) else load_prices(prices)
    total = table.dollars(model, usage, batch=batch)
    if total is None:
        warnings.warn(
            f"no price known for model {model!r}: cost left unknown "
            f"(add it to a price file named by ${PRICES_ENV})",
            stacklevel=2,
        )
    return total
