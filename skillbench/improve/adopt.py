"""Whether `improve --apply` may replace the original description: the adoption rule.

The best round is picked on the selection split, which is small (often 5 queries), so the top
round can beat the original by noise alone. The rule: the best round replaces the original only
when, on the selection queries, it passes significantly more of them than the original, by a
one-sided exact McNemar test (paired by query) at `alpha` (default 0.05). Otherwise the original
is kept. The test split still takes part in no decision.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from skillbench.improve.splits import split_sizes
from skillbench.schemas.loop import LoopAdoption, LoopIteration
from skillbench.stats import mcnemar_one_sided

ADOPT_ALPHA = 0.05
RULE = (
    "adopt the best round only if it beats the original on the selection split: one-sided "
    "exact McNemar test (paired by query), p < alpha"
)


def min_p_value(selection_size: int) -> float:
    """The smallest p-value the adoption test can reach with `selection_size` selection queries:
    every one a discordant pair in the best round's favour (the original fails them all, the best
    round passes them all), i.e. `mcnemar_one_sided(0, n)` = 0.5ⁿ."""
    return 0.5**selection_size if selection_size > 0 else 1.0


def min_selection_size(alpha: float = ADOPT_ALPHA) -> int:
    """The fewest selection queries with which a round can ever be adopted at `alpha`: the
    smallest n with 0.5ⁿ < alpha (5 for alpha 0.05)."""
    n = 1
    while min_p_value(n) >= alpha:
        n += 1
    return n


def suggest_fractions(
    n_queries: int, fractions: Sequence[float], alpha: float = ADOPT_ALPHA
) -> tuple[float, float, float] | None:
    """The `--split` with the smallest selection fraction (in steps of 0.05; train and test keep
    their ratio) whose selection split holds at least `min_selection_size(alpha)` of `n_queries`
    queries, whatever the seed; None when no split can (too few queries)."""
    need = min_selection_size(alpha)
    if n_queries < 6 or n_queries - 4 < need:
        return None
    train, _, test = fractions
    for step in range(1, 19):
        selection = round(step * 0.05, 2)
        new_train = round(round((1 - selection) * train / (train + test) / 0.05) * 0.05, 2)
        new_test = round(1 - selection - new_train, 2)
        if new_train <= 0 or new_test <= 0:
            continue
        candidate = (new_train, selection, new_test)
        if all(
            split_sizes(n_queries, candidate, ties=list(ties))[1] >= need
            for ties in itertools.permutations(range(3))
        ):
            return candidate
    return None


def adoption_warning(
    selection_size: int, n_queries: int, fractions: Sequence[float], alpha: float = ADOPT_ALPHA
) -> str | None:
    """Why no round can ever be adopted with this selection split (None when one can): the
    smallest attainable p, the selection size the level needs, and a `--split` that reaches it
    (or how many queries to add)."""
    floor = min_p_value(selection_size)
    if floor < alpha:
        return None
    need = min_selection_size(alpha)
    text = (
        f"the selection split has {selection_size} quer{'y' if selection_size == 1 else 'ies'}: "
        f"even if the best round passed all of them and the original none, the one-sided exact "
        f"McNemar p would be {floor:.3g} ≥ {alpha:g}, so no round can ever be adopted (--apply "
        f"keeps the original); adoption at alpha {alpha:g} needs at least {need} selection queries"
    )
    suggestion = suggest_fractions(n_queries, fractions, alpha)
    if suggestion is not None:
        shown = ",".join(f"{f:g}" for f in suggestion)
        return f"{text}: try --split {shown}"
    more = max(need + 4 - n_queries, 1)
    return (
        f"{text}, and with {n_queries} queries (at least 2 each for train and test) no split "
        f"has that many: add at least {more} quer{'y' if more == 1 else 'ies'}, or raise "
        f"--adopt-alpha above {min_p_value(max(n_queries - 4, 0)):.3g}"
    )


def selection_pairs(original: LoopIteration, best: LoopIteration) -> tuple[int, int] | None:
    """(regressed, improved): selection queries passing only under the original / only under
    the best round; None when per-query results are missing."""
    if original.results is None or best.results is None:
        return None
    before = {r.query: r.passed for r in original.results if r.split == "selection"}
    after = {r.query: r.passed for r in best.results if r.split == "selection"}
    if not before or set(before) != set(after):
        return None
    regressed = sum(1 for q in before if before[q] and not after[q])
    improved = sum(1 for q in before if after[q] and not before[q])
    return regressed, improved


def decide_adoption(
    original: LoopIteration, best: LoopIteration, *, alpha: float = ADOPT_ALPHA
) -> LoopAdoption:
    """Apply the rule (see the module docstring) to the original and the best round."""
    if not 0.0 < alpha < 1.0:
        from skillbench.errors import InputError

        raise InputError("must be between 0 and 1 (exclusive)", field="adopt_alpha")

    size = sum(1 for r in original.results or [] if r.split == "selection")
    floor = min_p_value(size)
    unreachable = (
        f"; the selection split has {size} quer{'y' if size == 1 else 'ies'}, so the smallest "
        f"attainable p is {floor:.3g} ≥ {alpha:g}: no round could have been adopted (at least "
        f"{min_selection_size(alpha)} selection queries are needed)"
        if original.results is not None and floor >= alpha
        else ""
    )

    def make(
        adopted: bool, improved: int, regressed: int, p: float | None, why: str
    ) -> LoopAdoption:
        return LoopAdoption(
            rule=RULE,
            alpha=alpha,
            adopted=adopted,
            chosen_round=best.round if adopted else original.round,
            best_round=best.round,
            improved=improved,
            regressed=regressed,
            p_value=None if p is None else round(p, 6),
            reason=why + ("" if adopted else unreachable),
            selection_size=size if original.results is not None else None,
            min_p_value=round(floor, 6) if original.results is not None else None,
            min_selection_size=min_selection_size(alpha),
        )

    if best.round == original.round:
        return make(False, 0, 0, None, "the original was the best round on selection")
    pairs = selection_pairs(original, best)
    if pairs is None:
        return make(False, 0, 0, None, "no per-query selection results: the original is kept")
    regressed, improved = pairs
    p = mcnemar_one_sided(regressed, improved)
    counts = f"{improved} selection quer{'y' if improved == 1 else 'ies'} improved, {regressed} regressed"
    if p < alpha:
        return make(True, improved, regressed, p, f"{counts}; p = {p:.3g} < {alpha:g}: adopted")
    return make(
        False,
        improved,
        regressed,
        p,
        f"{counts}; p = {p:.3g} ≥ {alpha:g}: not more than noise, the original is kept",
    )
