"""`field mine`: trigger-eval rows for one skill from real turns (needs `--with-text` records).

Each turn where the skill was offered gives a proposed row with its signal:
`proactive` (the model invoked it: should trigger), `late-slash` (not invoked, the user typed
`/skill` soon after: should trigger), `other-skill-won` (another skill was invoked instead:
proposed should not, worth a look) and `offered-not-invoked` (nothing invoked: proposed should
not). Turns that were themselves slash commands are not queries. Near-duplicates (word-set
Jaccard at least `NEAR_DUPLICATE`) are one row with their count. Every label is a proposal
(`label: "to-confirm"`). The file is seed Format B; the provenance sits in extra keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from skillbench.errors import InputError
from skillbench.field.records import FieldRecord

NEAR_DUPLICATE = 0.8
"""Word-set Jaccard similarity from which two queries are one row."""
POSITIVE = ("proactive", "late-slash")
_WORDS = re.compile(r"[a-z0-9]+")


@dataclass
class _Cluster:
    text: str
    words: frozenset[str]
    signal: str
    should_trigger: bool
    agent: str
    session: str
    turn: str
    members: int = 1
    sessions: set[str] = field(default_factory=set)


def signal_of(record: FieldRecord, skill: str) -> str | None:
    """Which signal this turn gives about `skill`, None when it gives none."""
    if record.command is not None or skill not in record.offered_map():
        return None
    by_model = record.invoked_by("model")
    if skill in by_model:
        return "proactive"
    if skill in record.followed.slash_later:
        return "late-slash"
    if by_model:
        return "other-skill-won"
    return "offered-not-invoked"


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def mine_rows(records: Iterable[FieldRecord], skill: str, *, source: str) -> dict[str, Any]:
    """The Format B document of `skill`'s proposed rows (InputError if a turn has no text)."""
    clusters: list[_Cluster] = []
    for record in records:
        signal = signal_of(record, skill)
        if signal is None:
            continue
        if record.text is None:
            raise InputError(
                "holds turns without their text: import again with --with-text to mine",
                path=source,
            )
        words = frozenset(_WORDS.findall(record.text.lower()))
        positive = signal in POSITIVE
        for cluster in clusters:
            if (
                cluster.should_trigger == positive
                and _jaccard(cluster.words, words) >= NEAR_DUPLICATE
            ):
                cluster.members += 1
                cluster.sessions.add(record.session)
                break
        else:
            clusters.append(
                _Cluster(
                    record.text,
                    words,
                    signal,
                    positive,
                    record.agent,
                    record.session,
                    record.turn,
                    sessions={record.session},
                )
            )
    positives = {c.text.strip() for c in clusters if c.should_trigger}
    rows = [
        {
            "query": c.text,
            "should_trigger": c.should_trigger,
            "family": f"field:{c.signal}",
            "note": "proposed from field data; confirm the label",
            "label": "to-confirm",
            "signal": c.signal,
            "agent": c.agent,
            "session": c.session,
            "turn": c.turn,
            "cluster_size": c.members,
            "cluster_sessions": len(c.sessions),
        }
        for c in clusters
        if c.text.strip() and (c.should_trigger or c.text.strip() not in positives)
    ]
    return {"skill": skill, "source": "skillbench field mine", "evals": rows}
