"""Seeded, stratified train / selection / test splits of a trigger eval set.

train: the improver sees these queries and their results. selection: picks the best round.
test: used for no decision at all — it only reports. Stratified by `should_trigger` and, within a
class, by `family` when present; each split gets at least one positive and one negative.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import Field, model_validator

from skillbench.errors import InputError
from skillbench.schemas.base import Document
from skillbench.schemas.loop import LoopSplit
from skillbench.schemas.trigger import TriggerQuery

SplitName = Literal["train", "selection", "test"]
SPLIT_NAMES: tuple[SplitName, ...] = ("train", "selection", "test")


class LabelledQuery(Protocol):
    """What a split needs of a query."""

    @property
    def text(self) -> str: ...

    @property
    def should_trigger(self) -> bool: ...

    @property
    def family(self) -> str | None: ...


class Split(Document):
    """A recorded split: enough to reproduce a run exactly."""

    seed: int
    fractions: tuple[float, float, float] = Field(description="train, selection, test")
    train: list[str]
    selection: list[str]
    test: list[str]

    @model_validator(mode="after")
    def _disjoint(self) -> Split:
        seen: set[str] = set()
        for name in SPLIT_NAMES:
            for query in getattr(self, name):
                if query in seen:
                    raise ValueError(f"query {query!r} appears in more than one split")
                seen.add(query)
        return self

    def split_of(self, query: str) -> SplitName:
        """Which split a query belongs to."""
        for name in SPLIT_NAMES:
            if query in getattr(self, name):
                return name
        raise KeyError(query)

    def members(self, name: SplitName) -> list[str]:
        """The queries of one split."""
        members: list[str] = getattr(self, name)
        return members


def parse_fractions(text: str) -> tuple[float, float, float]:
    """Parse `--split 0.6,0.2,0.2` (three non-negative numbers summing to 1)."""
    try:
        parts = tuple(float(p) for p in text.split(","))
    except ValueError:
        raise InputError(
            f"expected three numbers like 0.6,0.2,0.2, got {text!r}", path="--split"
        ) from None
    if len(parts) != 3:
        raise InputError(
            f"expected three fractions (train,selection,test), got {len(parts)}", path="--split"
        )
    train, selection, test = parts
    return check_fractions((train, selection, test))


def check_fractions(fractions: tuple[float, float, float]) -> tuple[float, float, float]:
    """Fractions must be positive and sum to 1 (within rounding)."""
    if any(not math.isfinite(f) for f in fractions):
        raise InputError(
            f"every split fraction must be a finite number, got {fractions}", path="--split"
        )
    if any(f <= 0 for f in fractions):
        raise InputError(f"every split fraction must be > 0, got {fractions}", path="--split")
    if abs(sum(fractions) - 1.0) > 1e-6:
        raise InputError(f"split fractions must sum to 1, got {sum(fractions):.3f}", path="--split")
    return fractions


def stratified_split(
    queries: Sequence[LabelledQuery],
    fractions: tuple[float, float, float] = (0.6, 0.2, 0.2),
    *,
    seed: int = 0,
    source: str = "eval set",
) -> Split:
    """Split queries three ways, stratified by class and family, reproducibly from `seed`.

    Sizes are decided on the whole set first (largest remainder of fraction × n, at least two per
    split), then shared between the classes (largest remainder of each split's proportional share,
    at least one positive and one negative per split), so both classes together hit the totals.
    Ties in either step go by a seeded order of the splits, not always to the same one. Within a
    class the order is: families shuffled, queries shuffled within a family, then families
    interleaved and dealt evenly over the splits, so a family's queries spread out.
    """
    check_fractions(fractions)
    seen: set[str] = set()
    for index, query in enumerate(queries):
        if query.text in seen:
            raise InputError(
                f"query {query.text!r} appears more than once", path=source, field=f"[{index}]"
            )
        seen.add(query.text)
    classes = {
        positive: [q for q in queries if q.should_trigger is positive] for positive in (True, False)
    }
    for positive, members in classes.items():
        if len(members) < len(SPLIT_NAMES):
            label = "positive" if positive else "negative"
            raise InputError(
                f"a train/selection/test split needs at least 3 {label} queries "
                f"(one per split); the set has {len(members)}",
                path=source,
                field="should_trigger",
            )
    rng = random.Random(seed)
    ties = rng.sample(range(len(SPLIT_NAMES)), len(SPLIT_NAMES))
    totals = split_sizes(len(queries), fractions, ties=ties)
    positives = apportion(
        [t * len(classes[True]) / len(queries) for t in totals],
        len(classes[True]),
        low=[1] * len(totals),
        high=[t - 1 for t in totals],
        ties=ties,
    )
    assignment: dict[SplitName, list[str]] = {name: [] for name in SPLIT_NAMES}
    for positive, members in classes.items():
        counts = positives if positive else [t - p for t, p in zip(totals, positives, strict=True)]
        ordered = _interleave_families(members, rng)
        for query, name in zip(ordered, _deal(counts, ties), strict=True):
            assignment[name].append(query.text)
    return Split(
        seed=seed,
        fractions=fractions,
        train=assignment["train"],
        selection=assignment["selection"],
        test=assignment["test"],
    )


def split_sizes(
    n: int, fractions: tuple[float, float, float], *, ties: Sequence[int] = (0, 1, 2)
) -> list[int]:
    """Train, selection and test sizes for n queries: largest remainder of fraction × n, each at
    least 2 (a positive and a negative); `ties` ranks the splits for equal remainders."""
    if n < 2 * len(SPLIT_NAMES):
        raise InputError(f"a train/selection/test split needs at least 6 queries, got {n}")
    return apportion([f * n for f in fractions], n, low=[2] * 3, high=[n] * 3, ties=ties)


def apportion(
    targets: Sequence[float],
    total: int,
    *,
    low: Sequence[int],
    high: Sequence[int],
    ties: Sequence[int],
) -> list[int]:
    """Integers summing to `total`, each within [low, high], as close to `targets` as the bounds
    allow (largest remainder: start from the floors, then add where the target is furthest
    above the count, or take where it is furthest below). Equal gaps go to the lower `ties` rank.
    The caller guarantees sum(low) <= total <= sum(high)."""
    counts = [
        min(max(math.floor(t + _EPS), lo), hi) for t, lo, hi in zip(targets, low, high, strict=True)
    ]
    slots = range(len(counts))
    while sum(counts) < total:
        i = max(
            (i for i in slots if counts[i] < high[i]),
            key=lambda i: (round(targets[i] - counts[i], 9), -ties[i]),
        )
        counts[i] += 1
    while sum(counts) > total:
        i = max(
            (i for i in slots if counts[i] > low[i]),
            key=lambda i: (round(counts[i] - targets[i], 9), -ties[i]),
        )
        counts[i] -= 1
    return counts


_EPS = 1e-9


def _deal(counts: Sequence[int], ties: Sequence[int]) -> list[SplitName]:
    """Which split each of sum(counts) ordered queries goes to: every step gives the next query
    to the split furthest below its even share so far, so neighbours spread over the splits."""
    n = sum(counts)
    dealt = [0] * len(counts)
    order: list[SplitName] = []
    for placed in range(1, n + 1):
        i = max(
            (i for i in range(len(counts)) if dealt[i] < counts[i]),
            key=lambda i: (round(counts[i] * placed / n - dealt[i], 9), -ties[i]),
        )
        dealt[i] += 1
        order.append(SPLIT_NAMES[i])
    return order


def _interleave_families(
    members: Sequence[LabelledQuery], rng: random.Random
) -> list[LabelledQuery]:
    groups: dict[str, list[LabelledQuery]] = defaultdict(list)
    for query in members:
        groups[query.family or ""].append(query)
    names = sorted(groups)
    rng.shuffle(names)
    for name in names:
        rng.shuffle(groups[name])
    ordered: list[LabelledQuery] = []
    depth = max(len(g) for g in groups.values())
    for level in range(depth):
        for name in names:
            if level < len(groups[name]):
                ordered.append(groups[name][level])
    return ordered


def split_record(split: Split, queries: Sequence[LabelledQuery]) -> LoopSplit:
    """The split as recorded in the loop summary: seed, fractions and each split's queries."""
    by_text = {q.text: q for q in queries}

    def items(name: SplitName) -> list[TriggerQuery]:
        return [
            TriggerQuery(
                query=text, should_trigger=by_text[text].should_trigger, family=by_text[text].family
            )
            for text in split.members(name)
        ]

    return LoopSplit(
        seed=split.seed,
        fractions=dict(zip(SPLIT_NAMES, split.fractions, strict=True)),
        train=items("train"),
        selection=items("selection"),
        test=items("test"),
    )


def split_from_record(record: LoopSplit) -> Split:
    """Rebuild a Split from a loop summary's record (to reproduce a run exactly)."""
    fractions = tuple(float(record.fractions.get(name, 0.0)) for name in SPLIT_NAMES)
    return Split(
        seed=record.seed,
        fractions=(fractions[0], fractions[1], fractions[2]),
        train=[q.text for q in record.train],
        selection=[q.text for q in record.selection],
        test=[q.text for q in record.test],
    )
