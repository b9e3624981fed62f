"""A library's skills, their trigger eval sets, and its queries merged across them.

Skills are found as `--catalog DIR` finds them (`trigger.catalog.load_skill_dirs`: every skill
folder under the library, as Claude Code would load it). A skill's eval set is, first found:
`--evals DIR/<skill-name>.trigger.json`, `<skill>/evals/trigger.json`, the one
`*.trigger.json` in `<skill>/evals/` or `<skill>/` (several: the one named `<skill-name>.trigger.json`).
A skill without one is listed as untested, never silently skipped.

A query text appears once however many eval sets hold it: its row is the skill it is a positive
of (`expected`), or none when every set that holds it says "should not trigger".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillbench.backends.base import SkillEntry
from skillbench.backends.skill_install import cli_name
from skillbench.errors import InputError
from skillbench.library.document import SkillEvals
from skillbench.trigger.catalog import catalog_hash, entry_for
from skillbench.trigger.evalset import file_sha256, load_eval_set

EVALS_OPTION = "--evals"


@dataclass
class LibraryQuery:
    """One query text of the library: the skills it is a positive and a negative of."""

    text: str
    positive_of: list[str] = field(default_factory=list)
    negative_of: list[str] = field(default_factory=list)

    @property
    def expected(self) -> str | None:
        """The skill it was written for (the first, by name, when several claim it)."""
        return sorted(self.positive_of)[0] if self.positive_of else None

    @property
    def target(self) -> str:
        """The skill whose fires are this query's hits: the expected one, else the first skill
        whose set holds it as a negative (`--runs auto` settles that skill's rate)."""
        return self.expected or sorted(self.negative_of)[0]

    @property
    def sources(self) -> list[str]:
        return [f"{s}:+" for s in sorted(self.positive_of)] + [
            f"{s}:-" for s in sorted(self.negative_of)
        ]


@dataclass
class Library:
    """The skills of a library folder (sorted by name) and their queries."""

    root: Path
    entries: list[SkillEntry]
    evals: list[SkillEvals]
    queries: list[LibraryQuery]
    warnings: list[str]

    @property
    def sha256(self) -> str:
        return catalog_hash(self.entries)

    @property
    def untested(self) -> list[str]:
        return [e.name for e in self.evals if e.evals_file is None]


def find_evals(skill: SkillEntry, evals_dir: Path | None) -> Path | None:
    """The trigger eval set of one skill (see the module docstring), or None."""
    if evals_dir is not None:
        named = evals_dir / f"{skill.name}.trigger.json"
        if named.is_file():
            return named
    if skill.folder is None:
        return None
    folder = Path(skill.folder)
    fixed = folder / "evals" / "trigger.json"
    if fixed.is_file():
        return fixed
    for where in (folder / "evals", folder):
        found = sorted(p for p in where.glob("*.trigger.json") if p.is_file())
        if len(found) == 1:
            return found[0]
        if found:
            named = where / f"{skill.name}.trigger.json"
            if named in found:
                return named
            raise InputError(
                f"several trigger eval sets ({', '.join(p.name for p in found)}); name one "
                f"{skill.name}.trigger.json or give --evals DIR",
                path=where,
            )
    return None


def library_entries(base: Path) -> list[SkillEntry]:
    """Every skill folder under `base` as Claude Code loads it, sorted by name; refused when
    two share a name (the catalog would keep one and drop the other with its eval set) or an
    install folder name (Claude Code installs one folder per name: the other would be reported
    but never installed)."""
    from skillbench.skill import find_skills, load_as_claude_code

    entries: list[SkillEntry] = []
    by_name: dict[str, str] = {}
    by_folder: dict[str, str] = {}
    for folder in find_skills(base):
        entry = entry_for(load_as_claude_code(folder, base)[0])
        where = str(entry.folder)
        for seen, key, what in (
            (by_name, entry.name, "skill name"),
            (by_folder, cli_name(entry), "folder name"),
        ):
            if key in seen:
                raise InputError(
                    f"two skills share the {what} {key!r}: {seen[key]} and {where}; Claude Code "
                    "would load only one of them (rename one, or route the two in separate "
                    "libraries)",
                    path=base,
                )
            seen[key] = where
        entries.append(entry)
    return sorted(entries, key=lambda e: e.name)


def load_library(root: str | Path, *, evals_dir: str | Path | None = None) -> Library:
    """Read the library folder, every skill's eval set, and merge the queries (no model call)."""
    base = Path(root)
    if not base.is_dir():
        raise InputError("library folder not found", path=base)
    folder = None if evals_dir is None else Path(evals_dir)
    if folder is not None and not folder.is_dir():
        raise InputError("folder not found", path=EVALS_OPTION, field=str(folder))
    entries = library_entries(base)
    if not entries:
        raise InputError("no skill folder (SKILL.md) found under the library", path=base)
    evals: list[SkillEvals] = []
    by_text: dict[str, LibraryQuery] = {}
    warnings: list[str] = []
    for entry in entries:
        path = find_evals(entry, folder)
        record = SkillEvals(name=entry.name, folder=entry.folder)
        if path is not None:
            items = load_eval_set(path)
            record.evals_file, record.evals_sha256 = str(path), file_sha256(path)
            record.positives = sum(1 for q in items if q.should_trigger)
            record.negatives = len(items) - record.positives
            for item in items:
                query = by_text.setdefault(item.text, LibraryQuery(item.text))
                (query.positive_of if item.should_trigger else query.negative_of).append(entry.name)
        evals.append(record)
    queries = list(by_text.values())
    for query in queries:
        if len(query.positive_of) > 1:
            warnings.append(
                f"query {query.text[:60]!r} is a should-trigger query of "
                f"{', '.join(sorted(query.positive_of))}: counted for {query.expected}"
            )
        if query.expected and query.expected in query.negative_of:
            warnings.append(
                f"query {query.text[:60]!r} is both a should-trigger and a should-not-trigger "
                f"query of {query.expected}: counted as should-trigger"
            )
    return Library(base, entries, evals, queries, warnings)


def without_evals(names: Sequence[str]) -> str | None:
    """The line that names the untested skills, or None."""
    if not names:
        return None
    shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    return (
        f"{len(names)} skill(s) have no trigger eval set and are untested (they are still "
        f"installed and can steal other skills' queries): {shown}"
    )
