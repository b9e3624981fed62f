"""Scan one skill folder, or every skill of a library, with the rules of `rules.RULES`."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from skillbench.errors import InputError
from skillbench.scan.files import read_skill_files
from skillbench.scan.findings import ScanFinding, ScanReport, SkillScan
from skillbench.scan.rules import RULES, Ctx
from skillbench.scan.secrets import secret_settings
from skillbench.skill import SKILL_MD, find_skills


def scan_skill(folder: str | Path, label: str | None = None) -> SkillScan:
    """Every rule's findings in one skill folder, in file, line and rule order."""
    path = Path(folder)
    files, skipped = read_skill_files(path)
    ctx = Ctx(files)
    with secret_settings():
        findings = [
            ScanFinding(rule=rule.id, severity=rule.severity, file=hit.file, line=hit.line,
                        reason=hit.reason)
            for rule in RULES
            for hit in rule.check(ctx)
        ]  # fmt: skip
    findings.sort(key=lambda f: (f.file != SKILL_MD, f.file, f.line, f.rule))
    return SkillScan(skill=label or path.name, path=str(path), findings=findings, skipped=skipped)


def _label(folder: Path, root: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(folder), os.path.abspath(root))).as_posix()


def scan_path(path: str | Path) -> ScanReport:
    """A skill folder (it holds SKILL.md) or a library (skills further down); InputError when
    `path` is no folder or holds no skill."""
    root = Path(path)
    if not root.is_dir():
        why = "does not exist" if not os.path.lexists(root) else "is not a folder"
        raise InputError(f"{why}: give a skill folder or a library of skills", path=root)
    if os.path.lexists(root / SKILL_MD):
        return ScanReport(root=str(path), library=False, skills=[scan_skill(root)])
    skills = find_skills(root)
    if not skills:
        raise InputError("no skill folders (with a SKILL.md) found", path=root)
    with secret_settings():  # once for the library, not once per file
        scans = [scan_skill(folder, _label(folder, root)) for folder in skills]
    return ScanReport(root=str(path), library=True, skills=scans)


def _key(finding: ScanFinding) -> tuple[str, str, str]:
    """What makes a finding the same one on both sides of a change: not its line (an edit
    above it moves it)."""
    return (finding.rule, finding.file, finding.reason)


def new_findings(base: SkillScan | None, head: SkillScan) -> list[ScanFinding]:
    """The head's findings that the base does not have (each base finding cancels one)."""
    left = Counter(_key(f) for f in base.findings) if base is not None else Counter()
    new: list[ScanFinding] = []
    for finding in head.findings:
        if left[_key(finding)]:
            left[_key(finding)] -= 1
        else:
            new.append(finding)
    return new
