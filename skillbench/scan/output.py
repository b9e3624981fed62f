"""Printing scan results people read: one skill's findings, or a library's summary first."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from skillbench.scan.findings import ScanFinding, ScanReport, SkillScan
from skillbench.validate.output import printable


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def counts_text(findings: Sequence[ScanFinding]) -> str:
    """``E errors, W warnings``."""
    errors = sum(f.severity == "error" for f in findings)
    return f"{_plural(errors, 'error')}, {_plural(len(findings) - errors, 'warning')}"


def finding_line(finding: ScanFinding, prefix: str = "") -> str:
    """``  error    RULE  file:line  reason``."""
    where = f"{prefix}{finding.file}:{finding.line}"
    return (
        f"  {finding.severity:<7}  {finding.rule}  {printable(where)}  {printable(finding.reason)}"
    )


def skill_lines(scan: SkillScan, *, prefix: str = "") -> list[str]:
    """``skill: E errors, W warnings`` (or ``no findings``) then one line per finding."""
    if not scan.findings:
        return [f"{printable(scan.skill)}: no findings"]
    lines = [f"{printable(scan.skill)}: {counts_text(scan.findings)}"]
    lines.extend(finding_line(f, prefix) for f in scan.findings)
    return lines


def totals_line(report: ScanReport) -> str:
    """``N skills scanned: C clean, E with errors, W with warnings only (…)``."""
    skills = report.skills
    with_errors = sum(bool(s.errors) for s in skills)
    warned = sum(bool(s.findings) and not s.errors for s in skills)
    clean = len(skills) - with_errors - warned
    return (
        f"{_plural(len(skills), 'skill')} scanned: {clean} clean, {with_errors} with errors, "
        f"{warned} with warnings only ({counts_text(report.findings)})"
    )


def scan_line(report: ScanReport) -> str:
    """One line for another command's summary: ``Scan: …`` (the library command)."""
    return f"Scan: {totals_line(report)}"


def report_lines(report: ScanReport) -> list[str]:
    """One skill: its findings. A library: totals, the skills with errors (their rule ids),
    warning rules counted, then every skill with findings, finding by finding."""
    if not report.library:
        return skill_lines(report.skills[0])
    lines = [totals_line(report)]
    flagged = [s for s in report.skills if s.errors]
    if flagged:
        lines += ["", "with errors:"]
        width = min(max(len(s.skill) for s in flagged), 60)
        for scan in flagged:
            rules = ", ".join(dict.fromkeys(f.rule for f in scan.errors))
            lines.append(f"  {printable(scan.skill):<{width}}  {rules}")
    warned = Counter(r for s in report.skills for r in dict.fromkeys(f.rule for f in s.warnings))
    if warned:
        counted = ", ".join(f"{rule} ({n})" for rule, n in warned.most_common())
        lines += ["", f"warnings (skills per rule): {counted}"]
    for scan in report.skills:
        if scan.findings:
            lines += ["", *skill_lines(scan, prefix=f"{scan.skill}/")]
    return lines
