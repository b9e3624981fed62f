"""The validation report's one-line verdict and header: invalid skills named first."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillbench.reports.header import HeaderInputs, ReportHeader, Verdict, make_header
from skillbench.schemas.validation import ValidationReport
from skillbench.validate.rules import _skill_label


def validate_verdict(
    reports: Sequence[ValidationReport], root: str | Path | None = None
) -> Verdict:
    """ "9 of 11 skills valid; 2 have errors: a (NAME_MISMATCH), b (...)"."""
    if not reports:
        return Verdict(ok=None, line="no skill folder found")
    invalid = [r for r in reports if not r.valid]
    warned = sum(1 for r in reports if r.warnings)
    tail = f"; {warned} with warnings" if warned else ""
    if not invalid:
        return Verdict(ok=True, line=f"all {len(reports)} skills valid{tail}")
    failures = [
        f"{_skill_label(r, root)}: " + ", ".join(sorted({f.code for f in r.errors}))
        for r in invalid
    ]
    named = "; ".join(failures[:3]) + (f"; and {len(invalid) - 3} more" if len(invalid) > 3 else "")
    line = (
        f"{len(reports) - len(invalid)} of {len(reports)} skills valid{tail}; "
        f"{len(invalid)} with errors: {named}"
    )
    return Verdict(ok=False, line=line, failures=failures)


def validate_header(
    reports: Sequence[ValidationReport], *, library: str | Path, profile: str
) -> ReportHeader:
    """The header of a library validation report."""
    return make_header(
        "Validate a skill library",
        validate_verdict(reports, root=library),
        HeaderInputs(
            skill=f"{len(reports)} skills under {library}",
            backend=None,
            harness=f"rules of the {profile} profile (no model)",
            skill_dir=library,
        ),
    )
