"""Overfitting analysis of improvement loops: gaps, warning signs, and the honest verdict.

Works on one loop summary or many (a folder of runs, several skills), always as tidy pandas
DataFrames. The verdict compares the ORIGINAL description with the CHOSEN one (best on
selection) on the TEST queries only — the split no decision used — with the chosen description's
Wilson interval and a paired exact McNemar test, and says plainly when n is too small to tell.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from skillbench.errors import InputError
from skillbench.schemas.loop import LoopIteration, LoopSummary
from skillbench.stats import holm, mcnemar_exact, power_of, sample_size, wilson_interval

SPLITS = ("train", "selection", "test", "full")
ALPHA = 0.05
SUMMARY_FILE = "loop_summary.json"

Labelled = tuple[str, LoopSummary]


def find_loop_summaries(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """Every loop summary under the given files or folders (a folder is searched recursively for
    `loop_summary.json`), sorted; InputError when a path is missing or holds none."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    found: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            hits = sorted(path.rglob(SUMMARY_FILE))
            if not hits:
                raise InputError(f"no {SUMMARY_FILE} under this folder", path=path)
            found.extend(hits)
        else:
            raise InputError("not found", path=path)
    return found


def load_summaries(paths: str | Path | Iterable[str | Path]) -> list[Labelled]:
    """(label, summary) pairs; the label is the folder of each summary file."""
    from skillbench.improve.run import load_loop_summary

    return [(_label(p), load_loop_summary(p)) for p in find_loop_summaries(paths)]


def _label(path: Path) -> str:
    return path.parent.name or str(path)


def as_labelled(
    summaries: LoopSummary | Labelled | Sequence[LoopSummary | Labelled],
) -> list[Labelled]:
    """Accept one summary, one (label, summary) pair, or a list of either."""
    if isinstance(summaries, LoopSummary):
        return [(summaries.skill_name, summaries)]
    if isinstance(summaries, tuple):
        return [summaries]
    labelled: list[Labelled] = []
    for item in summaries:
        labelled.extend(as_labelled(item))
    return labelled


# ---------------------------------------------------------------------------------------------
# Per-round figures


def rounds_frame(
    summaries: LoopSummary | Labelled | Sequence[LoopSummary | Labelled],
) -> pd.DataFrame:
    """Tidy: one row per (run, round, split) with passed, total, rate and the Wilson interval."""
    rows = []
    for label, summary in as_labelled(summaries):
        best = summary.best_iteration.round if summary.best_iteration else None
        for it in summary.iterations:
            for split in SPLITS:
                passed, total = _counts(it, split)
                if total is None:
                    continue
                low, high = wilson_interval(passed, total) if total else (None, None)
                rows.append(
                    {
                        "run": label,
                        "skill": summary.skill_name,
                        "round": it.round,
                        "split": split,
                        "passed": passed,
                        "total": total,
                        "rate": passed / total if total else None,
                        "low": low,
                        "high": high,
                        "errors": it.errors,
                        "is_best": it.round == best,
                    }
                )
    return pd.DataFrame(rows, columns=_ROUND_COLUMNS)


_ROUND_COLUMNS = [
    "run", "skill", "round", "split", "passed", "total", "rate", "low", "high", "errors", "is_best"
]  # fmt: skip


def gap_frame(summaries: LoopSummary | Labelled | Sequence[LoopSummary | Labelled]) -> pd.DataFrame:
    """One row per (run, round): train, selection, test and full rates and the train–test gap."""
    rows = []
    for label, summary in as_labelled(summaries):
        best = summary.best_iteration.round if summary.best_iteration else None
        for it in summary.iterations:
            row: dict[str, object] = {"run": label, "skill": summary.skill_name, "round": it.round}
            for split in SPLITS:
                rate = getattr(it, f"{split}_pass_rate")
                row[f"{split}_rate"] = None if rate is None else float(rate)
            train, test = row["train_rate"], row["test_rate"]
            row["train_test_gap"] = (
                train - test if isinstance(train, float) and isinstance(test, float) else None
            )
            row["errors"] = it.errors
            row["is_best"] = it.round == best
            rows.append(row)
    columns = ["run", "skill", "round", *(f"{s}_rate" for s in SPLITS), "train_test_gap"]
    return pd.DataFrame(rows, columns=[*columns, "errors", "is_best"])


