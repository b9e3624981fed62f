"""The backend-agreement figure, built without pyplot's global state."""

from __future__ import annotations

import hashlib

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from skillbench.schemas.agreement import AgreementReport

AGREE = "#009e73"
DISAGREE = "#d55e00"


def _jitter(text: str, scale: float = 0.015) -> float:
    """A small, reproducible offset so queries with equal rates do not hide each other."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return (digest[0] / 255 - 0.5) * 2 * scale


def agreement_figure(report: AgreementReport) -> Figure:
    """Each query's trigger rate under backend A (x) against backend B (y): green where the
    verdicts agree, orange where they do not, hollow where either is undecided (drawn at 0.5 on
    the undecided side); circles should trigger, squares should not. Dashed lines: the
    threshold; the diagonal: equal rates."""
    fig = Figure(figsize=(5.5, 5.0))
    ax = fig.add_subplot()
    for q in report.queries:
        x = q.rate_a if q.rate_a is not None else 0.5
        y = q.rate_b if q.rate_b is not None else 0.5
        colour = "#555555" if q.agree is None else (AGREE if q.agree else DISAGREE)
        ax.plot(
            [x + _jitter(q.query)],
            [y + _jitter(q.query[::-1])],
            marker="o" if q.should_trigger else "s",
            color=colour,
            mfc="white" if q.agree is None else colour,
            linestyle="",
            alpha=0.8,
        )
    ax.plot([0, 1], [0, 1], color="#bbbbbb", linewidth=1)
    ax.axvline(report.threshold, color="#555555", linestyle="--", linewidth=1)
    ax.axhline(report.threshold, color="#555555", linestyle="--", linewidth=1)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(f"trigger rate, A = {report.backend_a.name}")
    ax.set_ylabel(f"trigger rate, B = {report.backend_b.name}")
    kappa = report.kappa.value
    ax.set_title(
        f"{report.skill_name}: agreement "
        + ("undefined" if report.agreement.value is None else f"{report.agreement.value:.2f}")
        + ", κ "
        + ("undefined" if kappa is None else f"{kappa:.2f}"),
        fontsize=10,
    )
    ax.legend(
        handles=[
            Line2D([], [], marker="o", color=AGREE, linestyle="", label="same verdict"),
            Line2D([], [], marker="o", color=DISAGREE, linestyle="", label="different verdict"),
            Line2D(
                [], [], marker="o", color="#555555", mfc="white", linestyle="", label="undecided"
            ),
            Line2D([], [], marker="o", color="#555555", linestyle="", label="should trigger"),
            Line2D([], [], marker="s", color="#555555", linestyle="", label="should not trigger"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=8,
    )
    fig.tight_layout()
    return fig
