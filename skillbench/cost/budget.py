"""Spend tracking and the `--max-cost` cap.

`SpendMeter` records every answer a workflow gets — calls made and cache hits (free) — by
(backend, model, purpose), with tokens by kind and dollars. `Budget` adds a cap: once the
recorded spend reaches it, no new call starts (calls already in flight finish and are counted,
so the final spend may pass the cap by at most those calls); cache hits are still served, so a
re-run with a higher cap resumes from the call cache. `MeteredJudge` and `MeteredTextModel` wrap
a cached judge / text model (outside the cache wrapper, so they see hits and calls) and apply
both. A judge past the cap answers with an error outcome ("not run: stopped at the cost cap"),
which is never counted as an outcome and never cached.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillbench.backends.base import (
    CallUsage,
    PaidReplyError,
    TextModel,
    TextRequest,
    TextResponse,
    TriggerJudge,
    TriggerOutcome,
    TriggerRequest,
    judge_all,
)
from skillbench.cost import notes
from skillbench.cost.actual import actual_block, cost_line
from skillbench.errors import CostCapReached, InputError
from skillbench.schemas.cost import UNKNOWN, CostBlock, Dollars, ModelCost

MAX_COST_ENV = "SKILLBENCH_MAX_COST"
CAP_ERROR = notes.CAP_ERROR
STOPPED_NOTE = notes.STOPPED


def parse_max_cost(value: str | float | None, *, env: bool = True) -> float | None:
    """The cap in USD from `value` (the option), else `$SKILLBENCH_MAX_COST`, else None.

    A negative, zero-or-less, non-numeric or non-finite cap is an InputError naming `--max-cost`
    (or the variable)."""
    source = "--max-cost"
    if value is None and env:
        value = os.environ.get(MAX_COST_ENV) or None
        source = f"${MAX_COST_ENV}"
    if value is None:
        return None
    try:
        cap = float(str(value).strip().lstrip("$"))
    except ValueError:
        raise InputError(f"must be a number of US dollars, got {value!r}", path=source) from None
    if not math.isfinite(cap) or cap <= 0:
        raise InputError(f"must be a positive number of US dollars, got {value!r}", path=source)
    return cap


@dataclass
class _Line:
    calls: int = 0
    hits: int = 0
    usage: CallUsage = field(default_factory=CallUsage)
    cached_usage: CallUsage = field(default_factory=CallUsage)
    """What the cache hits recorded when their calls were made (first paid)."""


class SpendMeter:
    """Calls, cache hits, tokens and dollars so far, by (backend, model, purpose); thread-safe."""

    def __init__(self, parent: SpendMeter | None = None) -> None:
        self.parent = parent  # an enclosing limit's meter: it records every answer too
        self._lines: dict[tuple[str, str | None, str], _Line] = {}
        self._priced: dict[tuple[str, str | None], bool | None] = {}
        self._lock = threading.Lock()

    def record(
        self,
        backend: str,
        model: str | None,
        purpose: str,
        usage: CallUsage,
        *,
        cached: bool,
        priced: bool | None = True,
    ) -> None:
        """Fold in one answer (a cache hit costs nothing and adds no tokens). `priced`: whether
        the model's price is known; None (a backend without an estimator) trusts a reported
        cost."""
        with self._lock:
            line = self._lines.setdefault((backend, model, purpose), _Line())
            if cached:
                line.hits += 1
                line.cached_usage.add(usage)
            else:
                line.calls += 1
                line.usage.add(usage)
            self._priced[(backend, model)] = priced
        if self.parent is not None:
            self.parent.record(backend, model, purpose, usage, cached=cached, priced=priced)

    @property
    def spent(self) -> float:
        """USD spent on calls so far (known prices only)."""
        with self._lock:
            return sum(line.usage.cost_usd for line in self._lines.values())

    def snapshot(self) -> dict[tuple[str, str | None, str], _Line]:
        """A copy of the lines, to subtract later (`block(since=...)`)."""
        with self._lock:
            return {
                k: _Line(v.calls, v.hits, v.usage.model_copy(), v.cached_usage.model_copy())
                for k, v in self._lines.items()
            }

    def block(
        self,
        *,
        as_of: str | None,
        since: dict[tuple[str, str | None, str], _Line] | None = None,
    ) -> CostBlock:
        """The actual cost so far (or since a snapshot) as a report block."""
        lines: list[ModelCost] = []
        for key, line in self.snapshot().items():
            base = (since or {}).get(key, _Line())
            calls, hits = line.calls - base.calls, line.hits - base.hits
            if calls == 0 and hits == 0:
                continue
            usage = line.usage - base.usage
            first_paid: Dollars = (line.cached_usage - base.cached_usage).cost_usd
            backend, model, purpose = key
            known = self._priced.get((backend, model), True)
            if not (known or (known is None and float(first_paid) > 0)):
                first_paid = UNKNOWN
            if known is None:
                known = usage.cost_usd > 0 or calls == 0
            lines.append(
                cost_line(
                    backend,
                    model,
                    purpose,
                    calls=calls,
                    hits=hits,
                    tokens=usage,
                    dollars=usage.cost_usd if known else None,
                    first_paid=first_paid,
                )
            )
        return actual_block(lines, as_of=as_of)


class Budget:
    """A meter with an optional cap: `allows()` is False once the spend reached the cap."""

    def __init__(
        self,
        cap_usd: float | None = None,
        meter: SpendMeter | None = None,
        *,
        parent: Budget | None = None,
    ) -> None:
        self.cap_usd = cap_usd
        self.parent = parent  # an enclosing limit: its cap holds here too
        outer: SpendMeter | None = parent.meter if parent is not None else None
        self.meter: SpendMeter = meter or SpendMeter(outer)
        self.refused = 0  # calls not started because of the cap
        self.halted = False  # a workflow stopped early because of the cap
        self._lock = threading.Lock()
        self._in_flight = 0  # calls started, not yet recorded
        self._made = 0  # calls recorded that were made (not cache hits)

    def allows(self) -> bool:
        """Whether a new call may start: the spend plus what the calls in flight are expected
        to cost (each the mean of the calls made so far) is still under the cap — so calls
        running side by side cannot all start at once and carry the spend far past it."""
        own = True
        if self.cap_usd is not None:
            with self._lock:
                spent = self.meter.spent
                ahead = self._in_flight * (spent / self._made if self._made else 0.0)
            own = spent + ahead < self.cap_usd
        return own and (self.parent is None or self.parent.allows())

    def started(self, count: int = 1) -> None:
        """Count `count` calls starting (here and in the enclosing limits)."""
        with self._lock:
            self._in_flight += count
        if self.parent is not None:
            self.parent.started(count)

    def finished(self, count: int = 1, *, made: int = 0) -> None:
        """Count `count` started calls as recorded, `made` of them real calls (not cache
        hits); record their spend in the meter first."""
        with self._lock:
            self._in_flight -= count
            self._made += made
        if self.parent is not None:
            self.parent.finished(count, made=made)

    @property
    def stopped(self) -> bool:
        """Whether the cap stopped anything (a call refused, a workflow halted)."""
        return self.refused > 0 or self.halted

    def halt(self) -> None:
        """Record that a workflow stopped early because the spend reached the cap."""
        self.halted = True

    def refuse(self, count: int = 1) -> None:
        """Count calls not started."""
        with self._lock:
            self.refused += count

    def block(self, *, as_of: str | None, since: Any = None) -> CostBlock:
        """The meter's block with the cap and the stop recorded."""
        block = self.meter.block(as_of=as_of, since=since)
        block.cap_usd = self.cap_usd
        if self.stopped:
            block.stopped_at_cap = True
            spent = f"call(s) refused (${self.meter.spent:.4f} spent of ${self.cap_usd:g})"
            block.notes = [*(block.notes or []), notes.stopped(self.refused, spent)]
        return block


