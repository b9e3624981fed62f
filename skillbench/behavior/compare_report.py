"""Tables, the outcome figure and escaped findings for the blind_comparison notebook."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import pandas as pd

from skillbench.behavior.compare import CompareSummary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from skillbench.behavior.analyze import AnalysisResult


def verdicts_frame(summary: CompareSummary) -> pd.DataFrame:
    """One row per run pair: what each order showed as A, each order's pick, the verdict."""
    rows = []
    for pair in summary.pair_results:
        row: dict[str, object] = {"case": pair.case_id, "run": pair.run_number}
        record = pair.record
        if record is None:
            row.update(status=pair.status, reason=pair.reason)
            rows.append(row)
            continue
        for judgement in record.judgements:
            n = judgement.order
            row[f"order {n}: A"] = judgement.shown_as["A"]
            row[f"order {n}: picked"] = judgement.winner
            row[f"order {n}: winner"] = judgement.winner_config or "TIE"
        row.update(
            status=pair.status,
            consistent=record.swap_consistent,
            verdict=record.winner_config or "TIE",
        )
        rows.append(row)
    return pd.DataFrame(rows)


def cases_frame(summary: CompareSummary) -> pd.DataFrame:
    """Wins/losses/ties of config_a per case, and the case verdict."""
    names = {"a": summary.config_a, "b": summary.config_b, "tie": "TIE", "none": "-"}
    return pd.DataFrame(
        [
            {
                "case": c.case_id,
                f"{summary.config_a} wins": c.wins,
                f"{summary.config_b} wins": c.losses,
                "ties": c.ties,
                "errors": c.errors,
                "case verdict": names[c.verdict],
            }
            for c in summary.cases
        ]
    )


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def diagnostics_frame(summary: CompareSummary) -> pd.DataFrame:
    """Judge, swap consistency, position bias and the case-level test in one table."""
    interval = (
        "n/a"
        if summary.win_rate_low is None or summary.win_rate_high is None
        else f"[{summary.win_rate_low:.2f}, {summary.win_rate_high:.2f}]"
    )
    rows = [
        ("judge", summary.judge + (f" ({summary.backend})" if summary.backend else "")),
        (
            "run pairs judged / errors / skipped",
            f"{summary.judged} / {summary.errors} / {summary.skipped}",
        ),
        ("swap consistency", _pct(summary.swap_consistency)),
        ("position bias (same label won both orders)", _pct(summary.position_bias_rate)),
        ('label "A" won (decisive judgements)', _pct(summary.a_label_win_rate)),
        (
            f"case win rate of {summary.config_a} (Wilson 95 %)",
            f"{_pct(summary.win_rate)} {interval}",
        ),
        ("sign test p (case wins vs losses)", f"{summary.sign_test_p:.3g}"),
    ]
    return pd.DataFrame(rows, columns=["measure", "value"])


def outcome_figure(summary: CompareSummary) -> Figure:
    """Stacked bars of wins / ties / losses of config_a per case and overall (run pairs)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    labels = [c.case_id for c in summary.cases] + ["all cases"]
    wins = [c.wins for c in summary.cases] + [summary.wins]
    ties = [c.ties for c in summary.cases] + [summary.ties]
    losses = [c.losses for c in summary.cases] + [summary.losses]
    fig = Figure(figsize=(7.5, 0.5 * len(labels) + 1.6))
    ax = fig.subplots()
    y = range(len(labels))
    ax.barh(y, wins, color="#2e7d32", label=f"{summary.config_a} won")
    ax.barh(y, ties, left=wins, color="#9e9e9e", label="tie (incl. order disagreement)")
    left = [w + t for w, t in zip(wins, ties, strict=True)]
    ax.barh(y, losses, left=left, color="#c62828", label=f"{summary.config_b} won")
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.set_xlabel("run pairs")
    proxy = " — DETERMINISTIC PROXY, not a model" if summary.judge != "model" else ""
    ax.set_title(
        f"{summary.config_a} vs {summary.config_b}{proxy}\ncases {summary.case_wins}-"
        f"{summary.case_losses}-{summary.case_ties} (W-L-T), sign test p = "
        f"{summary.sign_test_p:.3g}",
        fontsize=10,
    )
    ax.axhline(len(labels) - 1.5, color="#555555", linewidth=0.8)  # cases above, total below
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def findings_html(result: AnalysisResult | None) -> str:
    """The analyzer's findings as HTML, every model- or skill-supplied string escaped."""
    from skillbench.behavior.analyze import grouped_findings

    if result is None:
        return "<p>The analyzer was not run.</p>"
    if result.document is None:
        return f"<p>No analysis: {html.escape(result.reason or '')}</p>"
    parts = [f"<p>Analyzer: <b>{html.escape(result.analyzer)}</b></p>"]
    extra = result.document.model_extra or {}
    note = (
        extra.get("skillbench", {}).get("note")
        if isinstance(extra.get("skillbench"), dict)
        else None
    )
    if note:
        parts.append(f"<p><i>{html.escape(str(note))}</i></p>")
    for heading, lines in grouped_findings(result.document).items():
        items = "".join(f"<li>{html.escape(line)}</li>" for line in lines) or "<li>(none)</li>"
        parts.append(f"<h4>{html.escape(heading)}</h4><ul>{items}</ul>")
    return "\n".join(parts)
