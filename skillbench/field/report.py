"""`field report`: per skill, how often it is offered and how often it fires in real sessions.

Per skill: exposure (turns and sessions where it was listed, in full or by name only), the
proactive rate (turns where the model invoked it on its own, per exposed turn and per exposed
session, with Wilson intervals), slash share (user slashes among all its invocations by the
user or the model), late-slash misses (offered, not invoked, then `/skill` typed within a few
turns), starvation (share of exposures by name only) and a competition matrix (when A and B were
both offered and the model invoked A first, B not at all). An exposed turn excludes the turns
where the user slashed the skill itself: nothing was left for the model to decide. Verdicts are
given only from `floor` exposed turns up; below, the figures stand without one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from skillbench.field.load import LoadCounts, field_records
from skillbench.field.records import LATE_SLASH_TURNS, FieldRecord
from skillbench.reports.header import HeaderInputs, Verdict, make_header
from skillbench.schemas.base import Document
from skillbench.schemas.report import ReportHeader
from skillbench.schemas.trigger import Interval
from skillbench.stats import wilson_interval

DEFAULT_FLOOR = 20
"""Exposed turns below which a skill gets no verdict."""
STARVED_SHARE = 0.5
"""Name-only share of exposures from which a skill is called starved."""


class SkillField(Document):
    """One skill's field figures."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"verdict", "suppressed"})

    skill: str
    exposed_turns: int
    exposed_full: int
    exposed_name_only: int
    exposed_sessions: int
    proactive_turns: int
    proactive_rate: Interval
    proactive_sessions: int
    session_rate: Interval
    slash_turns: int
    slash_share: float | None = Field(description="user slashes / (slashes + proactive turns)")
    late_slash_misses: int
    starvation: float | None = Field(description="name-only share of exposed turns")
    nested: int
    attributed_messages: int
    verdict: str | None = None
    suppressed: str | None = None


class Competition(Document):
    """Turns where `winner` was invoked first by the model while `loser` was offered too."""

    winner: str
    loser: str
    turns: int


class FieldReport(Document):
    """The `field report` document."""

    kind: str = "field-report"
    records: int
    sessions: int
    agents: dict[str, int]
    offered_sources: dict[str, int]
    floor: int
    late_slash_turns: int = LATE_SLASH_TURNS
    skills: list[SkillField]
    competition: list[Competition]
    skipped_lines: int = 0


def _interval(k: int, n: int) -> Interval:
    low, high = wilson_interval(k, n)
    return Interval(
        value=k / n if n else None, low=low if n else None, high=high if n else None, n=n
    )


def _verdict(row: SkillField, floor: int) -> tuple[str | None, str | None]:
    if row.exposed_turns < floor:
        return None, f"{row.exposed_turns} exposed turns, below the floor of {floor}"
    if row.starvation is not None and row.starvation >= STARVED_SHARE:
        return "starved: mostly offered by name only", None
    if row.proactive_turns == 0:
        return "never fires on its own", None
    if row.slash_share is not None and row.slash_share >= 0.5:
        return "slash-dependent: users invoke it more than the model", None
    return "fires", None


def build_report(records: Iterable[FieldRecord], *, floor: int = DEFAULT_FLOOR) -> FieldReport:
    """The report of a stream of records (one pass; memory grows with skills and sessions)."""
    exposed: Counter[str] = Counter()
    full: Counter[str] = Counter()
    name_only: Counter[str] = Counter()
    proactive: Counter[str] = Counter()
    slash: Counter[str] = Counter()
    late: Counter[str] = Counter()
    nested: Counter[str] = Counter()
    attributed: Counter[str] = Counter()
    exposed_sessions: defaultdict[str, set[str]] = defaultdict(set)
    proactive_sessions: defaultdict[str, set[str]] = defaultdict(set)
    beats: Counter[tuple[str, str]] = Counter()
    agents: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    sessions: set[str] = set()
    total = 0
    for record in records:
        total += 1
        session = f"{record.agent}:{record.session}"
        sessions.add(session)
        agents[record.agent] += 1
        sources[record.offered_source] += 1
        offered = record.offered_map()
        by_model = record.invoked_by("model")
        slashed = set(record.invoked_by("user-slash"))
        for skill in slashed:
            slash[skill] += 1
        for skill in set(record.invoked_by("nested")):
            nested[skill] += 1
        for skill, count in record.followed.attributed_turns.items():
            attributed[skill] += count
        for skill in record.followed.slash_later:
            late[skill] += 1
        for skill, how in offered.items():
            if skill in slashed:
                continue
            exposed[skill] += 1
            (full if how == "full" else name_only)[skill] += 1
            exposed_sessions[skill].add(session)
            if skill in by_model:
                proactive[skill] += 1
                proactive_sessions[skill].add(session)
        if by_model and by_model[0] in offered:
            for loser in offered:
                if loser not in by_model:
                    beats[(by_model[0], loser)] += 1
    rows: list[SkillField] = []
    for skill in sorted(set(exposed) | set(slash)):
        n = exposed[skill]
        done = proactive[skill]
        ns, ks = len(exposed_sessions[skill]), len(proactive_sessions[skill])
        row = SkillField(
            skill=skill,
            exposed_turns=n,
            exposed_full=full[skill],
            exposed_name_only=name_only[skill],
            exposed_sessions=ns,
            proactive_turns=done,
            proactive_rate=_interval(done, n),
            proactive_sessions=ks,
            session_rate=_interval(ks, ns),
            slash_turns=slash[skill],
            slash_share=slash[skill] / (slash[skill] + done) if slash[skill] + done else None,
            late_slash_misses=late[skill],
            starvation=name_only[skill] / n if n else None,
            nested=nested[skill],
            attributed_messages=attributed[skill],
        )
        row.verdict, row.suppressed = _verdict(row, floor)
        rows.append(row)
    matrix = [
        Competition(winner=a, loser=b, turns=k)
        for (a, b), k in sorted(beats.items(), key=lambda item: (-item[1], item[0]))
    ]
    return FieldReport(
        records=total,
        sessions=len(sessions),
        agents=dict(agents),
        offered_sources=dict(sources),
        floor=floor,
        skills=rows,
        competition=matrix,
    )


def _rate(interval: Interval) -> str:
    if interval.value is None:
        return "–"
    return f"{interval.value:.0%} [{interval.low:.0%}, {interval.high:.0%}]"


def field_report_lines(report: FieldReport, *, top: int = 10) -> list[str]:
    """The report as text (a skill per line, then the competition's largest cells)."""
    lines = [
        f"{report.records} turns in {report.sessions} sessions "
        f"({', '.join(f'{a}: {n}' for a, n in sorted(report.agents.items()))}); "
        f"verdicts from {report.floor} exposed turns up; rates with 95% Wilson intervals",
    ]
    if report.skipped_lines:
        lines.append(f"{report.skipped_lines} lines of the field file were not records (skipped)")
    for row in sorted(report.skills, key=lambda r: -r.exposed_turns):
        judged = row.verdict or f"no verdict ({row.suppressed})"
        lines.append(
            f"{row.skill}: offered {row.exposed_turns} turns / {row.exposed_sessions} sessions "
            f"({row.exposed_name_only} by name only); proactive {row.proactive_turns} = "
            f"{_rate(row.proactive_rate)} per turn, {_rate(row.session_rate)} per session; "
            f"slash {row.slash_turns}, late-slash misses {row.late_slash_misses} — {judged}"
        )
    for cell in report.competition[:top]:
        lines.append(f"  {cell.winner} won over {cell.loser}: {cell.turns} turns")
    return lines


def read_field_report(path: str | Path, *, floor: int = DEFAULT_FLOOR) -> FieldReport:
    """The report of a field file (its lines that are not records counted in `skipped_lines`)."""
    counts = LoadCounts()
    report = build_report(field_records(path, counts), floor=floor)
    report.skipped_lines = counts.skipped
    return report


def field_header(report: FieldReport, field_file: str | Path | None = None) -> ReportHeader:
    """The notebook's header: how many skills reach the floor, and which never fired."""
    judged = [row for row in report.skills if row.verdict is not None]
    never = [row.skill for row in judged if row.proactive_turns == 0]
    line = (
        f"{report.records} turns, {report.sessions} sessions; {len(judged)} of "
        f"{len(report.skills)} skills reach the floor of {report.floor} exposed turns"
    )
    if never:
        line += f"; never fired on its own: {', '.join(never)}"
    verdict = Verdict(None if not judged else not never, line, never)
    return make_header("Field report", verdict, HeaderInputs(eval_set=field_file))