def steals_frame(summary: LoopSummary) -> pd.DataFrame:
    """`improve --library`: one row per round and stolen neighbour query (which skill it belongs
    to, fired/runs); a round that stole none has one row with no query. Empty without a library."""
    rows: list[dict[str, object]] = []
    for entry in summary.neighbour_steals or []:
        if not entry.stolen:
            rows.append({"round": entry.round, "stolen": 0})
        for steal in entry.stolen:
            rows.append(
                {
                    "round": entry.round,
                    "stolen": len(entry.stolen),
                    "neighbour": steal.neighbour,
                    "query": steal.query,
                    "fired": f"{steal.triggers}/{steal.runs}",
                }
            )
    return pd.DataFrame(rows, columns=["round", "stolen", "neighbour", "query", "fired"])


def _counts(it: LoopIteration, split: str) -> tuple[int, int | None]:
    total = getattr(it, f"{split}_total")
    if total is None:
        return 0, None
    return int(getattr(it, f"{split}_passed") or 0), int(total)


# ---------------------------------------------------------------------------------------------
# Warning signs (seed 001 "Interpreting Loop Results")


@dataclass(frozen=True)
class WarningSign:
    """One detected warning sign, explained."""

    run: str
    skill: str
    sign: str  # "overfitting", "plateau", "infrastructure"
    rounds: str
    explanation: str


def warning_signs(summary: LoopSummary, label: str | None = None) -> list[WarningSign]:
    """Train rising while test falls (overfitting); full pass rate never above the original, or
    the last k >= 2 rounds within one query of each other (plateau); errored runs rising
    (infrastructure, not description quality)."""
    run = label or summary.skill_name
    its = summary.iterations
    signs: list[WarningSign] = []
    for a, b in itertools.pairwise(its):
        ta, tb = a.train_pass_rate, b.train_pass_rate
        xa, xb = a.test_pass_rate, b.test_pass_rate
        if None in (ta, tb, xa, xb):
            continue
        assert ta is not None and tb is not None and xa is not None and xb is not None
        if tb > ta and xb < xa:
            signs.append(
                WarningSign(
                    run,
                    summary.skill_name,
                    "overfitting",
                    f"{a.round}→{b.round}",
                    f"train rose {ta:.2f}→{tb:.2f} while test fell {xa:.2f}→{xb:.2f}: the new "
                    "wording fits the train queries at the expense of unseen ones",
                )
            )
    never_beaten = False
    if len(its) >= 2:
        first = its[0].full_pass_rate
        later = max(it.full_pass_rate for it in its[1:])
        never_beaten = later <= first
        if never_beaten:
            signs.append(
                WarningSign(
                    run,
                    summary.skill_name,
                    "plateau",
                    f"1→{its[-1].round}",
                    f"no round beat the original's full pass rate ({first:.2f}; best later "
                    f"{later:.2f}): the description has plateaued — more rounds will not help, "
                    "better eval queries or a different approach might",
                )
            )
    flat = flat_tail(its)
    if len(flat) >= 2 and not (never_beaten and flat[0] is its[0]):
        rates = [it.full_pass_rate for it in flat]
        signs.append(
            WarningSign(
                run,
                summary.skill_name,
                "plateau",
                f"{flat[0].round}→{flat[-1].round}",
                f"the last {len(flat)} rounds ({flat[0].round}–{flat[-1].round}) have full pass "
                f"rates within one query of each other ({min(rates):.2f}–{max(rates):.2f}): the "
                "description has stopped improving — more rounds will not help, better eval "
                "queries or a different approach might",
            )
        )
    errors = [it.errors for it in its if it.errors is not None]
    if len(errors) >= 2 and errors[-1] > errors[0] and max(errors) > 0:
        signs.append(
            WarningSign(
                run,
                summary.skill_name,
                "infrastructure",
                f"1→{its[-1].round}",
                f"errored runs rose {errors[0]}→{errors[-1]}: timeouts, rate limits or crashes, "
                "not description quality — fix the harness before trusting these rates",
            )
        )
    return signs


