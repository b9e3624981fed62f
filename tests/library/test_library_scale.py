"""Library mode at scale (issue 38): nothing holds a skills × skills structure. The overlap
pre-screen goes block by block and keeps the best pairs, equal to the all-pairs answer."""

from __future__ import annotations

import random

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.backends.offline.lexical import overlap, words
from skillbench.library import overlap as prescreen


def _library(n: int, seed: int) -> list[SkillEntry]:
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(12)] + ["report", "table", "chart"]
    entries = [
        SkillEntry(
            f"skill-{rng.randrange(10**6):06d}-{i}", " ".join(rng.sample(vocab, rng.randint(0, 5)))
        )
        for i in range(n)
    ]
    rng.shuffle(entries)  # the pre-screen takes them in name order whatever the order given
    return entries


def _all_pairs(
    entries: list[SkillEntry], threshold: float, limit: int
) -> list[tuple[str, str, float]]:
    ordered = sorted(entries, key=lambda e: e.name)
    found = []
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            similarity = overlap(words(a.description), words(b.description))
            if similarity >= threshold:
                found.append((a.name, b.name, round(similarity, 4)))
    found.sort(key=lambda p: (-p[2], p[0], p[1]))
    return found[:limit]


@pytest.mark.parametrize(("seed", "threshold", "limit"), [(1, 0.25, 20), (2, 0.0, 7), (3, 0.5, 50)])
def test_the_pre_screen_block_by_block_equals_all_pairs(
    monkeypatch: pytest.MonkeyPatch, seed: int, threshold: float, limit: int
) -> None:
    entries = _library(120, seed)
    monkeypatch.setattr(prescreen, "BLOCK_CELLS", 7 * 120)  # 18 blocks of 7 rows
    monkeypatch.setattr(prescreen, "DENSE_SHARE", 4)  # the common words by the product
    got = prescreen.overlap_pairs(entries, embedder="lexical", threshold=threshold, limit=limit)
    assert [(p.a, p.b, p.similarity) for p in got] == _all_pairs(entries, threshold, limit)
