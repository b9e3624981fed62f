"""Whether `improve --apply` may replace the original description: the adoption rule.

The best round is picked on the selection split, which is small (often 5 queries), so the top
round can beat the original by noise alone. The rule: the best round replaces the original only
when, on the selection queries, it passes significantly more of them than the original, by a
one-sided exact McNemar test (paired by query) at `alpha` (default 0.05). Otherwise the original
is kept. The test split still takes part in no decision.
"""

from __future__ import annotations

from skillbench.schemas.loop import LoopAdoption, LoopIteration
from skillbench.stats import mcnemar_one_sided

ADOPT_ALPHA = 0.05
RULE = (
    "adopt the best round only if it beats the original on the selection split: one-sided "
    "exact McNemar test (paired by query), p < alpha"
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
            reason=why,
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
