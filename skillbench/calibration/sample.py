"""The blind labelling sample: stratified by arm × grader verdict; within a stratum the verdicts
whose repeated grader calls disagreed come first, then borderline ones, then the rest at random,
one of each doubt ahead of all (so each doubt cell gets a label and doubtful verdicts are
oversampled; `metrics.strata_weights` weighs each labelled verdict by
its arm × verdict × doubt cell to undo it); then shuffled so neither the arm, the verdict nor the
doubt can be read from the order.

Seeded: the same workspace and seed give the same sample and order (a restarted page resumes)."""

from __future__ import annotations

import random
from collections import defaultdict

from skillbench.calibration.items import GraderItem

DEFAULT_SAMPLE = 120
DOUBT_ORDER = ("disagreed", "borderline", "clear")
"""Which items of a stratum the sample takes first (`GraderItem.doubt`)."""


def _allocate(sizes: dict[tuple[str, bool], int], n: int) -> dict[tuple[str, bool], int]:
    """Equal shares per stratum, a small stratum's unused share passed on to the others."""
    take = dict.fromkeys(sizes, 0)
    left = min(n, sum(sizes.values()))
    while left > 0:
        open_ = [s for s in sorted(sizes, key=str) if take[s] < sizes[s]]
        share = max(1, left // len(open_))
        for stratum in open_:
            step = min(share, sizes[stratum] - take[stratum], left)
            take[stratum] += step
            left -= step
            if left == 0:
                break
    return take


def _cells_first(pool: list[GraderItem]) -> list[GraderItem]:
    """The pool (sorted by doubt) with one item of each doubt first, so a share of three or more
    labels every doubt cell of its stratum (the weights need a label in each)."""
    heads = [
        next(i for i in pool if i.doubt == d)
        for d in DOUBT_ORDER
        if any(i.doubt == d for i in pool)
    ]
    return heads + [i for i in pool if i not in heads]


def stratified_sample(
    items: list[GraderItem], n: int = DEFAULT_SAMPLE, *, seed: int = 0
) -> list[GraderItem]:
    """Up to `n` items, equal shares per arm × verdict stratum; within one, the items whose
    repeated grader calls disagreed are taken first, then borderline ones."""
    if n < 1:
        raise ValueError("the sample needs at least one item")
    rng = random.Random(seed)
    strata: dict[tuple[str, bool], list[GraderItem]] = defaultdict(list)
    for item in items:
        strata[(item.arm, item.grader_pass)].append(item)
    take = _allocate({s: len(v) for s, v in strata.items()}, n)
    chosen: list[GraderItem] = []
    for stratum in sorted(strata, key=str):
        pool = list(strata[stratum])
        rng.shuffle(pool)
        pool.sort(key=lambda i: DOUBT_ORDER.index(i.doubt))  # stable: random within a doubt
        chosen.extend(_cells_first(pool)[: take[stratum]])
    rng.shuffle(chosen)
    return chosen
