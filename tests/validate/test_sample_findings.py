"""The real validator finds exactly the defects data/README.md documents for each sample skill."""

from __future__ import annotations

from pathlib import Path

from test_data import EXPECTED

from skillbench.validate.rules import validate_library

SKILLS = Path(__file__).resolve().parents[2] / "data" / "skills"


def test_validator_finds_exactly_the_documented_codes() -> None:
    reports = validate_library(SKILLS)
    found = {Path(r.skill_path).name: {f.code for f in [*r.errors, *r.warnings]} for r in reports}
    assert found == EXPECTED


def test_catalog_skills_are_all_clean() -> None:
    reports = validate_library(SKILLS.parent / "catalog")
    assert len(reports) >= 15
    dirty = {
        Path(r.skill_path).name: r.errors + r.warnings for r in reports if r.errors or r.warnings
    }
    assert dirty == {}
