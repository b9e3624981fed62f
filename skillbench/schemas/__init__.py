"""Every skillbench document as a typed model, in three dialects, with detect/load/convert/export.

Dialects: ``skill-creator-v3`` (seed 001), ``writing-skills`` (seed 002), ``skill-creator``
(seed 004 and upstream ``references/schemas.md``). See ``registry.KINDS`` for the kinds.
"""

from __future__ import annotations

from skillbench.schemas.convert import (
    CONCEPTS,
    ConversionResult,
    convert,
    from_canonical,
    to_canonical,
)
from skillbench.schemas.export import export_schemas, json_schema
from skillbench.schemas.loading import (
    CheckResult,
    LoadedDocument,
    check,
    detect,
    dump,
    dumps,
    from_data,
    load,
    write,
)
from skillbench.schemas.registry import (
    DIALECTS,
    KINDS,
    SKILL_CREATOR,
    SKILL_CREATOR_V3,
    WRITING_SKILLS,
)

__all__ = [
    "CONCEPTS",
    "DIALECTS",
    "KINDS",
    "SKILL_CREATOR",
    "SKILL_CREATOR_V3",
    "WRITING_SKILLS",
    "CheckResult",
    "ConversionResult",
    "LoadedDocument",
    "check",
    "convert",
    "detect",
    "dump",
    "dumps",
    "export_schemas",
    "from_canonical",
    "from_data",
    "json_schema",
    "load",
    "to_canonical",
    "write",
]
