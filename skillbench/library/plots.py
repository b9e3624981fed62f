"""Library-routing figures, built without pyplot's global state."""

from __future__ import annotations

from matplotlib.figure import Figure

from skillbench.library.document import LibraryReport
from skillbench.library.frames import MAX_SHOWN_SKILLS, most_confused, routing_matrix_frame

MAX_LISTED = 60
"""A larger library's listing figure shows its widest lines only."""
STATE_COLOURS = {
    "full": "#009e73",
    "truncated": "#e69f00",
    "name-only": "#d55e00",
    "absent": "#999999",
}


def confusion_heatmap(report: LibraryReport) -> Figure:
    """Rows: the skill a query was written for; columns: what fired; each cell the row's share
    of runs (the count written in it). A library of more than `MAX_SHOWN_SKILLS` skills is
    drawn for its most confused skills only (the other skills' fires summed in one column)."""
    total = len(report.per_skill)
    skills = most_confused(report) if total > MAX_SHOWN_SKILLS else None
    counts = routing_matrix_frame(report, skills=skills)
    rates = routing_matrix_frame(report, rates=True, skills=skills).to_numpy(dtype=float)
    fig = Figure(
        figsize=(max(5.0, 0.55 * len(counts.columns) + 2.5), max(3.0, 0.45 * len(counts) + 2.0))
    )
    cells = counts.to_numpy(dtype=int)
    ax = fig.add_subplot()
    image = ax.imshow(rates, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    for i in range(len(counts.index)):
        for j in range(len(counts.columns)):
            n = int(cells[i, j])
            if n:
                colour = "white" if float(rates[i, j]) > 0.6 else "black"
                ax.text(j, i, str(n), ha="center", va="center", fontsize=7, color=colour)
    ax.set_xticks(range(len(counts.columns)))
    ax.set_xticklabels(list(counts.columns), rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(counts.index)))
    ax.set_yticklabels(list(counts.index), fontsize=8)
    ax.set_xlabel("fired")
    ax.set_ylabel("written for")
    ax.set_title(
        "which skill took which request (share of the row's runs)"
        + (f"\nthe {len(skills)} most confused of {total} skills" if skills is not None else "")
    )
    fig.colorbar(image, ax=ax, fraction=0.03)
    fig.tight_layout()
    return fig


def skill_listing_figure(report: LibraryReport) -> Figure:
    """Each skill's listing line width, coloured by how Claude Code lists it, with the budget; a
    library of more than `MAX_LISTED` skills shows its widest lines only."""
    every = report.listing.skills if report.listing is not None else []
    skills = every
    if len(every) > MAX_LISTED:
        widest = sorted(range(len(every)), key=lambda i: -every[i].chars)[:MAX_LISTED]
        skills = [every[i] for i in sorted(widest)]
    fig = Figure(figsize=(7.5, max(2.5, 0.3 * len(skills) + 1.4)))
    ax = fig.add_subplot()
    for y, s in enumerate(skills):
        ax.barh([y], [s.chars], color=STATE_COLOURS[s.state], label=s.state)
    ax.set_yticks(range(len(skills)))
    ax.set_yticklabels([s.name for s in skills], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("characters of the skill's full listing line")
    budget = report.listing.budget_chars if report.listing is not None else None
    applied = report.listing is None or report.listing.applied
    ax.set_title(
        "skill listing: full / truncated / name only"
        + (f" (budget {budget:,} characters for the whole listing)" if budget else "")
        + ("" if applied else "\nnot applied by this harness: it sent every description in full")
        + (f"\nthe {len(skills)} widest of {len(every)} skills" if skills is not every else "")
    )
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=False))
    if unique:
        ax.legend(unique.values(), unique.keys(), fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig
