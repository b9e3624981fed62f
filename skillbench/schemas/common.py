"""Shared pieces of the dialect models: numbers that round-trip, rule errors with a JSON path."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import Field, StrictFloat, StrictInt
from pydantic_core import PydanticCustomError

from skillbench.schemas.base import Document

Number = StrictInt | StrictFloat
"""A JSON number kept as written (``3`` stays ``3``, ``3.0`` stays ``3.0``) so dumps are byte-stable."""

Score5 = Annotated[StrictInt, Field(ge=1, le=5)]
Score10 = Annotated[StrictInt, Field(ge=1, le=10)]
Count = Annotated[StrictInt, Field(ge=0)]
Rate = Annotated[Number, Field(ge=0, le=1)]


def rule_error(rule: str, message: str, subpath: str = "") -> PydanticCustomError:
    """An error for a broken prose rule; `subpath` is the JSON path below the validated model."""
    return PydanticCustomError(rule, message, {"subpath": subpath, "rule": rule})


def close(a: float, b: float, tolerance: float) -> bool:
    """Whether two numbers agree within `tolerance` (plus float noise)."""
    return abs(a - b) <= tolerance + 1e-9


class Doc(Document):
    """A dialect model: every field whose default is None is left out of the output when None.

    Fields that a dialect writes as an explicit ``null`` are declared without a default.
    """

    auto_omit: ClassVar[bool] = True

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        optional = {
            name
            for name, info in cls.model_fields.items()
            if not info.is_required() and info.default is None
        }
        cls.omit_if_none = frozenset(optional) | cls.omit_if_none
