"""Overlap pre-screen without calls: how alike the library's descriptions are to each other.

`local` embeds each description with the offline MiniLM embedder (the `local` backend's, cosine
of unit vectors); `lexical` is the word-overlap cosine of the `lexical` backend (no extra
needed). Pairs above `threshold` are the ones likely to steal each other's queries: shown before
any paid run (`--dry-run`) and in the report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skillbench.backends.base import SkillEntry
from skillbench.errors import InputError
from skillbench.library.document import OverlapPair

DEFAULT_THRESHOLD = {"local": 0.6, "lexical": 0.25}
MAX_PAIRS = 20


def _lexical(texts: list[str]) -> list[list[float]]:
    from skillbench.backends.offline.lexical import overlap, words

    bags = [words(t) for t in texts]
    return [[overlap(a, b) for b in bags] for a in bags]


def _local(texts: list[str]) -> list[list[float]]:
    from skillbench.backends.offline.local import load_model

    vectors = load_model().encode(texts)
    return [[float(x) for x in row] for row in vectors @ vectors.T]


EMBEDDERS: dict[str, Callable[[list[str]], list[list[float]]]] = {
    "local": _local,
    "lexical": _lexical,
}


def similarities(entries: Sequence[SkillEntry], embedder: str = "local") -> list[list[float]]:
    """The description-to-description similarity matrix (rows and columns: `entries`)."""
    measure = EMBEDDERS.get(embedder)
    if measure is None:
        raise InputError(
            f"unknown embedder {embedder!r} (choose {', '.join(EMBEDDERS)})", path="--embedder"
        )
    return measure([e.description for e in entries])


def overlap_pairs(
    entries: Sequence[SkillEntry],
    *,
    embedder: str = "local",
    threshold: float | None = None,
    limit: int = MAX_PAIRS,
) -> list[OverlapPair]:
    """The most alike pairs of descriptions (at least `threshold`), most alike first."""
    if threshold is None:
        threshold = DEFAULT_THRESHOLD.get(embedder, 0.5)
    matrix = similarities(entries, embedder)
    pairs = [
        OverlapPair(a=entries[i].name, b=entries[j].name, similarity=round(matrix[i][j], 4))
        for i in range(len(entries))
        for j in range(i + 1, len(entries))
        if matrix[i][j] >= threshold
    ]
    pairs.sort(key=lambda p: (-p.similarity, p.a, p.b))
    return pairs[:limit]
