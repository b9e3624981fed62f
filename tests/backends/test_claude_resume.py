"""A print session resumed after its turn ended: the flags keep it stored and name it, and the
invocations' `result` events merge into the session's one. The result shapes are those measured
with the real CLIs: 2.1.197 reports each invocation's own cost, 2.1.332 the session's total so
far (its `modelUsage` grows with each invocation)."""

from __future__ import annotations

from typing import Any

import pytest

from skillbench.backends.claude_cli.resume import merge_results, resume_args, stored_args
from skillbench.backends.claude_cli.stream_json import ResultEvent


def result(cost: float, model_tokens: int | None, text: str, **extra: Any) -> ResultEvent:
    usage = {"input_tokens": 300, "output_tokens": 12}
    model = {} if model_tokens is None else {"modelUsage": {"m": {"inputTokens": model_tokens}}}
    return ResultEvent.model_validate(
        {
            "type": "result",
            "subtype": "success",
            "result": text,
            "usage": usage,
            "total_cost_usd": cost,
            "num_turns": 1,
            "duration_ms": 400,
            "session_id": "s-1",
            **model,
            **extra,
        }
    )


@pytest.mark.parametrize(
    ("first", "second", "cost"),
    [
        # 2.1.197: each invocation's own cost and model usage
        (result(0.0018, 312, "Which repo?"), result(0.0018, 312, "Done."), 0.0036),
        # 2.1.332: the resumed invocation reports the session's total
        (result(0.00144, 312, "Which repo?"), result(0.00288, 624, "Done."), 0.00288),
        # no modelUsage: summed
        (result(0.001, None, "Which repo?"), result(0.002, None, "Done."), 0.003),
    ],
)
def test_results_merge(first: ResultEvent, second: ResultEvent, cost: float) -> None:
    merged = merge_results([first, second])
    assert merged.total_cost_usd == pytest.approx(cost)
    assert (merged.usage.input_tokens, merged.usage.output_tokens) == (600, 24)
    assert (merged.num_turns, merged.duration_ms, merged.result) == (2, 800, "Done.")
    assert merge_results([first]) is first


def test_flags() -> None:
    flags = ["-p", "--no-session-persistence", "--max-turns", "3"]
    assert stored_args(flags) == ["-p", "--max-turns", "3"]
    assert resume_args(flags, "s-1") == ["-p", "--max-turns", "3", "--resume", "s-1"]
