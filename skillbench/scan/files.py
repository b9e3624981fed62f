"""A skill's files as the scan reads them: text, decoded once, and what kind each file is."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillbench.skill import SKILL_MD, iter_files

FileKind = Literal["instructions", "script", "other"]

INSTRUCTION_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".txt", ".rst"})
"""Files an agent reads as instructions: SKILL.md and the references beside it."""
SCRIPT_SUFFIXES = frozenset(
    {".sh", ".bash", ".zsh", ".fish", ".ksh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb",
     ".pl", ".php", ".lua", ".ps1", ".psm1", ".bat", ".cmd"}
)  # fmt: skip
"""Files an agent runs (a file starting with ``#!`` is a script too)."""
MAX_SCANNED_BYTES = 2 * 1024 * 1024
BINARY_PROBE = 8192


@dataclass(frozen=True)
class SkillFile:
    """One text file of a skill: its path relative to the skill folder, its text, its kind."""

    rel: str
    path: Path
    text: str
    kind: FileKind

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


def _kind(rel: str, text: str) -> FileKind:
    suffix = os.path.splitext(rel)[1].lower()
    if rel == SKILL_MD or suffix in INSTRUCTION_SUFFIXES:
        return "instructions"
    if suffix in SCRIPT_SUFFIXES or text.startswith("#!"):
        return "script"
    return "other"


def read_skill_files(folder: Path) -> tuple[list[SkillFile], list[str]]:
    """The skill's text files (links never followed), and the files skipped with why."""
    files: list[SkillFile] = []
    skipped: list[str] = []
    for rel in sorted(iter_files(folder)):
        path = folder / rel
        if path.is_symlink() or not path.is_file():
            continue
        size = path.stat().st_size
        if size > MAX_SCANNED_BYTES:
            skipped.append(f"{rel}: larger than {MAX_SCANNED_BYTES // (1024 * 1024)} MB")
            continue
        raw = path.read_bytes()
        if b"\x00" in raw[:BINARY_PROBE]:
            skipped.append(f"{rel}: binary")
            continue
        text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
        files.append(SkillFile(rel, path, text, _kind(rel, text)))
    return files, skipped
