"""Behavior-eval figures (benchmark), built without pyplot's global state."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from skillbench.schemas import skill_creator as sc


def paired_differences_figure(doc: sc.SCBenchmark) -> Figure:
    """Per-case pass-rate differences (candidate − baseline) with each case's interval, and their
    mean with its t interval (the headline; marked rough under 10 cases); the dashed line is no
    difference."""
    paired = (doc.model_extra or {}).get("paired") or {}
    cases = paired.get("cases", [])
    fig = Figure(figsize=(7.5, max(2.5, 0.4 * len(cases) + 1.6)))
    ax = fig.add_subplot()
    labels = [str(c["case_id"]) for c in cases]
    for y, case in enumerate(cases):
        diff = case["difference"]
        low, high = case.get("ci") or [None, None]
        xerr = None if low is None or high is None else [[diff - low], [high - diff]]
        ax.errorbar([diff], [y], xerr=xerr, fmt="o", color="#0072b2", capsize=3, zorder=3)
    mean = paired.get("mean_difference")
    low, high = paired.get("t_ci") or [None, None]
    y = len(cases)
    if mean is not None and low is not None and high is not None:
        ax.errorbar(
            [mean], [y], xerr=[[mean - low], [high - mean]], fmt="D", color="#d55e00", capsize=4
        )
    level = round(100 * float(paired.get("confidence", 0.95)))
    rough = ", rough" if paired.get("rough") else ""
    labels.append(f"mean ({level}% t CI, n={paired.get('n_cases')}{rough})")
    ax.axvline(0.0, color="#555555", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel(f"pass-rate difference: {paired.get('candidate')} − {paired.get('baseline')}")
    ax.set_title("Paired per-case differences (cases: Newcombe interval over their runs)")
    fig.tight_layout()
    return fig


def expectation_matrix_figure(matrix: pd.DataFrame, *, max_label: int = 90) -> Figure:
    """Heatmap of pass rate per expectation (rows) and configuration (columns); grey = ungraded.

    The figure grows with the table: about 1.3 in per configuration and 0.45 in per expectation;
    labels are wrapped onto two lines (shortened beyond `max_label` characters).
    """
    if matrix.empty:
        fig = Figure(figsize=(4, 1.5))
        fig.text(0.5, 0.5, "no graded expectations", ha="center")
        return fig
    table = matrix.assign(label=matrix["case"] + ": " + matrix["expectation"]).pivot_table(
        index="label", columns="config", values="pass rate", aggfunc="mean", dropna=False
    )
    values = table.to_numpy(dtype=float)
    n_rows, n_cols = values.shape
    label_width = 4.2  # inches for two-line labels of ~45 characters at 8 pt
    fig = Figure(figsize=(label_width + 1.3 * n_cols + 1.3, max(2.8, 0.45 * n_rows + 1.6)))
    grid = fig.add_gridspec(
        1,
        2,
        width_ratios=[1.3 * n_cols, 0.18],
        left=label_width / (label_width + 1.3 * n_cols + 1.3),
        right=0.86,
        wspace=0.08,
    )
    ax = fig.add_subplot(grid[0, 0])
    bar_ax = fig.add_subplot(grid[0, 1])
    masked = np.ma.masked_invalid(values)
    image = ax.imshow(masked, cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_facecolor("#cccccc")
    for (row, col), value in np.ndenumerate(values):
        text = "not graded" if math.isnan(value) else f"{value:.2f}"
        ax.text(col, row, text, ha="center", va="center", fontsize=8)
    ax.set_xticks(range(n_cols))
    ax.set_xticklabels(list(table.columns), fontsize=9)
    ax.xaxis.tick_top()
    ax.set_yticks(range(n_rows))
    ax.set_yticklabels([_wrap_label(str(i), max_label) for i in table.index], fontsize=8)
    colorbar = fig.colorbar(image, cax=bar_ax)
    colorbar.set_label("pass rate over graded runs", fontsize=9)
    colorbar.ax.tick_params(labelsize=8)
    ax.set_title(
        "Pass rate per expectation and configuration (grey: never graded)", fontsize=10, pad=22
    )
    return fig


def _wrap_label(text: str, limit: int) -> str:
    """Shorten to `limit` characters at a word boundary, then wrap onto lines of 48."""
    short = textwrap.shorten(text, limit, placeholder="…")
    return "\n".join(textwrap.wrap(short, 48)[:2])


_CONFIG_COLORS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")


def grading_chart_figure(rates: pd.DataFrame, *, max_label: int = 90) -> Figure:
    """Pass rate per expectation (rows) and configuration (one colour each) with its Wilson 95 %
    interval over the graded runs (`grading_rates_frame`); expectations never graded in a
    configuration are left out of it and say so in the legend count."""
    graded = rates[rates["graded"] > 0] if not rates.empty else rates
    if graded.empty:
        fig = Figure(figsize=(5, 1.5))
        fig.text(0.5, 0.5, "no graded expectations: nothing to chart", ha="center")
        return fig
    labels = list(dict.fromkeys(graded["label"]))
    configs = list(dict.fromkeys(graded["config"]))
    fig = Figure(figsize=(9.5, max(2.8, 0.42 * len(labels) * max(1, len(configs)) / 1.6 + 1.6)))
    ax = fig.add_subplot()
    step = 0.7 / max(1, len(configs))
    for index, config in enumerate(configs):
        part = graded[graded["config"] == config]
        ys = [
            labels.index(label) + (index - (len(configs) - 1) / 2) * step for label in part["label"]
        ]
        rate = part["pass rate"].to_numpy(dtype=float)
        low = rate - part["low"].to_numpy(dtype=float)
        high = part["high"].to_numpy(dtype=float) - rate
        ax.errorbar(
            rate,
            ys,
            xerr=[low, high],
            fmt="o",
            capsize=3,
            color=_CONFIG_COLORS[index % len(_CONFIG_COLORS)],
            label=f"{config} ({len(part)} expectations)",
        )
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels([_wrap_label(str(label), max_label) for label in labels], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-0.03, 1.03)
    ax.set_xlabel("pass rate over graded runs (Wilson 95% interval)")
    ax.grid(axis="x", color="#dddddd")
    ax.legend(
        fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(configs), frameon=False
    )
    ax.set_title("Pass rate per expectation and configuration", fontsize=10, pad=24)
    fig.tight_layout()
    return fig
