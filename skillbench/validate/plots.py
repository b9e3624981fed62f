"""The matplotlib figures the notebooks show: a flat module of independent functions.

Each function takes plain data (usually a DataFrame) and returns a new `Figure` built without
pyplot's global state, so it works the same in a kernel, a test or a script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

if TYPE_CHECKING:
    import pandas as pd

LEVEL_COLOURS = {"error": "#c0392b", "warning": "#e69f00"}


def findings_by_code_figure(findings: pd.DataFrame, *, title: str = "Findings by code") -> Figure:
    """Horizontal bars: number of findings per code, stacked and coloured by level.

    `findings` has at least the columns `code` and `level` (rows with a null code, i.e. skills
    without findings, are ignored).
    """
    rows = findings.dropna(subset=["code"]) if len(findings) else findings
    fig = Figure(
        figsize=(7.0, max(2.0, 0.4 * max(rows["code"].nunique() if len(rows) else 0, 1) + 1.2))
    )
    ax = fig.add_subplot()
    ax.set_title(title)
    if not len(rows):
        ax.text(0.5, 0.5, "no findings", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    counts = rows.groupby(["code", "level"]).size().unstack("level", fill_value=0)
    counts = counts.loc[counts.sum(axis=1).sort_values().index]
    left = [0] * len(counts)
    codes = [str(code) for code in counts.index]
    for level in [lvl for lvl in LEVEL_COLOURS if lvl in counts.columns] + [
        lvl for lvl in counts.columns if lvl not in LEVEL_COLOURS
    ]:
        values = [int(v) for v in counts[level]]
        ax.barh(
            codes,
            values,
            left=left,
            color=LEVEL_COLOURS.get(str(level), "#7f7f7f"),
            label=str(level),
        )
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.set_xlabel("findings")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.margins(x=0.08)
    ax.legend(title="level", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig
