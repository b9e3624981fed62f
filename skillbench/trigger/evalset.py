"""Reading a trigger eval set (seed 001 Format A or B) into plain queries, with precise errors."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.errors import InputError
from skillbench.io import read_input_bytes, read_json

SLOT_MARK = "<fill in:"
"""How the query of an unfilled slot of `skillbench init --trigger` begins (trigger.template)."""


@dataclass(frozen=True)
class EvalQuery:
    """One unique query of an eval set.

    ``sources`` are the positions of the items it came from (more than one when duplicates were
    merged); ``family`` is an optional cluster label for clustered standard errors.
    """

    text: str
    should_trigger: bool
    family: str | None = None
    sources: tuple[int, ...] = field(default=())

    @property
    def merged(self) -> int:
        """How many duplicate items were folded into this one."""
        return max(0, len(self.sources) - 1)


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes (recorded in the report so a run can be matched to its input)."""
    return hashlib.sha256(read_input_bytes(path)).hexdigest()


def load_eval_set(path: str | Path) -> list[EvalQuery]:
    """Read Format A (a JSON array) or Format B (``{"evals": [...]}``) into unique queries.

    Each item needs ``query`` or ``prompt`` (a non-empty string) and a boolean ``should_trigger``;
    ``family`` is an optional string. Identical query texts (after trimming) are merged into one
    query; the same text with conflicting ``should_trigger`` is an error. Every problem raises
    InputError naming the file and the JSON path, e.g. ``evals[3].should_trigger``.
    """
    return parse_eval_set(read_json(path), path=path)


def parse_eval_set(data: Any, *, path: str | Path) -> list[EvalQuery]:
    """An eval set's parsed JSON (Format A or B) into unique queries; errors name `path`."""
    items, prefix = _items(data, path)
    return parse_items(items, path=path, prefix=prefix)


def parse_items(items: list[Any], *, path: str | Path, prefix: str = "") -> list[EvalQuery]:
    """Validate and merge raw eval items; ``prefix`` is the JSON path of the array ("evals")."""
    if not items:
        raise InputError("the eval set has no queries", path=path, field=prefix or None)
    by_text: dict[str, EvalQuery] = {}
    for index, item in enumerate(items):
        where = f"{prefix}[{index}]"
        text, should, family = _one_item(item, where, path)
        key = text.strip()
        previous = by_text.get(key)
        if previous is None:
            by_text[key] = EvalQuery(text, should, family, (index,))
            continue
        if previous.should_trigger != should:
            first = f"{prefix}[{previous.sources[0]}]"
            raise InputError(
                f"the same query appears at {first} with should_trigger="
                f"{str(previous.should_trigger).lower()} and here with {str(should).lower()}",
                path=path,
                field=f"{where}.should_trigger",
                rule="conflicting-duplicate",
            )
        by_text[key] = EvalQuery(
            previous.text, should, previous.family or family, (*previous.sources, index)
        )
    return list(by_text.values())


def _items(data: Any, path: str | Path) -> tuple[list[Any], str]:
    if isinstance(data, list):
        return data, ""
    if isinstance(data, dict):
        if "evals" not in data:
            raise InputError(
                "expected a JSON array (Format A) or an object with an `evals` array (Format B)",
                path=path,
                field="evals",
            )
        evals = data["evals"]
        if not isinstance(evals, list):
            raise InputError("must be an array", path=path, field="evals")
        return evals, "evals"
    raise InputError(
        "expected a JSON array (Format A) or an object with an `evals` array (Format B)", path=path
    )


def _one_item(item: Any, where: str, path: str | Path) -> tuple[str, bool, str | None]:
    if not isinstance(item, dict):
        raise InputError("must be an object", path=path, field=where)
    has_query, has_prompt = "query" in item, "prompt" in item
    if has_query and has_prompt:
        raise InputError("give `query` or `prompt`, not both", path=path, field=where)
    if not (has_query or has_prompt):
        raise InputError("needs a `query` (or `prompt`) string", path=path, field=f"{where}.query")
    key = "query" if has_query else "prompt"
    text = item[key]
    if not isinstance(text, str):
        raise InputError("must be a string", path=path, field=f"{where}.{key}")
    if not text.strip():
        raise InputError("must be a non-empty string", path=path, field=f"{where}.{key}")
    if text.lstrip().startswith(SLOT_MARK):
        raise InputError(
            "an unfilled slot of `skillbench init --trigger`: write the query (the slot's "
            "`note` says what it needs) or delete the item",
            path=path,
            field=f"{where}.{key}",
            rule="unfilled-slot",
        )
    if "should_trigger" not in item:
        raise InputError("is required", path=path, field=f"{where}.should_trigger")
    should = item["should_trigger"]
    if not isinstance(should, bool):
        raise InputError(
            "must be a boolean (true or false)", path=path, field=f"{where}.should_trigger"
        )
    family = item.get("family")
    if family is not None and not isinstance(family, str):
        raise InputError("must be a string", path=path, field=f"{where}.family")
    return text, should, family
