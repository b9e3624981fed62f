"""`field check`: does the lab predict this user's field? Each recorded turn is replayed with the
listing it recorded, and the replayed first move is compared with the recorded one.

A turn's catalog is its recorded listing: a skill listed in full with its recorded (redacted)
description, one listed by name only with an empty description. The query is the recorded
(redacted) text. Turns the user settled with a slash command are left out (nothing was left for
the model to decide). A first move is a skill, no skill (the model answered), or undecided (a
tool that is not the skill tool): undecided turns and failed calls are counted apart, never as
agreement or disagreement. κ is Cohen's on "a skill fired first" over the turns decided on both
sides; the exact-skill counts stand beside it.

The judge is built by the caller (the CLI: `registry.cached_judge` with
`TriggerOptions.judge_options()`); this module only builds requests, plans and folds outcomes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from skillbench.backends.base import SkillEntry, TriggerJudge, TriggerOutcome, TriggerRequest
from skillbench.errors import InputError
from skillbench.field.load import LoadCounts, field_records
from skillbench.field.records import FieldRecord
from skillbench.stats import Estimate, kappa_bootstrap_ci

if TYPE_CHECKING:
    from skillbench.backends.cache import CallCache
    from skillbench.cost.plan import CostPlan

UNDECIDED = "(undecided)"
"""A first move that was a tool other than the skill tool."""


@dataclass(frozen=True)
class CheckTurn:
    """One recorded turn to replay: its record and the request built from its listing."""

    record: FieldRecord
    request: TriggerRequest

    @property
    def recorded(self) -> str | None:
        """The recorded first move: a skill, None (no tool), or `UNDECIDED`."""
        if self.record.first_skill:
            return self.record.first_skill
        return UNDECIDED if self.record.first_tool else None


def _decidable(record: FieldRecord) -> bool:
    return record.command is None and not record.invoked_by("user-slash") and bool(record.offered)


def check_turns(path: str | Path, *, seed: int = 0) -> list[CheckTurn]:
    """The turns of `path` to replay (InputError naming the file when a record lacks its text
    or its listing's descriptions: import with `--with-text`)."""
    counts = LoadCounts()
    turns: list[CheckTurn] = []
    for record in field_records(path, counts):
        if record.text is None or record.offered_source != "transcript":
            raise InputError(
                "holds records without their text or recorded listing: `field check` needs "
                "`field import --with-text` of an agent that records its listing "
                f"(turn {record.turn} of {record.agent})",
                path=Path(path),
            )
        if any(o.listing == "full" and o.description is None for o in record.offered):
            raise InputError(
                "holds records without their listing's descriptions: import again with "
                f"`--with-text` into a new file (turn {record.turn} of {record.agent})",
                path=Path(path),
            )
        if not _decidable(record):
            continue
        entries = tuple(SkillEntry(o.skill, o.description or "") for o in record.offered)
        request = TriggerRequest(entries[0], entries[1:], record.text, 0, seed)
        turns.append(CheckTurn(record, request))
    if counts.records == 0:
        raise InputError("holds no field record", path=Path(path))
    return turns


def plan_check(
    turns: Sequence[CheckTurn],
    backend: str,
    *,
    model: str | None,
    judge_options: dict[str, Any],
    cache: CallCache | None,
) -> CostPlan:
    """The plan and estimate of replaying `turns` (cache hits free); no model call."""
    from skillbench.cost.estimate import Planned, for_judge, get_estimator
    from skillbench.cost.plan import CostPlan, key_judge, plan_block

    estimator = get_estimator(backend, model=model, cache=cache, **judge_options)
    keys, note = key_judge(backend, model=model, cache=cache, options=judge_options)
    if keys is not None:
        estimator = for_judge(keys, estimator, cache=cache)
    requests = [t.request for t in turns]
    held = set()
    if keys is not None and keys.cache is not None:
        for i, request in enumerate(requests):
            key = keys.key(request)
            if key is not None and keys.cache.has(key):
                held.add(i)
    misses = [r for i, r in enumerate(requests) if i not in held]
    line = Planned(estimator, "field check")
    line.add(estimator.trigger_calls(misses), len(misses), len(held))
    sessions = len({t.record.session for t in turns})
    lines = [
        f"plan: field check on backend {backend}"
        + (f" ({estimator.model})" if estimator.model else ""),
        f"  {len(turns)} recorded turns of {sessions} session(s) × 1 run = {len(turns)} runs, "
        "each with the listing it recorded",
    ]
    return CostPlan(lines, plan_block([line], notes=[note] if note else []), [line])


class Agreement(BaseModel):
    """Recorded first moves against replayed ones."""

    turns: int = Field(description="turns replayed (slash-command turns left out)")
    compared: int = Field(description="turns decided on both sides")
    same_skill: int
    other_skill: int = Field(description="both invoked a skill, not the same one")
    neither: int = Field(description="no skill on either side")
    lab_only: int = Field(description="the replay invoked a skill, the field did not")
    field_only: int = Field(description="the field invoked a skill, the replay did not")
    undecided_lab: int = Field(description="the replay's first move was another tool")
    undecided_field: int = Field(description="the recorded first move was another tool")
    errors: int = Field(description="replays that failed (not outcomes)")
    agreement: float | None = Field(description="(same_skill + neither) / compared")
    kappa: Estimate | None = Field(description="Cohen's κ on 'a skill first', bootstrap 95 % CI")


def agreement(turns: Sequence[CheckTurn], outcomes: Sequence[TriggerOutcome]) -> Agreement:
    """Fold each turn's replayed outcome against its recorded first move."""
    tally = dict.fromkeys(
        ("same_skill", "other_skill", "neither", "lab_only", "field_only", "undecided_lab",
         "undecided_field", "errors"), 0,
    )  # fmt: skip
    lab_fired: list[bool] = []
    field_fired: list[bool] = []
    for turn, outcome in zip(turns, outcomes, strict=True):
        if outcome.error is not None:
            tally["errors"] += 1
            continue
        if outcome.undecided is not None:
            tally["undecided_lab"] += 1
            continue
        recorded = turn.recorded
        if recorded == UNDECIDED:
            tally["undecided_field"] += 1
            continue
        lab, field = outcome.fired, recorded
        lab_fired.append(lab is not None)
        field_fired.append(field is not None)
        if lab is None and field is None:
            tally["neither"] += 1
        elif lab is None:
            tally["field_only"] += 1
        elif field is None:
            tally["lab_only"] += 1
        else:
            tally["same_skill" if lab == field else "other_skill"] += 1
    compared = len(lab_fired)
    agreed = tally["same_skill"] + tally["neither"]
    return Agreement(
        turns=len(turns),
        compared=compared,
        agreement=agreed / compared if compared else None,
        kappa=kappa_bootstrap_ci(field_fired, lab_fired) if compared else None,
        **tally,
    )


async def replay(
    turns: Sequence[CheckTurn], judge: TriggerJudge, *, workers: int = 4
) -> list[TriggerOutcome]:
    """Each turn's request through `judge` (at most `workers` at once), in order."""
    gate = asyncio.Semaphore(max(1, workers))

    async def one(turn: CheckTurn) -> TriggerOutcome:
        async with gate:
            return await judge.judge(turn.request)

    return list(await asyncio.gather(*(one(t) for t in turns)))


def agreement_lines(result: Agreement) -> list[str]:
    """The check's summary, for the terminal."""
    kappa = result.kappa
    shown = "undefined" if kappa is None or kappa.value is None else f"{kappa.value:.2f}"
    if kappa is not None and kappa.low is not None and kappa.high is not None:
        shown += f" [{kappa.low:.2f}, {kappa.high:.2f}]"
    rate = "n/a" if result.agreement is None else f"{result.agreement:.0%}"
    return [
        f"field check: {result.turns} turns replayed, {result.compared} decided on both sides",
        f"  agreement {rate}; κ (a skill first) {shown}",
        f"  same skill {result.same_skill}, other skill {result.other_skill}, neither "
        f"{result.neither}, lab only {result.lab_only}, field only {result.field_only}",
        f"  apart: undecided in the lab {result.undecided_lab}, undecided in the field "
        f"{result.undecided_field}, failed replays {result.errors}",
    ]
