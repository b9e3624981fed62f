#!/usr/bin/env python3
"""Print the skill frontmatter keys a Claude Code binary knows, as JSON.

Claude Code (2.1.3xx, a native binary) embeds the zod schema of a skill's frontmatter that its
own unknown-key check uses: `name: ….optional().describe("Display name. …")`, …,
`when_to_use: ….describe("Guidance for when the model should reach for this skill…")`, …
This reads that schema's keys (a key whose description starts with `@internal` is marked so) up
to the next schema (the agent's, "Agent identifier"). Used by `scripts/move-claude-pin.sh` and
`tests/validate/test_claude_code_keys.py` to compare with the claude-code profile's keys in
`skillbench/backends/claude_cli/skill_keys.py`.

Usage: claude_skill_keys.py PATH-TO-CLAUDE-BINARY
Exit 2 when the file cannot be read or holds no such schema.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import sys

SKILL_MARK = b"Guidance for when the model should reach for this skill"
NAME_MARK = b"Display name. Defaults to the filename without extension"
END_MARK = b"Agent identifier. Required"
KEY = re.compile(r'[{,]("?[A-Za-z_][\w-]*"?):(?:(?!\.describe\().){0,80}?\.describe\("(@internal)?')


def skill_keys(binary: str) -> list[tuple[str, bool]]:
    """(key, internal) pairs of the skill frontmatter schema in `binary`, in schema order."""
    with open(binary, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as m:
        for found in re.finditer(re.escape(SKILL_MARK), m):
            start = m.rfind(NAME_MARK, 0, found.start())
            end = m.find(END_MARK, found.start())
            if start < 0 or end < 0 or found.start() - start > 20_000 or end - start > 40_000:
                continue
            head = m.rfind(b"name:", 0, start)
            tail = m.rfind(b"name:", 0, end)  # the agent schema's first key
            text = m[head - 1 : tail].decode("utf-8", "replace")
            keys = [(k.strip('"'), bool(internal)) for k, internal in KEY.findall(text)]
            if keys:
                return keys
    return []


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not os.path.isfile(argv[0]):
        print("usage: claude_skill_keys.py PATH-TO-CLAUDE-BINARY (a file)", file=sys.stderr)
        return 2
    keys = skill_keys(argv[0])
    if not keys:
        print(f"{argv[0]}: no skill frontmatter schema found", file=sys.stderr)
        return 2
    json.dump([{"key": k, "internal": i} for k, i in keys], sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
