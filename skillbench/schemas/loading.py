"""detect / load / check / dump / write: files in, validated models out, errors as JSON paths."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, RootModel, ValidationError

from skillbench.errors import InputError
from skillbench.io import atomic_write_text, dumps_json, read_json
from skillbench.schemas.registry import Entry, Match, all_entries, match, model_entry


@dataclass
class LoadedDocument:
    """A validated document and what it is."""

    kind: str
    dialect: str
    model: BaseModel
    path: Path | None = None


@dataclass
class CheckResult:
    """The outcome of `check(path)`: errors make it invalid, warnings (unknown keys) do not."""

    path: str
    kind: str | None
    dialect: str | None
    valid: bool
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json` output."""
        return {
            "path": self.path,
            "kind": self.kind,
            "dialect": self.dialect,
            "valid": self.valid,
            "errors": self.errors,
            "warnings": self.warnings,
        }


def _known_fraction(data: Any, entry: Entry) -> float:
    if not isinstance(data, dict) or not data:
        return 1.0
    model = entry.model
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(info.alias or name)
    return len(set(data) & names) / len(data)


def _rank(data: Any, file_name: str | None) -> tuple[list[tuple[Any, Match]], list[Match]]:
    complete: list[tuple[Any, Match]] = []
    partial: list[Match] = []
    for entry in all_entries():
        found = match(data, entry)
        if found is None:
            continue
        if found.complete:
            by_name = 1 if file_name and file_name in entry.file_names else 0
            complete.append(((_known_fraction(data, entry), found.specificity, by_name), found))
        else:
            partial.append(found)
    complete.sort(key=lambda pair: pair[0], reverse=True)
    partial.sort(key=lambda m: (m.score, m.specificity), reverse=True)
    return complete, partial


def _detect_entry(data: Any, path: str | Path | None = None) -> Entry:
    file_name = Path(path).name if path is not None else None
    complete, partial = _rank(data, file_name)
    if complete:
        return complete[0][1].entry
    if not isinstance(data, dict | list):
        raise InputError(
            f"a {type(data).__name__} is not a skillbench document (expected an object or array)",
            path=path,
            rule="detect",
        )
    if partial:
        closest = partial[0]
        raise InputError(
            f"unrecognised document; closest kind is {closest.entry.kind} "
            f"({closest.entry.dialect}), which needs: {', '.join(closest.missing)}",
            path=path,
            rule="detect",
        )
    raise InputError("unrecognised document: an empty array or object", path=path, rule="detect")


def detect(data: Any, file_name: str | None = None) -> tuple[str, str]:
    """(kind, dialect) of plain JSON data, from its content; `file_name` only breaks ties."""
    entry = _detect_entry(data, file_name)
    return entry.kind, entry.dialect


def json_path(loc: tuple[str | int, ...], subpath: str = "") -> str:
    """('cases', 2, 'required') + 'x' → 'cases[2].required.x'."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in {"", "__root__"} or part.startswith("function-"):
            continue
        else:
            text += f".{part}" if text else str(part)
    if subpath:
        text = f"{text}.{subpath}" if text and not subpath.startswith("[") else text + subpath
    return text or "<root>"


def _model_names() -> set[str]:
    names: set[str] = set()
    pending: list[type[BaseModel]] = [BaseModel]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if sub.__name__ not in names:
                names.add(sub.__name__)
                pending.append(sub)
    return names


def _plain_loc(loc: tuple[str | int, ...], model_names: set[str]) -> tuple[str | int, ...]:
    # pydantic puts the union member or the root-model tag in the location; drop them
    cleaned: list[str | int] = []
    for part in loc:
        if isinstance(part, str) and (
            part.startswith(("function-", "tagged-union", "json-or-python"))
            or part in {"str", "int", "float", "bool", "list", "dict", "none"}
            or part.endswith("]")
            or part in model_names
        ):
            continue
        cleaned.append(part)
    return tuple(cleaned)


def format_errors(exc: ValidationError, model: type[BaseModel]) -> list[tuple[str, str, str]]:
    """(json path, message, rule) for each pydantic error, without the input values."""
    found: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    model_names = _model_names()
    for error in exc.errors(include_url=False, include_input=False):
        ctx = error.get("ctx") or {}
        loc = _plain_loc(tuple(error["loc"]), model_names)
        where = json_path(loc, str(ctx.get("subpath", "")))
        message = str(error["msg"])
        rule = str(ctx.get("rule") or error["type"])
        if message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        if error["type"] in {"int_type", "float_type"} and error["loc"][-1:] in {
            ("int",),
            ("float",),
        }:
            message, rule = "Input should be a number", "number_type"
        if (where, message) in seen:
            continue
        seen.add((where, message))
        found.append((where, message, rule))
    return found


def _validate(entry: Entry, data: Any) -> BaseModel:
    return entry.model.model_validate(data)


def from_data(data: Any, path: str | Path | None = None) -> LoadedDocument:
    """Detect and validate plain JSON data; InputError names the path, the field and the rule."""
    entry = _detect_entry(data, path)
    try:
        model = _validate(entry, data)
    except ValidationError as exc:
        errors = format_errors(exc, entry.model)
        where, message, rule = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InputError(
            f"invalid {entry.kind} ({entry.dialect}): {message}{more}",
            path=path,
            field=where,
            rule=rule,
        ) from None
    return LoadedDocument(entry.kind, entry.dialect, model, Path(path) if path else None)


def load(path: str | Path) -> LoadedDocument:
    """Read, detect and validate a JSON file."""
    return from_data(read_json(path), path)


def dump(model: BaseModel) -> Any:
    """The document as plain JSON data with the dialect's own keys (round-trips `load`)."""
    return model.model_dump(mode="json", by_alias=True)


def dumps(model: BaseModel) -> str:
    """Pretty JSON text of a document, with a trailing newline."""
    return dumps_json(dump(model))


def write(model: BaseModel, path: str | Path) -> Path:
    """Validate-by-construction and write atomically."""
    model_entry(model)  # only registered document models are written
    return atomic_write_text(path, dumps(model))


def _unknown_keys(value: Any, where: str = "") -> list[str]:
    found: list[str] = []
    if isinstance(value, RootModel):
        return _unknown_keys(value.root, where)
    if isinstance(value, BaseModel):
        known: frozenset[str] = getattr(type(value), "extension_keys", frozenset())
        for key in value.model_extra or {}:
            if key in known:
                continue
            found.append(f"{where + '.' if where else ''}{key}: unknown key (kept as is)")
        for name in type(value).model_fields:
            child = getattr(value, name)
            key = type(value).model_fields[name].alias or name
            found.extend(_unknown_keys(child, f"{where + '.' if where else ''}{key}"))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_unknown_keys(item, f"{where}[{index}]"))
    elif isinstance(value, dict):
        for key, item in value.items():
            found.extend(_unknown_keys(item, f"{where + '.' if where else ''}{key}"))
    return found


def check(path: str | Path) -> CheckResult:
    """Validate one file without raising for an invalid document.

    Unreadable files and undetectable content still raise InputError (exit 2 in the CLI).
    """
    data = read_json(path)
    entry = _detect_entry(data, path)
    result = CheckResult(str(path), entry.kind, entry.dialect, True)
    try:
        model = _validate(entry, data)
    except ValidationError as exc:
        result.valid = False
        result.errors = [f"{w}: {m} [{r}]" for w, m, r in format_errors(exc, entry.model)]
        return result
    result.warnings = _unknown_keys(model)
    soft = getattr(model, "soft_warnings", None)
    if callable(soft):
        result.warnings.extend(soft())
    return result