class MeteredJudge:
    """A (cached) TriggerJudge whose answers are metered and whose new calls stop at the cap.

    Past the cap, requests the cache holds are still answered from it; others get an error
    outcome. `inner` is the wrapped judge, so harness checks see through this wrapper."""

    def __init__(self, judge: TriggerJudge, budget: Budget, *, priced: bool | None = True) -> None:
        self.inner = judge
        self.budget = budget
        self.priced = priced
        self.name = judge.name
        self.model = judge.model
        self.is_proxy = judge.is_proxy

    def identity(self) -> dict[str, Any]:
        """The wrapped judge's identity."""
        return self.inner.identity()

    def versions(self) -> dict[str, str]:
        """The wrapped judge's versions."""
        return self.inner.versions()

    def _cached_only(self, request: TriggerRequest) -> bool:
        cache = getattr(self.inner, "cache", None)
        key = getattr(self.inner, "key", None)
        found = key(request) if cache is not None and key is not None else None
        return found is not None and bool(cache.has(found))  # type: ignore[union-attr]

    def _record(self, outcome: TriggerOutcome) -> TriggerOutcome:
        self.budget.meter.record(
            self.name,
            self.model,
            "trigger",
            outcome.usage,
            cached=outcome.cached,
            priced=self.priced,
        )
        return outcome

    def _refused(self) -> TriggerOutcome:
        self.budget.refuse()
        return TriggerOutcome(triggered=False, error=CAP_ERROR, detail={"not_run": "cost cap"})

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """The answer, metered; past the cap only what the cache holds."""
        if not self.budget.allows() and not self._cached_only(request):
            return self._refused()
        self.budget.started()
        made = 0
        try:
            outcome = self._record(await self.inner.judge(request))
            made = 0 if outcome.cached else 1
        finally:
            self.budget.finished(made=made)
        return outcome

    async def judge_many(self, requests: Sequence[TriggerRequest]) -> list[TriggerOutcome]:
        """Many requests (the wrapped judge's `judge_many` when it has one); past the cap,
        requests the cache cannot answer are refused."""
        if self.budget.allows():
            allowed = list(range(len(requests)))
        else:
            allowed = [i for i, r in enumerate(requests) if self._cached_only(r)]
        results: list[TriggerOutcome | None] = [None] * len(requests)
        chosen = [requests[i] for i in allowed]
        self.budget.started(len(chosen))
        made = 0
        try:
            outcomes = await judge_all(self.inner, chosen)
            for i, outcome in zip(allowed, outcomes, strict=True):
                results[i] = self._record(outcome)
                made += 0 if outcome.cached else 1
        finally:
            self.budget.finished(len(chosen), made=made)
        return [r if r is not None else self._refused() for r in results]

    async def aclose(self) -> None:
        """Close the wrapped judge."""
        await self.inner.aclose()


