"""How results look in Jupyter: one short line for `repr`, an escaped HTML box for `_repr_html_`.

A result object (a trigger report, a validation report, a loop summary, a benchmark, a grading
or comparison summary, a report header) prints one line of its key figures, never its whole
content, and renders in a notebook as a box: title, ✓/✗ verdict, a few labelled rows, and its key
table (at most `MAX_ROWS` rows). Every value is HTML-escaped: skill and model text can never
inject markup. Pure functions over plain values, so every layer may use them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

MAX_ROWS = 20
MAX_REPR = 240
MAX_CELL = 160
COLORS = {True: "#1a7f37", False: "#cf222e", None: "#57606a"}


def mark(value: bool | None) -> str:
    """✓ for true, ✗ for false, – for unknown."""
    return "–" if value is None else ("✓" if value else "✗")


def clip(text: object, limit: int = MAX_CELL) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def cell(value: Any) -> str:
    """A table cell as text: ✓/✗ for booleans, – for None, 3 decimals for floats."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return mark(value)
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value == value else "–"
    return clip(value)


def one_line(kind: str, text: str) -> str:
    """`Kind(text)`, at most `MAX_REPR` characters: what `repr` of a result prints."""
    return f"{kind}({clip(text, MAX_REPR - len(kind) - 2)})"


def table_html(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], *, max_rows: int = MAX_ROWS
) -> str:
    """An escaped HTML table of the first `max_rows` rows (how many more, said below it)."""
    esc = html.escape
    head = "".join(f'<th style="text-align:left">{esc(c)}</th>' for c in columns)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="text-align:left;vertical-align:top">{esc(cell(v))}</td>' for v in row
        )
        + "</tr>"
        for row in rows[:max_rows]
    )
    more = len(rows) - max_rows
    tail = f'<div style="color:#57606a">… and {more} more row(s)</div>' if more > 0 else ""
    return (
        f'<table class="sb-table" style="font-size:0.9em"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>{tail}"
    )


def box_html(
    title: str,
    verdict: str,
    ok: bool | None,
    rows: Sequence[tuple[str, str]],
    *,
    banners: Sequence[tuple[str, str, str]] = (),
    failures: Sequence[str] = (),
    max_failures: int = 5,
    table: str = "",
) -> str:
    """The header box: title, ✓/✗ verdict, banners (label, text, background), the first
    failures, labelled rows; then `table` (already escaped HTML) below it."""
    color = COLORS[ok]
    esc = html.escape
    parts = [
        '<div class="sb-header" style="border:1px solid #d0d7de;border-left:6px solid '
        f'{color};padding:0.6em 1em;margin:0 0 1em 0;font-family:sans-serif">',
        f'<div style="font-size:1.35em;font-weight:600">{esc(title)}</div>',
        f'<div class="sb-verdict" style="font-size:1.1em;color:{color};margin:0.3em 0">'
        f"{esc(mark(ok))} {esc(verdict)}</div>",
    ]
    for label, text, background in banners:
        parts.append(
            f'<div style="background:{background};padding:0.2em 0.5em;margin:0.3em 0">'
            f"<b>{esc(label)}:</b> {esc(text)}</div>"
        )
    if failures:
        shown = list(failures[:max_failures])
        items = "".join(f"<li>✗ {esc(item)}</li>" for item in shown)
        more = len(failures) - len(shown)
        if more > 0:
            items += f"<li>… and {more} more (see below)</li>"
        parts.append(f'<ul style="margin:0.3em 0;color:{COLORS[False]}">{items}</ul>')
    cells = "".join(
        f'<tr><th style="text-align:left;padding-right:1em;color:#57606a">{esc(k)}</th>'
        f"<td style='text-align:left'>{esc(v)}</td></tr>"
        for k, v in rows
    )
    parts.append(f'<table style="font-size:0.9em;margin-top:0.4em">{cells}</table></div>')
    return "".join(parts) + table
