"""Figures and HTML views of improvement loops: split rates per round, gaps, word diffs."""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Sequence

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from skillbench.schemas.loop import LoopSummary

SPLIT_STYLE = {
    "train": ("tab:blue", "o"),
    "selection": ("tab:orange", "s"),
    "test": ("tab:green", "^"),
}
_TOKEN = re.compile(r"\s+|[^\s]+")


def split_rates_figure(rounds: pd.DataFrame, *, title: str = "Pass rate per round") -> Figure:
    """Train / selection / test pass rates per round with Wilson 95 % bars, from
    `overfit.rounds_frame` (one run); the chosen round is shaded."""
    fig = Figure(figsize=(7.5, 4.0))
    ax = fig.add_subplot()
    offsets = {"train": -0.12, "selection": 0.0, "test": 0.12}
    for split, (colour, marker) in SPLIT_STYLE.items():
        part = rounds[rounds["split"] == split].sort_values("round")
        if part.empty:
            continue
        x = part["round"] + offsets[split]
        rate = part["rate"].astype(float)
        below = (rate - part["low"].astype(float)).clip(lower=0)
        above = (part["high"].astype(float) - rate).clip(lower=0)
        ax.errorbar(
            x, rate, yerr=[below, above], fmt=marker + "-", color=colour, capsize=3, label=split
        )
    best = rounds.loc[rounds["is_best"].astype(bool), "round"]
    if not best.empty:
        chosen = int(best.iloc[0])
        ax.axvspan(
            chosen - 0.35, chosen + 0.35, color="grey", alpha=0.15, label="chosen (selection)"
        )
    ax.set_xlabel("round (1 = original description)")
    ax.set_ylabel("pass rate (95% Wilson interval)")
    ax.set_ylim(-0.02, 1.05)
    if not rounds.empty:
        ax.set_xticks(sorted(int(r) for r in rounds["round"].unique()))
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def gap_figure(gaps: pd.DataFrame, *, title: str = "Train – test gap per round") -> Figure:
    """Train minus test pass rate per round, one line per run (from `overfit.gap_frame`);
    a gap growing round after round is the shape of overfitting."""
    fig = Figure(figsize=(7.5, 4.0))
    ax = fig.add_subplot()
    for run, part in gaps.groupby("run", sort=True):
        part = part.sort_values("round")
        ax.plot(part["round"], part["train_test_gap"].astype(float), marker="o", label=str(run))
        best = part[part["is_best"].astype(bool)]
        if not best.empty:
            ax.scatter(
                best["round"], best["train_test_gap"].astype(float), s=120, facecolors="none",
                edgecolors="black", zorder=3,
            )  # fmt: skip
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("round (1 = original; circled = chosen on selection)")
    ax.set_ylabel("train − test pass rate")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title)
    if not gaps.empty:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def word_diff_html(old: str, new: str) -> str:
    """A word-level diff of two descriptions as HTML; every piece of text is HTML-escaped.

    Removed words are wrapped in `<del>`, added words in `<ins>`.
    """
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    parts: list[str] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(html.escape("".join(a[i1:i2])))
            continue
        if op in {"delete", "replace"}:
            parts.append(f'<del style="background:#fdd">{html.escape("".join(a[i1:i2]))}</del>')
        if op in {"insert", "replace"}:
            parts.append(f'<ins style="background:#dfd">{html.escape("".join(b[j1:j2]))}</ins>')
    return "".join(parts)


def round_diffs_html(summary: LoopSummary) -> str:
    """Every round's description as a word diff from the previous round's, in one HTML block."""
    blocks: list[str] = []
    previous: str | None = None
    best = summary.best_iteration.round if summary.best_iteration else None
    for it in summary.iterations:
        label = f"Round {it.round}" + (" (original)" if it.round == 1 else "")
        if it.round == best:
            label += " — chosen on selection"
        body = (
            html.escape(it.description)
            if previous is None
            else word_diff_html(previous, it.description)
        )
        note = f"<br><small>{html.escape(it.proposal_note)}</small>" if it.proposal_note else ""
        blocks.append(f"<h4>{html.escape(label)}</h4><p>{body}{note}</p>")
        previous = it.description
    return "\n".join(blocks)


def descriptions_frame(summaries: Sequence[LoopSummary]) -> pd.DataFrame:
    """Round, length and text of every description (for a plain table)."""
    rows = [
        {
            "skill": s.skill_name,
            "round": it.round,
            "chars": len(it.description),
            "description": it.description,
        }
        for s in summaries
        for it in s.iterations
    ]
    return pd.DataFrame(rows, columns=["skill", "round", "chars", "description"])
