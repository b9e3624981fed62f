"""Word diffs are HTML-escaped; the figures draw one series per split / run."""

from __future__ import annotations

from test_overfit import F, T, iteration, summary

from skillbench.improve.overfit import gap_frame, rounds_frame
from skillbench.improve.plots import (
    gap_figure,
    round_diffs_html,
    split_rates_figure,
    word_diff_html,
)


def test_word_diff_marks_changes_and_escapes_everything() -> None:
    out = word_diff_html("Use when <old> & stuff", "Use when <script>alert(1)</script> & stuff")
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<del" in out and "<ins" in out and "&amp;" in out
    assert word_diff_html("same words", "same words") == "same words"


def test_round_diffs_escape_descriptions_and_mark_the_choice() -> None:
    s = summary([iteration(1, [F], [T]), iteration(2, [T], [T])], best=2)
    s.iterations[0].description = "a <b>bold</b> start"
    html = round_diffs_html(s)
    assert "<b>bold" not in html and "&lt;b&gt;" in html
    assert "chosen on selection" in html


def test_figures_have_one_series_per_split_and_run() -> None:
    s = summary([iteration(1, [F, T], [T]), iteration(2, [T, T], [F])], best=1)
    fig = split_rates_figure(rounds_frame(s))
    assert len(fig.axes[0].containers) == 3  # train, selection, test error bars
    fig = gap_figure(gap_frame([("a", s), ("b", s)]))
    assert len(fig.axes[0].lines) == 2 + 1  # two runs and the zero line
