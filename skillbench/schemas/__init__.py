"""Every skillbench document as a typed model, in three dialects, with detect/load/convert/export.

Dialects: ``skill-creator-v3`` (seed 001), ``writing-skills`` (seed 002), ``skill-creator``
(seed 004 and upstream ``references/schemas.md``). See ``registry.KINDS`` for the kinds.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

# Lazy: `import skillbench.schemas.validation` (the validator's path) must not load every
# document model of every dialect; the names below load their module on first use.
_EXPORTS: dict[str, str] = {
    "CONCEPTS": "convert",
    "ConversionResult": "convert",
    "from_canonical": "convert",
    "to_canonical": "convert",
    "export_schemas": "export",
    "json_schema": "export",
    "CheckResult": "loading",
    "LoadedDocument": "loading",
    "check": "loading",
    "detect": "loading",
    "dump": "loading",
    "dumps": "loading",
    "from_data": "loading",
    "load": "loading",
    "write": "loading",
    "DIALECTS": "registry",
    "KINDS": "registry",
    "SKILL_CREATOR": "registry",
    "SKILL_CREATOR_V3": "registry",
    "WRITING_SKILLS": "registry",
}

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | {"convert"})


class _Package(types.ModuleType):
    """`convert` names both a submodule and the function it defines. Importing the submodule
    binds the module on the package; this property keeps `skillbench.schemas.convert` the
    function, as it was when this package imported everything eagerly."""

    @property
    def convert(self) -> Any:
        return importlib.import_module(f"{__name__}.convert").convert

    @convert.setter
    def convert(self, value: Any) -> None:  # the import system binding the submodule: ignored
        pass


sys.modules[__name__].__class__ = _Package


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
