"""The docs describe the repository as it is: every module has a row in the architecture map,
and no page cites a design or notes file that is not in the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CITED_FILE = re.compile(r"\b([A-Z][A-Z0-9_-]{2,}\.md)\b")
"""Design-note style names (DESIGN.md, FIELD-NOTES.md, ...): a reader must be able to open them."""
OUTSIDE_NOTES = ("FIELD-NOTES", "DESIGN.md")
AGENT_FILES = frozenset(
    {"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "AGENT.md", "GEMINI.md"}
)
"""Files of the user's project that an agent reads (`--project`), not design notes of ours."""


def _present() -> set[str]:
    skipped = {".venv", ".tools", ".git", "node_modules"}
    return {p.name for p in ROOT.rglob("*.md") if not skipped & set(p.parts)}


def _pages() -> list[Path]:
    return [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]


def test_docs_cite_no_design_file_missing_from_the_repository() -> None:
    present = _present()
    missing = {
        f"{page.relative_to(ROOT)}: {name}"
        for page in _pages()
        for name in CITED_FILE.findall(page.read_text(encoding="utf-8"))
        if name not in present and name not in AGENT_FILES
    }
    notes = {
        f"{page.relative_to(ROOT)}: {word}"
        for page in _pages()
        for word in OUTSIDE_NOTES
        if word in page.read_text(encoding="utf-8")
    }
    assert not missing | notes, sorted(missing | notes)


def test_the_architecture_map_names_every_module() -> None:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(\w+\.py)\b", text)) | {
        f"{name}.py" for group in re.findall(r"\{([\w,]+)\}\.py", text) for name in group.split(",")
    }
    modules = {
        p.name
        for p in (ROOT / "skillbench").rglob("*.py")
        if p.name not in {"__init__.py", "__main__.py"} and not p.parent.name.startswith("_")
    }
    assert modules - named == set(), sorted(modules - named)