class MeteredTextModel:
    """A (cached) TextModel whose replies are metered — calls and cache hits alike, as the
    wrapped `CachingTextModel` marks them — and whose new calls stop at the cap: past it, a
    request the cache holds is still answered from it; any other raises CostCapReached
    (callers check `budget.allows()` first to stop cleanly)."""

    def __init__(self, model: TextModel, budget: Budget, *, priced: bool | None = True) -> None:
        self.inner = model
        self.budget = budget
        self.priced = priced
        self.name = model.name
        self.model = model.model

    def identity(self) -> dict[str, Any]:
        """The wrapped model's identity."""
        return self.inner.identity()

    async def complete(self, request: TextRequest) -> TextResponse:
        """The reply, metered."""
        return await self._metered(request, None, self.inner.complete(request))

    def __getattr__(self, name: str) -> Any:
        inner = self.__dict__.get("inner")
        if name == "complete_json" and callable(getattr(inner, "complete_json", None)):
            return self._complete_json
        return getattr(inner, name)

    async def _complete_json(self, request: TextRequest, output_model: Any) -> TextResponse:
        """The wrapped model's native structured reply, metered like `complete`."""
        call = self.inner.complete_json(request, output_model)  # type: ignore[attr-defined]
        return await self._metered(request, output_model, call)

    def _held(self, request: TextRequest, output_model: Any) -> bool:
        holds = getattr(self.inner, "holds", None)
        return callable(holds) and bool(holds(request, output_model))

    async def _metered(
        self, request: TextRequest, output_model: Any, call: Coroutine[Any, Any, TextResponse]
    ) -> TextResponse:
        """Refuse past the cap (CostCapReached) unless the cache holds the reply, else await
        `call` and record it (a call, or a free cache hit)."""
        if not self.budget.allows() and not self._held(request, output_model):
            call.close()  # never started: no "coroutine was never awaited" warning
            self.budget.refuse()
            raise CostCapReached(f"{STOPPED_NOTE} (${self.budget.cap_usd:g})")
        self.budget.started()
        made = 0
        purpose = request.purpose or "text"
        try:
            response = await call
            self.budget.meter.record(
                self.name, self.model, purpose, response.usage,
                cached=response.cached, priced=self.priced,
            )  # fmt: skip
            made = 0 if response.cached else 1
        except PaidReplyError as exc:  # made and paid, its reply unusable: still a call
            self.budget.meter.record(
                self.name, self.model, purpose, exc.usage, cached=False, priced=self.priced
            )
            made = 1
            raise
        finally:
            self.budget.finished(made=made)
        return response

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.inner.aclose()


def backend_priced(
    backend: str, model: str | None, *, reported: float | None = None
) -> bool | None:
    """THE "is it priced?" question: whether dollars of the backend's model are known.

    A backend with a priced estimator: its answer. One that states its own costs (claude-code)
    or has no estimator (a plugin or test backend): None — trust reported costs — or, given the
    cost it `reported`, whether that is a cost (claude-code: or its model has a price)."""
    from skillbench.cost.estimate import get_estimator

    try:
        estimator = get_estimator(backend, model=model)
    except Exception:  # no estimator (a plugin or test backend): trust a reported cost
        return None if reported is None else reported > 0
    if getattr(estimator, "reports_cost", False):
        if reported is None:
            return None
        return bool(estimator.price_known()) or reported > 0
    return bool(estimator.price_known())


def meter_text_model(model: TextModel, budget: Budget) -> MeteredTextModel:
    """`model` (best behind the call cache, so its hits are counted as free) metered by
    `budget`, priced by its backend's estimator."""
    return MeteredTextModel(model, budget, priced=backend_priced(model.name, model.model))


def metered_text_model(backend: str, *, model: str | None, cache: Any, budget: Budget) -> Any:
    """The backend's TextModel behind the call cache, metered by `budget` outside it (as
    `MeteredJudge` wraps a `CachingJudge`), so the meter sees every answer: calls made, and
    cache hits at no cost."""
    from skillbench.backends.registry import cached_text_model

    return meter_text_model(cached_text_model(backend, model=model, cache=cache), budget)
