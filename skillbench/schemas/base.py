"""The base model every persisted skillbench document derives from."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_serializer
from pydantic_core.core_schema import SerializerFunctionWrapHandler


class Document(BaseModel):
    """A JSON document skillbench reads or writes.

    Unknown keys are kept (``extra="allow"``) so foreign files round-trip; `schema check` reports
    them as warnings. Fields named in ``omit_if_none`` are left out of the output when they are
    None (optional keys a dialect may omit); every other None is written as JSON ``null``.
    """

    model_config = ConfigDict(populate_by_name=True, extra="allow", validate_assignment=False)

    omit_if_none: ClassVar[frozenset[str]] = frozenset()
    extension_keys: ClassVar[frozenset[str]] = frozenset({"skillbench"})
    """Extra keys skillbench itself adds to a foreign dialect's document (documented in
    docs/formats.md): kept like any unknown key, but `schema check` does not warn about them."""

    @model_serializer(mode="wrap")
    def _drop_omitted_nones(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and self.omit_if_none:
            omitted = _omitted_keys(type(self))
            data = {k: v for k, v in data.items() if not (v is None and k in omitted)}
        return data

    def to_json_dict(self) -> dict[str, Any]:
        """The document as plain JSON data, with the dialect's own key names."""
        data = self.model_dump(mode="json", by_alias=True)
        assert isinstance(data, dict)
        return data


_OMITTED: dict[type[Document], tuple[frozenset[str], frozenset[str]]] = {}


def _omitted_keys(cls: type[Document]) -> frozenset[str]:
    """The keys `cls` leaves out when None (its `omit_if_none` by name and by alias), worked out
    once per class (again only if its `omit_if_none` is replaced), not once per document
    written (a library report holds ~100,000)."""
    known = _OMITTED.get(cls)
    if known is not None and known[0] is cls.omit_if_none:
        return known[1]
    aliases = {
        name: (field.serialization_alias or field.alias or name)
        for name, field in cls.model_fields.items()
    }
    keys = frozenset({aliases.get(name, name) for name in cls.omit_if_none}) | cls.omit_if_none
    _OMITTED[cls] = (cls.omit_if_none, keys)
    return keys
