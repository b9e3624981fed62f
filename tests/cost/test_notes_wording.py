"""The cost cap's notes are worded once (`cost/notes.py`), cost blocks included."""

from __future__ import annotations

from skillbench.cost import notes
from skillbench.schemas.cost import CostBlock, cost_lines, cost_summary


def test_a_stopped_cost_block_says_it_as_the_notes_do() -> None:
    block = CostBlock(kind="actual", calls=3, dollars=0.5, cap_usd=0.5, stopped_at_cap=True)
    resume = notes.stopped(2).partition("; ")[2]
    assert f"  {notes.STOPPED}: {resume}" in cost_lines(block)
    assert cost_summary(block).endswith(f"; {notes.STOPPED}")
