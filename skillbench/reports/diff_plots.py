"""The figure of a report diff: each item's rate in A against B (changed items marked)."""

from __future__ import annotations

from matplotlib.figure import Figure

from skillbench.reports.diff import ReportDiff

_STYLE = {
    "improved": ("#1a7f37", "^", "improved"),
    "regressed": ("#cf222e", "v", "regressed"),
    "still fails": ("#8c959f", "x", "still fails"),
    "still passes": ("#0072b2", "o", "still passes"),
}


def diff_figure(diff: ReportDiff) -> Figure:
    """Scatter of every paired item's rate (trigger rate, or expectation pass rate) in A (x) and
    B (y); the diagonal is "no change"; colour and marker say whether the pass/fail outcome
    changed."""
    fig = Figure(figsize=(5.8, 5.2))
    ax = fig.add_subplot()
    for change, (color, marker, label) in _STYLE.items():
        points = [
            (c.a_rate, c.b_rate)
            for c in diff.changes
            if c.change == change and c.a_rate is not None and c.b_rate is not None
        ]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.scatter(xs, ys, c=color, marker=marker, label=f"{label} ({len(points)})", alpha=0.8)
    ax.plot([0, 1], [0, 1], color="#555555", linestyle="--", linewidth=1)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    what = "trigger rate" if diff.kind == "trigger" else "pass rate"
    ax.set_xlabel(f"A: {what}")
    ax.set_ylabel(f"B: {what}")
    ax.set_title(
        f"{diff.improved} improved, {diff.regressed} regressed (McNemar p = {diff.p_value:.3g})",
        fontsize=10,
    )
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig
