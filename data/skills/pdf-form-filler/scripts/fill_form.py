#!/usr/bin/env python3
"""List or fill the fields of an AcroForm PDF with pypdf.

Usage:
  fill_form.py list FORM.pdf
  fill_form.py fill FORM.pdf VALUES.json OUTPUT.pdf [--flatten]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pypdf import PdfReader, PdfWriter


def list_fields(form: Path) -> int:
    """Print each field's name, type, value and allowed states."""
    fields = PdfReader(form).get_fields() or {}
    if not fields:
        print("no form fields (not an AcroForm, or an XFA-only form)")
        return 1
    for name, field in fields.items():
        kind = field.get("/FT", "?")
        value = field.get("/V", "")
        states = field.get("/_States_", [])
        extra = f" states={list(states)}" if states else ""
        print(f"{name}\t{kind}\tvalue={value!s}{extra}")
    return 0


def fill(form: Path, values_file: Path, output: Path, flatten: bool) -> int:
    """Write a filled copy of the form; the original is never modified."""
    if output.resolve() == form.resolve():
        print("refusing to overwrite the original form", file=sys.stderr)
        return 2
    values = json.loads(values_file.read_text(encoding="utf-8"))
    reader = PdfReader(form)
    known = set((reader.get_fields() or {}).keys())
    unknown = sorted(set(values) - known)
    if unknown:
        print(f"unknown field names: {unknown}", file=sys.stderr)
        return 2
    writer = PdfWriter(clone_from=reader)
    writer.set_need_appearances_writer(True)
    for page in writer.pages:
        writer.update_page_form_field_values(page, values, auto_regenerate=False, flatten=flatten)
    with output.open("wb") as handle:
        writer.write(handle)
    print(f"wrote {output} ({len(values)} values)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list")
    p_list.add_argument("form", type=Path)
    p_fill = sub.add_parser("fill")
    p_fill.add_argument("form", type=Path)
    p_fill.add_argument("values", type=Path)
    p_fill.add_argument("output", type=Path)
    p_fill.add_argument("--flatten", action="store_true")
    args = parser.parse_args()
    if args.command == "list":
        return list_fields(args.form)
    return fill(args.form, args.values, args.output, args.flatten)


if __name__ == "__main__":
    sys.exit(main())
