"""JSON Schema of every (kind, dialect) model, and their export to a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillbench.errors import InputError
from skillbench.io import atomic_write_text, dumps_json
from skillbench.schemas.registry import DIALECTS, ENTRIES, KINDS, entries_for


def json_schema(kind: str, dialect: str) -> dict[str, Any]:
    """The JSON Schema of one document type (trigger-evals: both formats, as `anyOf`)."""
    entries = entries_for(kind, dialect)
    if not entries:
        raise InputError(
            f"no {kind!r} document in dialect {dialect!r} (kinds: {', '.join(KINDS)}; "
            f"dialects: {', '.join(DIALECTS)})",
            field="kind",
            rule="known-kind",
        )
    schemas = [e.model.model_json_schema(by_alias=True, mode="validation") for e in entries]
    schema = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"skillbench/{dialect}.{kind}.schema.json",
        "title": f"{dialect} {kind}",
        **{key: value for key, value in schema.items() if key != "title"},
    }


def export_schemas(directory: str | Path) -> list[Path]:
    """Write `<dialect>.<kind>.schema.json` for every document type; returns the paths."""
    target = Path(directory)
    written: list[Path] = []
    pairs = sorted({(e.dialect, e.kind) for e in ENTRIES})
    for dialect, kind in pairs:
        path = target / f"{dialect}.{kind}.schema.json"
        atomic_write_text(path, dumps_json(json_schema(kind, dialect)))
        written.append(path)
    return written
