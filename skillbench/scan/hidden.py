"""Invisible text: characters an agent reads but a reviewer does not see.

Unicode tag characters (U+E0000–U+E007F) are invisible copies of ASCII: they are decoded and
shown. Bidi controls (U+202A–U+202E, U+2066–U+2069) make the text displayed differ from the text
read; the line is shown with each control spelled out. Zero-width characters (U+200B–U+200D,
U+FEFF past the start of a file) can carry bits; a run of zero-width spaces and non-joiners is
decoded as bits (U+200B = 0, U+200C = 1) when that gives printable ASCII. A lone joiner or
non-joiner between two non-ASCII characters (an emoji sequence, Persian or Indic script) is
ordinary text and not reported.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

HiddenKind = Literal["tag", "bidi", "zero-width"]

TAG_RE = re.compile("[\U000e0000-\U000e007f]+")
BIDI_RE = re.compile("[\u202a-\u202e\u2066-\u2069]+")
ZERO_WIDTH_RE = re.compile("[\u200b-\u200d\ufeff]+")
MAX_SHOWN = 160


@dataclass(frozen=True)
class HiddenRun:
    """One run of invisible characters: its kind, 1-based line and what it hides."""

    kind: HiddenKind
    line: int
    shown: str


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def decode_tags(run: str) -> str:
    """The ASCII a run of tag characters copies (language tag and cancel tag dropped)."""
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


def spell_out(text: str) -> str:
    """`text` with every invisible character written as ``<U+XXXX>``."""
    return re.sub(
        "[\u200b-\u200d\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]",
        lambda m: f"<U+{ord(m.group()):04X}>",
        text,
    )


def decode_bits(run: str) -> str | None:
    """Printable ASCII carried by a run of U+200B (0) and U+200C (1), else None."""
    if len(run) < 8 or set(run) - {"\u200b", "\u200c"}:
        return None
    bits = "".join("1" if c == "\u200c" else "0" for c in run)
    chars = [chr(int(bits[i : i + 8], 2)) for i in range(0, len(bits) - 7, 8)]
    decoded = "".join(chars)
    return decoded if decoded and all(" " <= c <= "~" for c in decoded) else None


def _ordinary_joiner(text: str, start: int, end: int) -> bool:
    """A single ZWJ/ZWNJ between two non-ASCII characters (emoji sequences, scripts)."""
    if end - start != 1 or text[start] not in "\u200c\u200d":
        return False
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    return before > "\x7f" and after > "\x7f"


def _line_text(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start : len(text) if end < 0 else end].strip()


def hidden_runs(text: str) -> list[HiddenRun]:
    """Every run of tag, bidi or zero-width characters in `text`, in order."""
    runs: list[HiddenRun] = []
    for match in TAG_RE.finditer(text):
        shown = f"hidden text {_cut(decode_tags(match.group()))!r}"
        runs.append(HiddenRun("tag", _line_of(text, match.start()), shown))
    bidi_lines: dict[int, tuple[int, list[str]]] = {}  # one finding per line
    for match in BIDI_RE.finditer(text):
        line = _line_of(text, match.start())
        names = bidi_lines.setdefault(line, (match.start(), []))[1]
        names.extend(f"U+{ord(c):04X} {unicodedata.name(c, '')}" for c in match.group())
    for line, (offset, names) in bidi_lines.items():
        listed = ", ".join(dict.fromkeys(names))
        shown = f"{listed}; the line as read: {_cut(spell_out(_line_text(text, offset)))!r}"
        runs.append(HiddenRun("bidi", line, shown))
    for match in ZERO_WIDTH_RE.finditer(text):
        start, end = match.span()
        if (start == 0 and match.group() == "\ufeff") or _ordinary_joiner(text, start, end):
            continue
        bits = decode_bits(match.group())
        what = f"{end - start} zero-width character{'s' if end - start > 1 else ''}"
        shown = (
            f"{what} encoding {bits!r}"
            if bits
            else f"{what}; the line as read: {_cut(spell_out(_line_text(text, start)))!r}"
        )
        runs.append(HiddenRun("zero-width", _line_of(text, start), shown))
    return sorted(runs, key=lambda r: r.line)