def flat_tail(iterations: Sequence[LoopIteration]) -> list[LoopIteration]:
    """The longest run (k >= 2) of final rounds whose full pass rates differ by less than one
    query, i.e. that pass the same number of queries (rates compared to within half of
    1 / full_total, so the 4-decimal rounding of a stored rate cannot blur one query; identical
    rates when no total is known). Empty when there is none, or when every query passes in it
    (nothing is left to gain, so it is no plateau)."""
    tail: list[LoopIteration] = []
    for it in reversed(iterations):
        group = [it, *tail]
        rates = [g.full_pass_rate for g in group]
        totals = [g.full_total for g in group if g.full_total]
        tolerance = 0.5 / max(totals) if totals else 1e-6
        if max(rates) - min(rates) >= tolerance:
            break
        tail = group
    if len(tail) < 2 or all(it.full_pass_rate >= 1.0 for it in tail):
        return []
    return tail


def warnings_frame(
    summaries: LoopSummary | Labelled | Sequence[LoopSummary | Labelled],
) -> pd.DataFrame:
    """Every warning sign of every run, one row each (empty frame when none)."""
    rows = [
        asdict(s)
        for label, summary in as_labelled(summaries)
        for s in warning_signs(summary, label)
    ]
    return pd.DataFrame(rows, columns=["run", "skill", "sign", "rounds", "explanation"])


# ---------------------------------------------------------------------------------------------
# The honest verdict


@dataclass(frozen=True)
class Verdict:
    """Original vs chosen on the test queries: rates, intervals, paired exact McNemar."""

    run: str
    skill: str
    chosen_round: int
    n_test: int
    original_passed: int
    chosen_passed: int
    chosen_rate: float | None
    chosen_low: float | None
    chosen_high: float | None
    only_original: int  # b: test queries passing under the original only
    only_chosen: int  # c: test queries passing under the chosen description only
    p_value: float | None
    conclusion: str
    power_hint: str


def chosen_iteration(summary: LoopSummary) -> LoopIteration:
    """The description the loop keeps: the adoption rule's choice when recorded, else the best
    round on selection (older summaries), else the original."""
    adoption = summary.adoption
    if adoption is not None:
        for it in summary.iterations:
            if it.round == adoption.chosen_round:
                return it
    return summary.best_iteration or summary.iterations[0]


def verdict(summary: LoopSummary, label: str | None = None, *, alpha: float = ALPHA) -> Verdict:
    """The chosen description's test pass rate with its interval, and whether the change from
    the original is real (paired exact McNemar on the test queries)."""
    run = label or summary.skill_name
    original, chosen = summary.iterations[0], chosen_iteration(summary)
    n = int(chosen.test_total or 0)
    low, high = wilson_interval(int(chosen.test_passed or 0), n) if n else (None, None)
    pairs = _paired_test(original, chosen)

    def make(b: int, c: int, p: float | None, conclusion: str, hint: str) -> Verdict:
        return Verdict(
            run=run,
            skill=summary.skill_name,
            chosen_round=chosen.round,
            n_test=n,
            original_passed=int(original.test_passed or 0),
            chosen_passed=int(chosen.test_passed or 0),
            chosen_rate=(chosen.test_passed or 0) / n if n else None,
            chosen_low=low,
            chosen_high=high,
            only_original=b,
            only_chosen=c,
            p_value=p,
            conclusion=conclusion,
            power_hint=hint,
        )

    if chosen.round == original.round:
        return make(
            0,
            0,
            None,
            "the original description was kept (no round beat it on selection by more than "
            "noise): nothing to test",
            "",
        )
    if pairs is None:
        return make(
            0, 0, None, "no per-query test results recorded: a paired test is not possible", ""
        )
    b, c = pairs
    p = mcnemar_exact(b, c)
    return make(b, c, p, _conclusion(b, c, p, n, alpha), _power_hint(b, c, n, alpha))


def _paired_test(original: LoopIteration, chosen: LoopIteration) -> tuple[int, int] | None:
    if original.results is None or chosen.results is None:
        return None
    before = {r.query: r.passed for r in original.results if r.split == "test"}
    after = {r.query: r.passed for r in chosen.results if r.split == "test"}
    if not before or set(before) != set(after):
        return None
    b = sum(1 for q in before if before[q] and not after[q])
    c = sum(1 for q in before if after[q] and not before[q])
    return b, c


def smallest_p(discordant: int) -> float:
    """The smallest two-sided exact McNemar p-value `discordant` pairs can give (all one way)."""
    return mcnemar_exact(0, discordant) if discordant else 1.0


def _conclusion(b: int, c: int, p: float, n: int, alpha: float) -> str:
    d = b + c
    if d == 0:
        return (
            f"original and chosen pass and fail the same {n} test queries: no evidence of any "
            "change on unseen queries"
        )
    if p <= alpha:
        direction = "better" if c > b else "WORSE"
        return (
            f"the chosen description is significantly {direction} on the test queries "
            f"({c} gained, {b} lost; exact McNemar p = {p:.3g})"
        )
    if smallest_p(d) > alpha:
        return (
            f"not significant (p = {p:.3g}): with {n} test queries and only {d} that changed "
            f"verdict, no outcome could reach p ≤ {alpha:g} — n is too small to tell"
        )
    return (
        f"not significant ({c} gained, {b} lost; exact McNemar p = {p:.3g}): not shown to be real"
    )


def _power_hint(b: int, c: int, n: int, alpha: float) -> str:
    """Items needed to detect the observed (or a 10-point) paired difference with 80 % power."""
    if n == 0:
        return "no test queries"
    delta = (c - b) / n
    diffs = [1.0] * c + [-1.0] * b + [0.0] * (n - b - c)
    mean = sum(diffs) / n
    omega = (sum((x - mean) ** 2 for x in diffs) / max(1, n - 1)) ** 0.5
    if delta == 0 or omega == 0:
        delta, omega = 0.1, max(omega, 0.5)
    need = sample_size(delta, omega, alpha=alpha)
    power = power_of(n, delta, omega, alpha=alpha)
    return (
        f"to detect a difference of {abs(delta):.0%} with 80% power you need about {need} test "
        f"queries; with {n} the power is about {power:.0%}"
    )


def verdict_frame(
    summaries: LoopSummary | Labelled | Sequence[LoopSummary | Labelled], *, alpha: float = ALPHA
) -> pd.DataFrame:
    """One verdict per run; with several runs a Holm-adjusted p-value column is added."""
    verdicts = [verdict(s, label, alpha=alpha) for label, s in as_labelled(summaries)]
    frame = pd.DataFrame([asdict(v) for v in verdicts], columns=list(Verdict.__dataclass_fields__))
    tested = [i for i, v in enumerate(verdicts) if v.p_value is not None]
    frame["p_holm"] = None
    if len(tested) > 1:
        adjusted = holm([verdicts[i].p_value or 1.0 for i in tested])
        for i, value in zip(tested, adjusted, strict=True):
            frame.loc[i, "p_holm"] = value
    return frame


def split_frame(summary: LoopSummary) -> pd.DataFrame:
    """Size of each recorded split by class, and its families (who sees what)."""
    role = {
        "train": "the improver sees these",
        "selection": "picks the best round",
        "test": "reported only, no decision",
    }
    rows = []
    if summary.split is not None:
        for name in ("train", "selection", "test"):
            items = getattr(summary.split, name)
            rows.append(
                {
                    "split": name,
                    "role": role[name],
                    "queries": len(items),
                    "positives": sum(1 for q in items if q.should_trigger),
                    "negatives": sum(1 for q in items if not q.should_trigger),
                    "families": len({q.family for q in items if q.family}),
                }
            )
    return pd.DataFrame(
        rows, columns=["split", "role", "queries", "positives", "negatives", "families"]
    )
