"""Behavior-eval figures (benchmark), built without pyplot's global state."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from skillbench.schemas import skill_creator as sc


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def paired_differences_figure(doc: sc.SCBenchmark) -> Figure:
    """Per-case pass-rate differences (candidate − baseline) and their mean with its bootstrap
    interval; the dashed line is no difference."""
    paired = (doc.model_extra or {}).get("paired") or {}
    cases = paired.get("cases", [])
    fig = Figure(figsize=(7.5, max(2.5, 0.4 * len(cases) + 1.6)))
    ax = fig.add_subplot()
    labels = [str(c["case_id"]) for c in cases]
    ax.scatter([c["difference"] for c in cases], range(len(cases)), color="#0072b2", zorder=3)
    mean = paired.get("mean_difference")
    low, high = paired.get("bootstrap_ci", [None, None])
    y = len(cases)
    if mean is not None and low is not None and high is not None:
        ax.errorbar(
            [mean], [y], xerr=[[mean - low], [high - mean]], fmt="D", color="#d55e00", capsize=4
        )
    labels.append("mean (95% bootstrap CI)")
    ax.axvline(0.0, color="#555555", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel(f"pass-rate difference: {paired.get('candidate')} − {paired.get('baseline')}")
    ax.set_title("Paired per-case differences (runs averaged within each case)")
    fig.tight_layout()
    return fig


def expectation_matrix_figure(matrix: pd.DataFrame, *, max_label: int = 70) -> Figure:
    """Heatmap of pass rate per expectation (rows) and configuration (columns); grey = ungraded."""
    if matrix.empty:
        fig = Figure(figsize=(4, 1.5))
        fig.text(0.5, 0.5, "no graded expectations", ha="center")
        return fig
    table = matrix.assign(label=matrix["case"] + ": " + matrix["expectation"]).pivot_table(
        index="label", columns="config", values="pass rate", aggfunc="mean", dropna=False
    )
    values = table.to_numpy(dtype=float)
    fig = Figure(figsize=(2.0 + 1.3 * len(table.columns), max(2.5, 0.3 * len(table) + 1.4)))
    ax = fig.add_subplot()
    masked = np.ma.masked_invalid(values)
    image = ax.imshow(masked, cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_facecolor("#cccccc")
    for (row, col), value in np.ndenumerate(values):
        text = "–" if math.isnan(value) else f"{value:.2f}"
        ax.text(col, row, text, ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(table.columns)))
    ax.set_xticklabels(list(table.columns), fontsize=8)
    ax.set_yticks(range(len(table.index)))
    ax.set_yticklabels(
        [textwrap.shorten(_short(str(i), max_label), max_label) for i in table.index], fontsize=7
    )
    fig.colorbar(image, ax=ax, label="pass rate (graded runs)")
    ax.set_title("Expectation × configuration (grey: never graded)")
    fig.tight_layout()
    return fig
