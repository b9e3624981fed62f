#!/usr/bin/env python3
"""Profile a delimited text file without modifying it (standard library only).

Usage: python profile_csv.py FILE [--sample N]
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

ENCODINGS = ("utf-8", "cp1252", "latin-1")
DELIMITERS = ",;\t|"


def detect_encoding(raw: bytes) -> str:
    """Return "utf-8-sig" for a BOM, else the first candidate that decodes the whole file."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    for encoding in ENCODINGS:
        try:
            raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        return encoding
    return "latin-1"


def detect_delimiter(text: str) -> str:
    """Guess the delimiter; it must occur in the header line, whatever the sniffer says."""
    header = text.split("\n", 1)[0]
    try:
        found = csv.Sniffer().sniff(text[:8192], delimiters=DELIMITERS).delimiter
    except csv.Error:
        found = ""
    if found and found in header:
        return found
    counts = {d: header.count(d) for d in DELIMITERS}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--sample", type=int, default=3, help="example values per column")
    args = parser.parse_args()

    raw = args.file.read_bytes()
    encoding = detect_encoding(raw)
    text = raw.decode(encoding)
    delimiter = detect_delimiter(text)
    rows = list(csv.reader(text.splitlines(), delimiter=delimiter))
    if not rows:
        print("empty file")
        return 1
    header, body = rows[0], rows[1:]

    print(f"encoding:  {encoding}")
    print(f"delimiter: {delimiter!r}")
    print(f"rows:      {len(body)} (plus header)")
    ragged = [i + 2 for i, row in enumerate(body) if len(row) != len(header)]
    print(f"ragged:    {len(ragged)} rows {ragged[:10]}")
    counts = Counter(tuple(row) for row in body)
    print(f"duplicates: {sum(n - 1 for n in counts.values() if n > 1)} extra copies")
    print()
    for index, name in enumerate(header):
        values = [row[index].strip() for row in body if index < len(row)]
        filled = [v for v in values if v]
        examples = list(dict.fromkeys(filled))[: args.sample]
        print(f"{name!r}: {len(filled)}/{len(values)} filled, e.g. {examples}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
