"""Ask a TextModel for an object of a pydantic model (through whatever wraps it: cache, meter).

Backends with native structured output (`AnthropicTextModel.complete_json`: the schema as
`output_config.format`) are used natively (`CachingTextModel` caches those replies
under the request plus the output schema); any other TextModel (claude-code, test
fakes) is asked for one JSON object in its reply, which is then validated. A reply that does not
validate raises BackendError; it is never guessed or repaired.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from skillbench.backends.base import (
    CallUsage,
    TextModel,
    TextRequest,
    TextResponse,
    reply_problem,
)
from skillbench.errors import BackendError
from skillbench.redaction import clip

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def schema_text(output_model: type[BaseModel]) -> str:
    """The JSON schema of `output_model`, compact, for a prompt."""
    return json.dumps(output_model.model_json_schema(), ensure_ascii=False, sort_keys=True)


def json_instruction(output_model: type[BaseModel]) -> str:
    """The closing instruction for backends without native structured output."""
    return (
        "Reply with exactly one JSON object and nothing else. It must validate against this "
        f"JSON schema:\n{schema_text(output_model)}"
    )


def extract_json(text: str) -> Any:
    """The JSON object in a reply: the whole text, a fenced block, or the outermost braces."""
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    problem = "empty reply"
    for candidate in candidates:  # the last one's error is kept: the likeliest object
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            problem = str(exc) if candidate else problem
    shown = clip(" ".join(text.split()), 80)
    raise BackendError(
        f"the model's reply holds no JSON object (not valid JSON: {problem}; reply began {shown!r})"
    )


async def ask_structured(
    model: TextModel, request: TextRequest, output_model: type[M]
) -> tuple[M, CallUsage]:
    """The model's answer to `request` as an `output_model` instance, and the call's usage.

    A model offering `complete_json` (natively, or through the cache and meter wrappers, which
    pass it on) is asked natively; any other is asked for text. For text-only backends the
    prompt must already end with `json_instruction(output_model)`.
    """
    native = getattr(model, "complete_json", None)
    if callable(native):
        response: TextResponse = await native(request, output_model)
        if response.parsed is None:
            raise BackendError(f"the model returned no {output_model.__name__} object")
        data: Any = response.parsed
    else:
        response = await model.complete(request)
        data = response.parsed if response.parsed is not None else extract_json(response.text)
    usage = response.usage
    try:
        return output_model.model_validate(data), usage
    except ValidationError as exc:
        raise BackendError(
            f"the model's reply is not a valid {output_model.__name__}: {reply_problem(exc)}"
        ) from None
