"""`report diff` on two library reports: a description change's effect on every neighbour,
paired by query, exact McNemar per skill (Holm across skills)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"
GREEDY = (
    "description: >-\n  Drafts release announcements and CHANGELOG.md entries for a new version from "
    "merged pull requests and commits: what changed in the release, sprint fixes, Added, Changed, "
    "Fixed, Removed, highlights and upgrade notes. Use when the user asks to update the changelog, "
    "summarise what changed or announce a release.\n"
)


def test_a_greedy_neighbour_shows_as_regressions_of_the_skill_it_steals_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = tmp_path / "lib"
    shutil.copytree(SAMPLE, library)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    common = ["--backend", "lexical", "--runs", "3", "--no-cache", "--embedder", "none"]
    main(["library", str(library), *common, "--out", str(a)])
    skill_md = library / "release-announcer" / "SKILL.md"
    text = skill_md.read_text()
    start, end = text.index("description:"), text.index("---", 4)
    skill_md.write_text(text[:start] + GREEDY + text[end:])
    main(["library", str(library), *common, "--out", str(b)])
    capsys.readouterr()
    assert main(["report", "diff", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "WARNING: the libraries differ" in out
    line = next(x for x in out.splitlines() if x.lstrip("✗!✓ ").startswith("changelog-writer:"))
    assert "−0" not in line and "McNemar p" in line  # it lost queries to its neighbour
    assert main(["report", "diff", str(a), str(a)]) == 0
