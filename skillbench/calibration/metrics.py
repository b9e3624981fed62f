"""The grader's error measured against human labels, and pass rates corrected for it.

Human label = truth. TPR = P(grader pass | human pass), TNR = P(grader fail | human fail), each
with a Wilson interval; κ (grader vs human) beside the constant predictor's (κ = 0, accuracy =
the majority share). The labelled items are post-stratified to the workspace: an item of stratum
arm × grader verdict (× doubt: repeats disagreed / borderline / clear, when every such cell is
labelled) weighs N_cell / n_cell, so a sample stratified by verdict and oversampling doubt (or
labels written by hand) still estimates the workspace's TPR and TNR; with equal weights the
counts are plain. Where `grade --repeats` asked the grader more than once, its self-agreement
(the share of verdicts whose repeats all agreed, Wilson interval) is stated too. Corrected pass rate (Rogan–Gladen):
θ = clip((p_obs + TNR − 1) / (TPR + TNR − 1), 0, 1) with a bootstrap interval (workspace verdicts
and labels resampled within their strata); the attenuation factor is J = TPR + TNR − 1 (an
observed delta is the true one × J under non-differential error).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from skillbench.calibration.items import GraderItem
from skillbench.stats import cohen_kappa, wilson_interval

BOOTSTRAP_RESAMPLES = 2000
Cell = tuple[Hashable, ...]


@dataclass(frozen=True)
class Rate:
    """A proportion with its Wilson interval (None when nothing was labelled in its class)."""

    value: float | None
    low: float | None
    high: float | None
    n: int


@dataclass
class ErrorRates:
    """The grader's confusion against the human labels on one set of items."""

    tp: int
    fn: int
    fp: int
    tn: int
    tpr: Rate
    tnr: Rate
    kappa: float | None
    accuracy: float | None
    baseline_accuracy: float | None
    """The constant predictor's accuracy (always the majority human label); its κ is 0."""
    weighted: bool

    @property
    def attenuation(self) -> float | None:
        """J = TPR + TNR − 1."""
        if self.tpr.value is None or self.tnr.value is None:
            return None
        return self.tpr.value + self.tnr.value - 1.0

    @property
    def n(self) -> int:
        """Labelled items."""
        return self.tp + self.fn + self.fp + self.tn


@dataclass(frozen=True)
class Corrected:
    """An observed grader pass rate and the Rogan–Gladen rate corrected for the grader's error."""

    observed: float | None
    corrected: float | None
    low: float | None
    high: float | None
    n: int


@dataclass
class Calibration:
    """Everything `calibrate` states."""

    overall: ErrorRates
    per_arm: dict[str, ErrorRates]
    per_expectation: dict[str, ErrorRates]
    corrected: dict[str, Corrected]
    delta: Corrected | None
    pair: tuple[str, str] | None
    labelled: int
    population: int
    unmatched: int
    ties: int
    disagreements: list[dict[str, object]] = field(default_factory=list)
    strata: str = ""
    inter_rater: list[dict[str, object]] = field(default_factory=list)
    self_agreement: Rate | None = None
    """Share of the workspace's repeated model verdicts whose repeats all agreed (None: the
    grader was asked once per run)."""


def rogan_gladen(p: float, tpr: float, tnr: float) -> float | None:
    """(p + TNR − 1) / (TPR + TNR − 1) clipped to [0, 1]; None when J ≤ 0 (no information)."""
    j = tpr + tnr - 1.0
    if j <= 0:
        return None
    return min(1.0, max(0.0, (p + tnr - 1.0) / j))


def _rate(hits: float, total: float, hits_n: int, total_n: int, uniform: bool) -> Rate:
    if total_n == 0:
        return Rate(None, None, None, 0)
    if uniform:
        low, high = wilson_interval(hits_n, total_n)
        return Rate(hits_n / total_n, low, high, total_n)
    value = hits / total
    low, high = wilson_interval_float(value, total_n)
    return Rate(value, low, high, total_n)


def wilson_interval_float(p: float, n_eff: float) -> tuple[float, float]:
    """Wilson interval of a weighted proportion at its effective sample size."""
    from skillbench.stats import z_value

    z = z_value(0.95)
    denom = 1.0 + z * z / n_eff
    centre = (p + z * z / (2 * n_eff)) / denom
    half = z / denom * float(np.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff * n_eff)))
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


