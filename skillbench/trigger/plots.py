"""Trigger-eval figures, built without pyplot's global state (work in a kernel, test or script)."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.frames import confusion_frame

POSITIVE = "#0072b2"
NEGATIVE = "#d55e00"


def trigger_rates_figure(report: TriggerReport, *, max_label: int = 60) -> Figure:
    """Each query's trigger rate with its Wilson interval, coloured by expectation (blue: should
    trigger, orange: should not); hollow markers fail, a cross marks an unresolved query; the
    dashed line is the threshold."""
    results = report.results
    fig = Figure(figsize=(8.0, max(2.5, 0.32 * len(results) + 1.4)))
    ax = fig.add_subplot()
    for y, r in enumerate(results):
        colour = POSITIVE if r.should_trigger else NEGATIVE
        if r.unresolved:
            ax.plot([0.5], [y], marker="x", color=colour, markersize=8)
            continue
        low = r.ci_low if r.ci_low is not None else r.trigger_rate
        high = r.ci_high if r.ci_high is not None else r.trigger_rate
        ax.errorbar(
            [r.trigger_rate],
            [y],
            xerr=[[r.trigger_rate - low], [high - r.trigger_rate]],
            fmt="o",
            color=colour,
            mfc=colour if r.passed else "white",
            capsize=3,
        )
    threshold = report.summary.threshold
    ax.axvline(threshold, color="#555555", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(results)))
    ax.set_yticklabels([_short(r.query, max_label) for r in results], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-0.03, 1.03)
    ax.set_xlabel("trigger rate (Wilson interval)")
    ax.set_title(f"{report.skill_name}: trigger rate per query")
    ax.legend(
        handles=[
            Line2D([], [], marker="o", color=POSITIVE, linestyle="", label="should trigger"),
            Line2D([], [], marker="o", color=NEGATIVE, linestyle="", label="should not"),
            Line2D([], [], marker="o", color="#555555", mfc="white", linestyle="", label="fails"),
            Line2D([], [], color="#555555", linestyle="--", label=f"threshold {threshold:g}"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=8,
    )
    fig.tight_layout()
    return fig


def confusion_figure(report: TriggerReport) -> Figure:
    """The 2×2 matrix of query-level decisions (unresolved queries left out)."""
    frame = confusion_frame(report)
    fig = Figure(figsize=(4.2, 3.4))
    ax = fig.add_subplot()
    values = frame.to_numpy()
    ax.imshow(values, cmap="Blues", vmin=0, vmax=max(1, int(values.max())))
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            count = int(values[i, j])
            dark = count > values.max() / 2
            ax.text(
                j,
                i,
                str(count),
                ha="center",
                va="center",
                fontsize=14,
                color="white" if dark else "black",
            )
    ax.set_xticks([0, 1])
    ax.set_xticklabels(list(frame.columns))
    ax.set_yticks([0, 1])
    ax.set_yticklabels(list(frame.index))
    ax.set_xlabel("decided")
    ax.set_ylabel("expected")
    ax.set_title("query-level decisions")
    fig.tight_layout()
    return fig


def _short(text: str, limit: int) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
