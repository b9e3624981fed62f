"""A flat-rate estimator for registered test backends (every call costs the same)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillbench.backends.base import TextRequest, TriggerRequest
from skillbench.schemas.cost import Dollars, TokenCounts


class FlatEstimator:
    """Each call: 10 input tokens, 1 output token, `per_call` dollars."""

    def __init__(self, backend: str, model: str | None = None, per_call: float = 0.001) -> None:
        self.backend = backend
        self.model = model
        self.per_call = per_call

    def price_known(self) -> bool:
        return True

    def basis(self) -> str:
        return f"flat ${self.per_call} per call"

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        return TokenCounts(input_tokens=10 * len(requests), output_tokens=len(requests))

    def text_call(self, request: TextRequest) -> TokenCounts:
        return TokenCounts(input_tokens=10, output_tokens=1)

    def dollars(self, tokens: TokenCounts, calls: int) -> Dollars:
        return round(self.per_call * calls, 6)


def flat_factory(backend: str, per_call: float = 0.001) -> Any:
    """A `register_estimator` factory for `backend`."""

    def factory(*, model: str | None = None, cache: Any = None, **_: Any) -> FlatEstimator:
        return FlatEstimator(backend, model, per_call)

    return factory
