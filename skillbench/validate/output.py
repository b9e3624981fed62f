"""Printing validation results people read: a library summary, details, GitHub annotations.

A library of 864 skills must not print 8,000 lines: `summary_lines` gives one totals line, then
the invalid skills first (one line each, with their error codes), then the warning codes
counted; `detail_lines` lists every finding (``--verbose``). `github_annotations` turns findings
into GitHub Actions workflow commands (``::error file=…,line=…::…``) so CI shows them on the
pull request, with the line of the frontmatter key (or body heading) a finding is about.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillbench.reports.ci import escape_data, escape_property
from skillbench.schemas.validation import Finding, ValidationReport
from skillbench.skill import SKILL_MD

KEY_OF_CODE: dict[str, str] = {
    "NAME_": "name",
    "DESCRIPTION_": "description",
    "COMPATIBILITY_": "compatibility",
    "ALLOWED_TOOLS_": "allowed-tools",
    "MODEL_TYPE": "model",
    "HOOKS_TYPE": "hooks",
    "CONTEXT_FORK_NO_AGENT": "context",
    "AGENT_WITHOUT_FORK": "agent",
}
"""Code (or code prefix) → the frontmatter key whose line an annotation points at."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+when to use", re.IGNORECASE | re.MULTILINE)
MAX_SNIPPET_BYTES = 256 * 1024


def printable(text: str) -> str:
    """`text` with control characters shown as ``\\xNN``: a folder or file name must not drive
    the terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


@dataclass(frozen=True)
class Labelled:
    """A report and the path shown for it (relative to its library root, or as given)."""

    report: ValidationReport
    label: str


def relative_label(skill_path: str | Path, root: str | Path) -> str:
    """`skill_path` relative to `root`, in POSIX form ("." for the root itself)."""
    rel = os.path.relpath(os.path.abspath(skill_path), os.path.abspath(root))
    return Path(rel).as_posix()


def label_reports(reports: Iterable[ValidationReport], root: str | Path) -> list[Labelled]:
    """Label every report with its path relative to the library `root`."""
    return [Labelled(r, relative_label(r.skill_path, root)) for r in reports]


def _findings(report: ValidationReport) -> list[Finding]:
    return [*report.errors, *report.warnings]


def _unique(codes: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def totals_line(reports: Sequence[ValidationReport]) -> str:
    """``N skills: V valid, I invalid, W with warnings``."""
    invalid = sum(not r.valid for r in reports)
    warned = sum(bool(r.warnings) for r in reports)
    return (
        f"{_plural(len(reports), 'skill')}: {len(reports) - invalid} valid, {invalid} invalid, "
        f"{warned} with warnings"
    )


def summary_lines(
    items: Sequence[Labelled],
    *,
    verbose: bool = False,
    aliases: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """Totals (each skill once), the linked folders that are aliases of a listed skill
    (`aliases`: alias label, target label), then one line per invalid skill (its error codes),
    then warning codes counted; with `verbose` every skill with findings follows."""
    reports = [item.report for item in items]
    lines = [totals_line(reports)]
    if aliases:
        lines.append("")
        lines.append("aliases (linked folders, validated and counted once, as their target):")
        lines.extend(f"  {printable(alias)} -> {printable(target)}" for alias, target in aliases)
    invalid = [item for item in items if not item.report.valid]
    if invalid:
        lines.append("")
        lines.append("invalid:")
        width = min(max(len(item.label) for item in invalid), 60)
        for item in invalid:
            codes = ", ".join(_unique(f.code for f in item.report.errors))
            lines.append(f"  {printable(item.label):<{width}}  {codes}")
    warning_codes = Counter(code for r in reports for code in _unique(f.code for f in r.warnings))
    if warning_codes:
        lines.append("")
        counted = ", ".join(f"{code} ({n})" for code, n in warning_codes.most_common())
        lines.append(f"warnings (skills per code): {counted}")
    if verbose:
        for item in items:
            if _findings(item.report):
                lines.append("")
                lines.extend(detail_lines(item))
    elif invalid or warning_codes:
        lines.append("")
        lines.append("--verbose lists every finding; --format github prints CI annotations")
    return lines


def detail_lines(item: Labelled) -> list[str]:
    """``label: valid|invalid (…)`` then one indented line per finding."""
    report = item.report
    status = "valid" if report.valid else "invalid"
    counts = (
        f"{_plural(report.summary.error_count, 'error')}, "
        f"{_plural(report.summary.warning_count, 'warning')}"
    )
    lines = [f"{printable(item.label)}: {status} ({counts})"]
    lines.extend(f"  {f.level:<7}  {f.code}: {printable(f.message)}" for f in _findings(report))
    return lines


# ---------------------------------------------------------------------------------------------
# GitHub Actions annotations


_escape_data = escape_data  # the one escaper of workflow commands (reports/ci.py)
_escape_property = escape_property


def _read_text(path: Path) -> str:
    """The start of SKILL.md as text (for line numbers only); empty when unreadable."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_SNIPPET_BYTES)
    except OSError:
        return ""
    return raw.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _key_for(code: str, message: str) -> str | None:
    for prefix, key in KEY_OF_CODE.items():
        if code.startswith(prefix):
            return key
    if code == "UNKNOWN_KEYS":
        match = re.search(r": '?([^',]+)", message)
        return match.group(1) if match else None
    return None


def finding_line(text: str, finding: Finding) -> int:
    """The 1-based SKILL.md line a finding is about: its frontmatter key, the "When to use"
    heading, else line 1."""
    if finding.code == "WHEN_TO_USE_IN_BODY":
        match = _HEADING.search(text)
        return text.count("\n", 0, match.start()) + 1 if match else 1
    key = _key_for(finding.code, finding.message)
    if key:
        match = re.search(rf"^{re.escape(key)}[ \t]*:", text, re.MULTILINE)
        if match:
            return text.count("\n", 0, match.start()) + 1
    return 1


def github_annotations(
    reports: Iterable[ValidationReport], cwd: str | Path | None = None
) -> list[str]:
    """One ``::error``/``::warning`` workflow command per finding; file paths are relative to
    `cwd` (the checkout, by default the working directory) so GitHub places them on the diff."""
    base = os.path.abspath(cwd or os.getcwd())
    lines: list[str] = []
    for report in reports:
        findings = _findings(report)
        if not findings:
            continue
        skill_md = Path(report.skill_path) / SKILL_MD
        target = skill_md if os.path.isfile(skill_md) else Path(report.skill_path)
        text = _read_text(skill_md) if target == skill_md else ""
        file = Path(os.path.relpath(os.path.abspath(target), base)).as_posix()
        for finding in findings:
            line = finding_line(text, finding) if text else 1
            props = f"file={_escape_property(file)},line={line},title={finding.code}"
            message = _escape_data(f"{finding.code}: {finding.message}")
            lines.append(f"::{finding.level} {props}::{message}")
    return lines
