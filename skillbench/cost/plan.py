"""Cost blocks for reports and plans: estimates from `estimate.Planned` lines, cap checks.

`plan_block` turns planned lines (calls the cache cannot answer, estimated per backend and
model; hits free) into an "estimate" `CostBlock`; `check_cap` refuses a plan whose estimate
exceeds `--max-cost` (CostCapError, exit 3) and a cap on a model without a price (InputError
naming `--model`, exit 2). `key_judge` builds the judge only to compute call-cache keys, so a
dry run needs no API key and makes no call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.cost import notes
from skillbench.cost.actual import cost_line
from skillbench.cost.estimate import Estimator, Planned
from skillbench.cost.prices import price_table_date
from skillbench.errors import BackendError, CostCapError, InputError
from skillbench.schemas.cost import UNKNOWN, CostBlock, TokenCounts
from skillbench.schemas.prices import PRICES_ENV

if TYPE_CHECKING:
    from skillbench.backends.cache import CachingJudge, CallCache


@dataclass
class CostPlan:
    """A dry run's plan (human-readable lines) and its cost estimate."""

    lines: list[str]
    estimate: CostBlock
    planned: list[Planned] = field(default_factory=list)

    def text(self) -> list[str]:
        """The plan lines followed by the estimate's lines."""
        from skillbench.schemas.cost import cost_lines

        return [*self.lines, *cost_lines(self.estimate)]


def plan_block(planned: Sequence[Planned], *, notes: Sequence[str] = ()) -> CostBlock:
    """The estimate block of a plan: one line per (backend, model, purpose)."""
    lines = []
    for item in planned:
        tokens = item.tokens or TokenCounts()
        est = item.estimator
        lines.append(
            cost_line(
                est.backend,
                est.model,
                item.purpose,
                calls=item.calls,
                hits=item.cache_hits,
                tokens=tokens,
                dollars=est.dollars(tokens, item.calls) if item.calls else 0.0,
                basis=est.basis(),
            )
        )
    return CostBlock.combine(
        lines, kind="estimate", as_of=price_table_date(), notes=list(notes) or None
    )


def require_price(estimator: Estimator, *, option: str = "--model") -> None:
    """InputError naming `option` when dollars cannot be stated for the estimator's model."""
    if not estimator.price_known():
        raise InputError(
            f"model {estimator.model!r} of backend {estimator.backend!r} has no price in the "
            f"price table, so its cost cannot be estimated or capped; choose a priced model or "
            f"add it to a price file named by ${PRICES_ENV}",
            path=option,
        )


def check_cap(block: CostBlock, cap: float | None) -> None:
    """Refuse (CostCapError, exit 3) when the estimate exceeds the cap."""
    if cap is None:
        return
    if block.dollars == UNKNOWN:
        raise InputError(
            "the estimate has an unknown price, so --max-cost cannot be checked", path="--model"
        )
    if float(block.dollars) > cap:
        raise CostCapError(
            f"--max-cost: the estimated cost ${float(block.dollars):.4f} exceeds the cap "
            f"${cap:g}; nothing was run (see --dry-run for the plan)"
        )


def existing_cache(path: str | Path | None, *, enabled: bool = True) -> CallCache | None:
    """The call cache for a dry run: opened only when enabled and its file already exists, so a
    dry run creates nothing."""
    from skillbench.backends.cache import CallCache, default_cache_path

    where = Path(path) if path is not None else default_cache_path()
    return CallCache(where) if enabled and where.is_file() else None


@contextmanager
def planning_cache(path: str | Path | None, *, enabled: bool = True) -> Iterator[CallCache | None]:
    """`existing_cache` for the length of a plan, closed after."""
    cache = existing_cache(path, enabled=enabled)
    try:
        yield cache
    finally:
        if cache is not None:
            cache.close()


def key_judge(
    backend: str, *, model: str | None, cache: CallCache | None, options: dict[str, Any]
) -> tuple[CachingJudge | None, str | None]:
    """The backend's judge behind the cache, used only to compute cache keys and to find its
    request templates (no call is made; without a cache every request is a miss), and a note
    when the cache cannot be consulted. The anthropic backend needs no real key for this."""
    from skillbench.backends.cache import CachingJudge
    from skillbench.backends.registry import backend_spec, beside_cache, get_judge

    note = None if cache is not None else notes.NO_CACHE
    unavailable = notes.backend_unavailable(backend)
    options = beside_cache(backend, options, cache)
    try:
        judge = get_judge(backend, model=model, **options)
    except BackendError:
        if backend_spec(backend).key_variable is None:
            return None, note or unavailable
        try:
            judge = get_judge(backend, model=model, api_key="dry-run-no-key", **options)
        except BackendError as exc:
            return None, note or notes.backend_unavailable(backend, str(exc))
    return CachingJudge(judge, cache), note
