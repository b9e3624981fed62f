"""JSON with comments and trailing commas, as opencode (`opencode.jsonc`) and Gemini CLI
(`settings.json`) read their configuration: `//` and `/* */` comments outside strings are
dropped, so is a comma before `}` or `]`; the rest is plain JSON."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from typing import Any


def loads_jsonc(text: str) -> Any:
    """The value of a JSONC document; `ValueError` when it is not one."""
    return json.loads(_plain(text))


def jsonc_object(rel: str, text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The JSONC object of the configuration file `rel`, or None with the one note saying why
    it is left out whole (not JSON with comments, or not an object)."""
    try:
        data: Any = loads_jsonc(text)
    except ValueError:
        return None, [f"{rel}: left out (not JSON with comments)"]
    if not isinstance(data, dict):
        return None, [f"{rel}: left out (not a JSON object)"]
    return data, []


def kept_items(
    rel: str,
    data: Mapping[str, Any],
    kept: Collection[str],
    left_out: Mapping[str, str],
    notes: list[str],
    why: str = "not a key the capture keeps",
) -> Iterator[tuple[str, Any]]:
    """The (key, value) pairs of `data` whose key is `kept`, in order; for every other key one
    note in `notes` (its reason from `left_out`, else `why`), in the same order."""
    for key, value in data.items():
        if key in kept:
            yield key, value
        else:
            notes.append(f"{rel}: {key} left out ({left_out.get(key, why)})")


def _plain(text: str) -> str:
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == '"':
            end = _string_end(text, index)
            out.append(text[index:end])
            index = end
        elif text.startswith("//", index):
            newline = text.find("\n", index)
            index = size if newline < 0 else newline
        elif text.startswith("/*", index):
            close = text.find("*/", index + 2)
            if close < 0:
                raise ValueError("unterminated comment")
            index = close + 2
        elif char == ",":
            ahead = index + 1
            while True:  # skip blanks and comments to see what the comma precedes
                while ahead < size and text[ahead].isspace():
                    ahead += 1
                if text.startswith("//", ahead):
                    newline = text.find("\n", ahead)
                    ahead = size if newline < 0 else newline
                elif text.startswith("/*", ahead):
                    close = text.find("*/", ahead + 2)
                    ahead = size if close < 0 else close + 2
                else:
                    break
            if ahead >= size or text[ahead] not in "}]":
                out.append(char)
            index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    index = start + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
        elif text[index] == '"':
            return index + 1
        else:
            index += 1
    raise ValueError("unterminated string")
