"""The validation report's verdict names the invalid skills and their error codes."""

from __future__ import annotations

from pathlib import Path

from skillbench.validate.rules import validate_library
from skillbench.validate.verdict import validate_header, validate_verdict

DATA = Path(__file__).resolve().parents[2] / "data" / "skills"


def test_verdict_names_invalid_skills_with_codes() -> None:
    reports = validate_library(DATA)
    verdict = validate_verdict(reports)
    invalid = [r for r in reports if not r.valid]
    assert verdict.ok is (not invalid)
    assert verdict.line.startswith(f"{len(reports) - len(invalid)} of {len(reports)} skills valid")
    for report in invalid:
        name = Path(report.skill_path).name
        assert any(f.startswith(f"{name}: ") for f in verdict.failures)
        assert report.errors[0].code in verdict.line or len(invalid) > 3
    header = validate_header(reports, library=DATA, profile="claude-code")
    assert header.harness == "rules of the claude-code profile (no model)"
    assert validate_verdict([]).ok is None
