"""The header every report opens with: what it is about, how it was made, and its verdict.

A `ReportHeader` names the skill, the eval set (path and sha256), the backend, the harness and
model (and the CLI version and what the model was shown, when known), the catalog of competing
skills (source, count, sha256), the runs, the date, the skill repository's commit (with a dirty
flag), skillbench's version and commit, and a one-line verdict. Numbers that come from
recorded fixtures (hand-written SAMPLE runs) say so in `recorded`. The question packages build the verdict
(`skillbench.trigger.verdict`, `skillbench.improve.adopt`, `skillbench.behavior.verdicts`); this
module only holds the model and renders it (HTML for reports, plain lines for the CLI).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from skillbench.backends.claude_cli.tested import untested_warning
from skillbench.gitinfo import run_git
from skillbench.reports.paths import project_root
from skillbench.schemas.cost import CostBlock, cost_summary
from skillbench.schemas.display import mark
from skillbench.schemas.report import ReportHeader
from skillbench.schemas.trigger import CatalogInfo
from skillbench.version import __version__

__all__ = [
    "HEADER_NAME",
    "HEADER_OUTPUT_KEY",
    "ReportHeader",
    "Verdict",
    "catalog_text",
    "commit_state",
    "file_sha256",
    "header_html",
    "header_lines",
    "make_header",
    "mark",
    "skill_commit_state",
    "yes_no",
]

HEADER_NAME = "header.json"
HEADER_OUTPUT_KEY = "skillbench_header"
"""Metadata key of the header's display output inside a notebook (the runner moves it first)."""
MAX_FAILURES_SHOWN = 5


@dataclass(frozen=True)
class Verdict:
    """One question's answer: passed or not (None: no yes/no answer), the one-line sentence,
    and the failures to list first."""

    ok: bool | None
    line: str
    failures: list[str] = field(default_factory=list)


def yes_no(value: bool | None) -> str:
    """yes / no / – (never True/False)."""
    return "–" if value is None else ("yes" if value else "no")


def file_sha256(path: str | Path | None) -> str | None:
    """Hex sha256 of a file, None when there is no such file."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def commit_state() -> tuple[str | None, bool | None]:
    """(HEAD commit, dirty flag) of the project checkout; (None, None) outside git."""
    root = project_root() or Path.cwd()
    commit = run_git(root, "rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = run_git(root, "status", "--porcelain", "--untracked-files=no")
    return commit.strip(), None if status is None else bool(status.strip())


def skill_commit_state(skill_dir: str | Path | None) -> tuple[str | None, bool | None]:
    """(HEAD commit, dirty flag) of the git repository holding the skill folder, the dirty flag
    counting changes (untracked files included) inside that folder only; (None, None) when the
    folder is not in a git repository."""
    if skill_dir is None or not Path(skill_dir).is_dir():
        return None, None
    folder = Path(skill_dir)
    commit = run_git(folder, "rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = run_git(folder, "status", "--porcelain", "--", ".")
    return commit.strip(), None if status is None else bool(status.strip())


def catalog_text(info: CatalogInfo) -> str:
    """ "data/catalog: 20 skills, sha256 4f53cda18c2b" (the catalog row of a header)."""
    count = len(info.skills)
    digest = f", sha256 {info.sha256[:12]}" if info.sha256 else ""
    return f"{info.source}: {count} skill{'' if count == 1 else 's'}{digest}"


@dataclass(frozen=True, kw_only=True)
class HeaderInputs:
    """What a report's header states about its inputs and how they were measured (every field
    optional; a None is left out of the header)."""

    skill: str | None = None
    """The skill's name or folder."""
    eval_set: str | Path | None = None
    """The eval set's file (its sha256 is stamped)."""
    skill_dir: str | Path | None = None
    """The skill's folder: its repository's commit is stamped."""
    catalog: CatalogInfo | None = None
    """The competing catalog (source, count, digest)."""
    backend: str | None = None
    harness: str | None = None
    model: str | None = None
    cli_version: str | None = None
    """The Claude Code CLI's version (claude-code backend)."""
    listing: str | None = None
    """How the skill listing was built (trigger evals)."""
    runs: str | int | None = None
    recorded: str | None = None
    """Set when the report shows recorded (sample) data: what it is."""
    proxy: str | None = None
    """Set when the backend is a proxy for the real thing: what it stands in for."""
    cost: CostBlock | None = None


NO_INPUTS = HeaderInputs()


def make_header(title: str, verdict: Verdict, inputs: HeaderInputs = NO_INPUTS) -> ReportHeader:
    """A header stamped with now (UTC), skillbench's version and commit, the skill
    repository's commit (when `inputs.skill_dir` is given) and the eval set's hash."""
    i = inputs
    eval_set, catalog, cost, runs = i.eval_set, i.catalog, i.cost, i.runs
    commit, dirty = commit_state()
    skill_commit, skill_dirty = skill_commit_state(i.skill_dir)
    return ReportHeader(
        title=title,
        verdict=verdict.line,
        ok=verdict.ok,
        failures=list(verdict.failures),
        skill=i.skill,
        eval_set=None if eval_set is None else str(eval_set),
        eval_set_sha256=file_sha256(eval_set) if eval_set is not None else None,
        backend=i.backend,
        harness=i.harness,
        model=i.model,
        cli_version=i.cli_version,
        cli_untested=untested_warning(i.cli_version),
        listing=i.listing,
        catalog=catalog_text(catalog) if catalog is not None else None,
        catalog_sha256=catalog.sha256 if catalog is not None else None,
        runs=None if runs is None else str(runs),
        date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        skill_commit=skill_commit,
        skill_dirty=skill_dirty,
        tool_version=__version__,
        commit=commit,
        dirty=dirty,
        recorded=i.recorded,
        proxy=i.proxy,
        cost=cost_summary(cost) if cost is not None else None,
        cost_detail=cost,
    )


def header_lines(header: ReportHeader, *, failures: bool = True) -> list[str]:
    """The header as plain text lines (the CLI prints these); `failures=False` leaves out the
    list of failures (for a CLI that prints them in its own table right after)."""
    lines = [f"{mark(header.ok)} {header.title}: {header.verdict}"]
    if header.recorded:
        lines.append(f"  RECORDED FIXTURES: {header.recorded}")
    if header.proxy:
        lines.append(f"  NOT CLAUDE: {header.proxy}")
    if header.cli_untested:
        lines.append(f"  {header.cli_untested}")
    lines += [f"  {key}: {value}" for key, value in header.rows()]
    shown = header.failures[:MAX_FAILURES_SHOWN] if failures else []
    if shown:
        lines.append("  failures:")
        lines += [f"    ✗ {item}" for item in shown]
        if len(header.failures) > len(shown):
            lines.append(f"    … and {len(header.failures) - len(shown)} more")
    return lines


def header_html(header: ReportHeader) -> str:
    """The header as an HTML block (every value escaped): verdict first, then the failures, then
    what the report is about (`ReportHeader._repr_html_`)."""
    return header._repr_html_()
