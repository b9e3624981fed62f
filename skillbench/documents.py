"""Reading one JSON file into one pydantic model, with the project's error contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from skillbench.errors import InputError
from skillbench.io import read_json

ModelT = TypeVar("ModelT", bound=BaseModel)


def read_model(
    path: str | Path, model: type[ModelT], *, what: str = "", rule: str | None = None
) -> ModelT:
    """Load `path` as `model`; any problem is an InputError naming the file and the field.

    `what` prefixes the message ("invalid history: ..."); `rule` replaces pydantic's error type.
    """
    data = read_json(path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        from skillbench.schemas.loading import format_errors

        where, message, error_rule = format_errors(exc, model)[0]
        raise InputError(
            f"{what}: {message}" if what else message,
            path=path,
            field=where,
            rule=rule or error_rule,
        ) from None


def validate_part(
    model: type[ModelT], raw: Any, *, path: str | Path | None, field: str, rule: str
) -> ModelT:
    """Validate `raw`, one part of a file (the JSON path `field`), as `model`; InputError names
    the file, the path inside the part and `rule`, with pydantic's first message."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        where = f"{field}.{loc}" if loc else field
        raise InputError(first["msg"], path=path, field=where, rule=rule) from None
