"""Overlap pre-screen without calls: how alike the library's descriptions are to each other.

`local` embeds each description with the offline MiniLM embedder (the `local` backend's, cosine
of unit vectors); `lexical` is the word-overlap cosine of the `lexical` backend (no extra
needed). Pairs above `threshold` are the ones likely to steal each other's queries: shown before
any paid run (`--dry-run`) and in the report.

The similarities are computed a block of rows at a time (at most `BLOCK_CELLS` at once) and only
the best `limit` pairs are kept, so a library of 10,000 skills never holds its 10,000 × 10,000
matrix: memory grows with the number of skills, not its square.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from skillbench.backends.base import SkillEntry
from skillbench.errors import InputError
from skillbench.library.document import OverlapPair

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DEFAULT_THRESHOLD = {"local": 0.6, "lexical": 0.25}
MAX_PAIRS = 20
BLOCK_CELLS = 1_000_000
"""Similarities computed at once (rows of a block × skills): about 8 MB of float64."""
DENSE_SHARE = 16
"""A word in more than 1/DENSE_SHARE of the descriptions is counted by a matrix product, the
others through their postings (a common word would otherwise cost skills² single additions)."""

Blocks = Iterator[tuple[int, "NDArray[np.float64]"]]
"""(first row, similarities of rows first… to every description), block after block."""


def _row_blocks(n: int) -> Iterator[tuple[int, int]]:
    rows = max(1, BLOCK_CELLS // max(n, 1))
    for start in range(0, n, rows):
        yield start, min(n, start + rows)


def _lexical(texts: list[str]) -> Blocks:
    """Word-overlap cosine (`lexical.overlap`): shared words counted per block, the common words
    by a product of 0/1 matrices, the rare ones through their postings."""
    import numpy as np

    from skillbench.backends.offline.lexical import words

    bags = [sorted(words(t)) for t in texts]
    n = len(bags)
    sizes = np.array([len(b) for b in bags], dtype=np.float64)
    postings: dict[str, list[int]] = {}
    for i, bag in enumerate(bags):
        for word in bag:
            postings.setdefault(word, []).append(i)
    common = [w for w, p in postings.items() if len(p) > 1 and len(p) * DENSE_SHARE > n]
    dense = np.zeros((n, len(common)), dtype=np.float32)
    for column, word in enumerate(common):
        dense[postings[word], column] = 1.0
    rare = {w: np.array(p) for w, p in postings.items() if 1 < len(p) * DENSE_SHARE <= n}
    for start, stop in _row_blocks(n):
        shared = (dense[start:stop] @ dense.T).astype(np.float64)  # exact: small integers
        hits = [
            (row - start, rare[w]) for row in range(start, stop) for w in bags[row] if w in rare
        ]
        if hits:
            flat = np.concatenate([row * n + others for row, others in hits])
            shared += np.bincount(flat, minlength=shared.size).reshape(shared.shape)
        scale = np.sqrt(sizes[start:stop, None] * sizes[None, :])
        with np.errstate(invalid="ignore", divide="ignore"):
            block = np.where(scale > 0, shared / np.where(scale > 0, scale, 1.0), 0.0)
        yield start, block


def _local(texts: list[str]) -> Blocks:
    """Cosine of the MiniLM embeddings (unit vectors), one block of rows at a time."""
    import numpy as np

    from skillbench.backends.offline.local import load_model

    vectors = load_model().encode(texts)
    for start, stop in _row_blocks(len(texts)):
        yield start, np.asarray(vectors[start:stop] @ vectors.T, dtype=np.float64)


EMBEDDERS: dict[str, Callable[[list[str]], Blocks]] = {
    "local": _local,
    "lexical": _lexical,
}


def similarity_blocks(entries: Sequence[SkillEntry], embedder: str = "local") -> Blocks:
    """The description-to-description similarities (rows and columns: `entries`), block by
    block of rows."""
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
    """The most alike pairs of descriptions (at least `threshold`), most alike first (equal
    similarities by name; `a` before `b` by name), at most `limit`.

    The skills are taken in name order, so a pair's rank is one integer (rounded similarity,
    then a's place, then b's) and a later block of rows can only beat the kept pairs with a
    strictly higher rounded similarity: most blocks are skipped at a glance."""
    import numpy as np

    if threshold is None:
        threshold = DEFAULT_THRESHOLD.get(embedder, 0.5)
    ordered = sorted(entries, key=lambda e: e.name)
    n = len(ordered)
    best: list[tuple[int, int, int, float]] = []  # (-rank, a, b, similarity): a min-heap on -rank
    for start, block in similarity_blocks(ordered, embedder):
        for row in range(len(block)):
            block[row, : start + row + 1] = -np.inf  # each pair once: b after a
        floor = threshold
        if len(best) == limit:  # only a higher rounded similarity than the worst kept can enter
            worst = -best[0][0] // (n * n)
            floor = max(floor, (20_000 - worst + 0.5) / 10_000 - 1e-9)
        i, j = np.nonzero(block >= floor)
        if not len(i):
            continue
        tenths = np.rint(block[i, j] * 10_000).astype(np.int64)
        values = block[i, j]
        i = i + start
        rank = ((20_000 - tenths) * n + i) * n + j  # smallest first: most alike, then by name
        if len(rank) > limit:
            chosen = np.argpartition(rank, limit - 1)[:limit]
            i, j, rank, values = i[chosen], j[chosen], rank[chosen], values[chosen]
        for k, a, b, value in zip(
            rank.tolist(), i.tolist(), j.tolist(), values.tolist(), strict=True
        ):
            item = (-k, a, b, value)  # value: a Python float with the bits of the block's
            if len(best) < limit:
                heapq.heappush(best, item)
            elif item > best[0]:
                heapq.heapreplace(best, item)
    pairs = [
        OverlapPair(a=ordered[a].name, b=ordered[b].name, similarity=round(value, 4))
        for _, a, b, value in best
    ]
    pairs.sort(key=lambda p: (-p.similarity, p.a, p.b))
    return pairs
