"""Helpers shared by the validator tests: build skill folders on disk."""

from __future__ import annotations

from pathlib import Path

GOOD_DESCRIPTION = "Formats CSV files into tables. Use when the user asks to tidy a CSV file."


def make_skill(
    root: Path,
    folder: str = "csv-tidy",
    frontmatter: str | None = None,
    body: str = "# CSV tidy\n\nSteps.\n",
    files: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> Path:
    """Create a skill folder; `frontmatter` is the YAML between the --- lines."""
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    if frontmatter is None:
        frontmatter = f"name: {folder}\ndescription: {GOOD_DESCRIPTION}\n"
    data = raw if raw is not None else f"---\n{frontmatter}---\n{body}".encode()
    (path / "SKILL.md").write_bytes(data)
    for rel, text in (files or {}).items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return path
