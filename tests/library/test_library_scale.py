"""Library mode at scale (issue 38): nothing holds a skills × skills structure. The overlap
pre-screen goes block by block and keeps the best pairs, equal to the all-pairs answer."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from skillbench.backends.base import SkillEntry
from skillbench.backends.offline.lexical import overlap, words
from skillbench.library import overlap as prescreen
from skillbench.library.document import ERROR, NONE, UNDECIDED


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


async def test_a_large_matrix_keeps_its_non_zero_cells_and_draws_its_most_confused_skills(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from library_fakes import RouterJudge, small_library

    from skillbench.library import confusion, frames, plots
    from skillbench.library.discover import load_library
    from skillbench.library.run import run_library
    from skillbench.trigger.options import TriggerOptions

    script = {"a1": ["alpha", "beta"], "a2": ["alpha"], "b1": ["beta"], "n1": ["", "gamma"]}
    library = load_library(small_library(tmp_path))
    options = TriggerOptions(runs=2)
    dense = await run_library(library, RouterJudge(script), options, embedder=None)
    monkeypatch.setattr(confusion, "MAX_DENSE_CELLS", 4)  # past 4 cells: only the non-zero ones
    sparse = await run_library(library, RouterJudge(script), options, embedder=None)
    assert dense.matrix.cells is None and sparse.matrix.counts == []
    assert list(sparse.matrix.nonzero()) == list(dense.matrix.nonzero())
    assert (
        "cells" in sparse.to_json_dict()["matrix"] and "cells" not in dense.to_json_dict()["matrix"]
    )
    frame = frames.routing_matrix_frame(sparse)  # the most confused skills: alpha and beta
    assert list(frame.index) == ["alpha", "beta", NONE]
    assert list(frame.columns) == ["alpha", "beta", frames.OTHER_SKILLS, NONE, UNDECIDED, ERROR]
    assert frame.loc[NONE, frames.OTHER_SKILLS] == 1  # gamma's fire, summed with the others
    assert frame.to_numpy().sum() == sum(n for _, _, n in dense.matrix.nonzero())
    monkeypatch.setattr(plots, "MAX_SHOWN_SKILLS", 2)
    figure = plots.confusion_heatmap(sparse)
    axes = figure.axes[0]
    assert [t.get_text() for t in axes.get_yticklabels()] == ["alpha", "beta", NONE]
    assert "the 2 most confused of 3 skills" in axes.get_title()
    monkeypatch.setattr(plots, "MAX_LISTED", 1)
    listing = plots.skill_listing_figure(sparse).axes[0]
    assert len(listing.get_yticklabels()) == 1 and "the 1 widest of 3 skills" in listing.get_title()
