"""The blind labelling sample: stratified by arm × grader verdict, borderline verdicts first
within a stratum, then shuffled so neither the arm nor the verdict can be read from the order.

Seeded: the same workspace and seed give the same sample and order (a restarted page resumes)."""

from __future__ import annotations

import random
from collections import defaultdict

from skillbench.calibration.items import GraderItem

DEFAULT_SAMPLE = 120


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


def stratified_sample(
    items: list[GraderItem], n: int = DEFAULT_SAMPLE, *, seed: int = 0
) -> list[GraderItem]:
    """Up to `n` items, equal shares per arm × verdict stratum, borderline items taken first."""
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
        pool.sort(key=lambda i: not i.unsure)  # stable: borderline first, random otherwise
        chosen.extend(pool[: take[stratum]])
    rng.shuffle(chosen)
    return chosen
