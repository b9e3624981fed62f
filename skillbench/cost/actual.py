"""The one builder of cost lines (`cost_line`, for plans too) and of an actual cost block:
lines of calls made, cache hits (free), tokens and
dollars, dated by the price table in use. The meter (`budget.SpendMeter.block`), a trigger
report and a workspace's recorded runs all end here."""

from __future__ import annotations

from collections.abc import Sequence

from skillbench.cost.prices import price_table_date
from skillbench.schemas.cost import UNKNOWN, CostBlock, Dollars, ModelCost, TokenCounts


def cost_line(
    backend: str,
    model: str | None,
    purpose: str,
    *,
    calls: int,
    hits: int,
    tokens: TokenCounts,
    dollars: Dollars | None,
    basis: str | None = None,
    first_paid: Dollars | None = None,
) -> ModelCost:
    """One (backend, model, purpose) line, actual or estimated; `dollars` None (or "unknown")
    means no known price. `first_paid`: what its cache hits cost when their calls were made
    (given only with hits; "unknown" without a known price)."""
    return ModelCost(
        backend=backend,
        model=model,
        purpose=purpose,
        calls=calls,
        cache_hits=hits,
        tokens=tokens.tokens,
        dollars=UNKNOWN if dollars in (None, UNKNOWN) else round(float(dollars), 6),
        basis=basis,
        first_paid_dollars=(
            None
            if first_paid is None or not hits
            else (UNKNOWN if first_paid == UNKNOWN else round(float(first_paid), 6))
        ),
    )


def actual_block(
    lines: Sequence[ModelCost], *, notes: Sequence[str] = (), as_of: str | None = None
) -> CostBlock:
    """The actual cost block of `lines` (sorted by backend, model, purpose), dated `as_of` or
    else by the price table in use."""
    ordered = sorted(lines, key=lambda m: (m.backend, m.model or "", m.purpose))
    return CostBlock.combine(
        ordered, kind="actual", as_of=as_of or price_table_date(), notes=list(notes) or None
    )