def error_rates(
    grader: Sequence[bool], human: Sequence[bool], weights: Sequence[float] | None = None
) -> ErrorRates:
    """Confusion, TPR/TNR (weighted when weights differ), κ and the constant baseline."""
    w = list(weights) if weights is not None else [1.0] * len(grader)
    uniform = len(set(w)) <= 1
    tp = sum(1 for g, h in zip(grader, human, strict=True) if g and h)
    fn = sum(1 for g, h in zip(grader, human, strict=True) if not g and h)
    fp = sum(1 for g, h in zip(grader, human, strict=True) if g and not h)
    tn = sum(1 for g, h in zip(grader, human, strict=True) if not g and not h)
    wtp = sum(x for g, h, x in zip(grader, human, w, strict=True) if g and h)
    wpos = sum(x for h, x in zip(human, w, strict=True) if h)
    wtn = sum(x for g, h, x in zip(grader, human, w, strict=True) if not g and not h)
    wneg = sum(x for h, x in zip(human, w, strict=True) if not h)
    n_pos = _effective([x for h, x in zip(human, w, strict=True) if h])
    n_neg = _effective([x for h, x in zip(human, w, strict=True) if not h])
    tpr = _rate(wtp, wpos, tp, tp + fn, uniform) if uniform else _weighted(wtp, wpos, n_pos)
    tnr = _rate(wtn, wneg, tn, tn + fp, uniform) if uniform else _weighted(wtn, wneg, n_neg)
    n = len(grader)
    positives = tp + fn
    return ErrorRates(
        tp, fn, fp, tn, tpr, tnr,
        kappa=cohen_kappa(list(grader), list(human)),
        accuracy=(tp + tn) / n if n else None,
        baseline_accuracy=max(positives, n - positives) / n if n else None,
        weighted=not uniform,
    )  # fmt: skip


def _effective(weights: list[float]) -> float:
    """Kish's effective sample size (Σw)² / Σw²."""
    square = sum(x * x for x in weights)
    return sum(weights) ** 2 / square if square else 0.0


def _weighted(hits: float, total: float, n_eff: float) -> Rate:
    if total == 0 or n_eff == 0:
        return Rate(None, None, None, 0)
    value = hits / total
    low, high = wilson_interval_float(value, n_eff)
    return Rate(value, low, high, round(n_eff))


def strata_weights(
    population: list[GraderItem], labelled: list[GraderItem]
) -> tuple[list[float], str]:
    """Post-stratification weights N_cell / n_cell of the labelled items, finest cells whose
    every populated cell is labelled: arm × verdict × doubt (repeats disagreed / borderline /
    clear), else arm × verdict, else none."""
    for name, cell in (
        ("arm x grader verdict x doubt", lambda i: (i.arm, i.grader_pass, i.doubt)),
        ("arm x grader verdict", lambda i: (i.arm, i.grader_pass)),
    ):
        big = Counter(cell(i) for i in population)
        small = Counter(cell(i) for i in labelled)
        if labelled and all(small[c] > 0 for c in big):
            return [big[cell(i)] / small[cell(i)] for i in labelled], name
    return [1.0] * len(labelled), "none (a stratum has no label): unweighted"


def _cells(items: list[GraderItem], how: str) -> list[Cell]:
    if how.startswith("arm x grader verdict x"):
        return [(i.arm, i.grader_pass, i.doubt) for i in items]
    if how.startswith("arm x grader verdict"):
        return [(i.arm, i.grader_pass) for i in items]
    return [("all",) for _ in items]


def self_agreement(population: list[GraderItem]) -> Rate | None:
    """The share of repeated verdicts (`grade --repeats` > 1) whose repeats all agreed, with its
    Wilson 95 % interval; None when no verdict was repeated."""
    repeated = [i for i in population if i.repeated]
    if not repeated:
        return None
    agreed = sum(1 for i in repeated if not i.disagreed)
    low, high = wilson_interval(agreed, len(repeated))
    return Rate(agreed / len(repeated), low, high, len(repeated))


def pass_rate(items: list[GraderItem], arm: str) -> tuple[float | None, int]:
    """The grader's observed pass rate over the arm's model verdicts."""
    verdicts = [i.grader_pass for i in items if i.arm == arm]
    return (sum(verdicts) / len(verdicts) if verdicts else None), len(verdicts)


def calibrate_items(
    population: list[GraderItem],
    truth: dict[tuple[str, str], bool],
    *,
    pair: tuple[str, str] | None = None,
    ties: int = 0,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> Calibration:
    """The grader's error on the labelled items and every arm's corrected pass rate."""
    by_key = {i.key: i for i in population}
    labelled = [by_key[k] for k in truth if k in by_key]
    human = [truth[i.key] for i in labelled]
    weights, how = strata_weights(population, labelled)
    overall = error_rates([i.grader_pass for i in labelled], human, weights)
    per_arm: dict[str, ErrorRates] = {}
    for arm in sorted({i.arm for i in labelled}):
        idx = [k for k, i in enumerate(labelled) if i.arm == arm]
        per_arm[arm] = error_rates(
            [labelled[k].grader_pass for k in idx], [human[k] for k in idx],
            [weights[k] for k in idx],
        )  # fmt: skip
    per_exp: dict[str, ErrorRates] = {}
    for text in sorted({i.expectation for i in labelled}):
        idx = [k for k, i in enumerate(labelled) if i.expectation == text]
        per_exp[text] = error_rates([labelled[k].grader_pass for k in idx], [human[k] for k in idx])
    arms = sorted({i.arm for i in population})
    boot = _bootstrap(population, labelled, human, how, arms, pair, seed, resamples)
    corrected: dict[str, Corrected] = {}
    for arm in arms:
        p, n = pass_rate(population, arm)
        value = (
            None if p is None or overall.tpr.value is None or overall.tnr.value is None
            else rogan_gladen(p, overall.tpr.value, overall.tnr.value)
        )  # fmt: skip
        low, high = boot.get(arm, (None, None))
        corrected[arm] = Corrected(p, value, low, high, n)
    delta = None
    if pair is not None and pair[0] in corrected and pair[1] in corrected:
        a, b = corrected[pair[0]], corrected[pair[1]]
        observed = None if a.observed is None or b.observed is None else a.observed - b.observed
        value = None if a.corrected is None or b.corrected is None else a.corrected - b.corrected
        low, high = boot.get("delta", (None, None))
        delta = Corrected(observed, value, low, high, min(a.n, b.n))
    disagreements = [
        {"run": i.run, "expectation": i.expectation, "arm": i.arm, "grader": i.grader_pass,
         "human": h}
        for i, h in zip(labelled, human, strict=True) if i.grader_pass != h
    ]  # fmt: skip
    return Calibration(
        overall, per_arm, per_exp, corrected, delta, pair, len(labelled), len(population),
        unmatched=sum(1 for k in truth if k not in by_key), ties=ties,
        disagreements=disagreements, strata=how, self_agreement=self_agreement(population),
    )  # fmt: skip


def _bootstrap(
    population: list[GraderItem],
    labelled: list[GraderItem],
    human: list[bool],
    how: str,
    arms: list[str],
    pair: tuple[str, str] | None,
    seed: int,
    resamples: int,
) -> dict[str, tuple[float | None, float | None]]:
    """Percentile intervals of each arm's corrected rate (and the pair's delta): each replicate
    resamples the workspace's verdicts within arms and the labels within their strata."""
    if not labelled:
        return {}
    rng = np.random.default_rng(seed)
    pop_cells = _cells(population, how)
    lab_cells = _cells(labelled, how)
    by_arm: dict[str, list[int]] = defaultdict(list)
    for k, item in enumerate(population):
        by_arm[item.arm].append(k)
    by_cell: dict[Cell, list[int]] = defaultdict(list)
    for k, cell in enumerate(lab_cells):
        by_cell[cell].append(k)
    grader = np.array([i.grader_pass for i in labelled])
    truth = np.array(human)
    pop_pass = np.array([i.grader_pass for i in population])
    draws: dict[str, list[float]] = defaultdict(list)
    for _ in range(resamples):
        pick = {a: rng.choice(by_arm[a], size=len(by_arm[a])) for a in arms}
        sizes: Counter[Cell] = Counter()
        for a in arms:
            sizes.update(pop_cells[k] for k in pick[a])
        tp = pos = tn = neg = 0.0
        for cell, members in by_cell.items():
            chosen = rng.choice(members, size=len(members))
            weight = sizes[cell] / len(members) if how.startswith("arm") else 1.0
            g, h = grader[chosen], truth[chosen]
            tp += weight * float(np.sum(g & h))
            pos += weight * float(np.sum(h))
            tn += weight * float(np.sum(~g & ~h))
            neg += weight * float(np.sum(~h))
        if pos == 0 or neg == 0:
            continue
        values: dict[str, float] = {}
        for a in arms:
            theta = rogan_gladen(float(pop_pass[pick[a]].mean()), tp / pos, tn / neg)
            if theta is not None:
                values[a] = theta
                draws[a].append(theta)
        if pair is not None and pair[0] in values and pair[1] in values:
            draws["delta"].append(values[pair[0]] - values[pair[1]])
    out: dict[str, tuple[float | None, float | None]] = {}
    for name, drawn in draws.items():
        low, high = np.quantile(np.asarray(drawn), [0.025, 0.975])
        out[name] = (float(low), float(high))
    return out
