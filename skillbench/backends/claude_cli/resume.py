"""A print session continued after its turn ended: `claude -p --resume <session id>` with the
next prompt on stdin (a scripted answer to the question the turn ended with).

Resuming needs the session stored (no `--no-session-persistence`; the isolated HOME keeps it and
goes with the run's folder). Each invocation ends with its own `result` event; `merge_results`
makes the one result of the whole session. Measured: both 2.1.197 and 2.1.332 keep the session
id on `--resume`, and report each invocation's own `usage`, `num_turns` and `duration_ms`; but
2.1.332 restores the session's cost, so its `total_cost_usd` and `modelUsage` are the session's
totals so far, where 2.1.197 reports the invocation's own. A result whose `modelUsage` holds at
least the previous result's plus its own usage is taken as such a total."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from skillbench.backends.claude_cli.stream_json import ResultEvent
from skillbench.schemas.cost import TokenCounts

__all__ = [
    "NO_PERSISTENCE",
    "SCRIPTED_ANSWER",
    "FollowUp",
    "answer_event",
    "merge_results",
    "resume_args",
    "stored_args",
]

NO_PERSISTENCE = "--no-session-persistence"
#: The `skillbench` mark of the `user` event standing for a prompt sent on `--resume`.
SCRIPTED_ANSWER = "scripted_answer"
_MODEL_USAGE_KEYS = (
    "inputTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "cacheCreationInputTokens",
)


class FollowUp(Protocol):
    """Given the reply a turn ended with: the next prompt of the same session, or None (the
    session ends). `resumable` False: the session cannot go on (told, so it is logged)."""

    def __call__(self, reply: str, resumable: bool = True) -> str | None: ...


def stored_args(args: Sequence[str]) -> list[str]:
    """`args` without `--no-session-persistence` (a session to be resumed must be stored)."""
    return [a for a in args if a != NO_PERSISTENCE]


def resume_args(args: Sequence[str], session_id: str) -> list[str]:
    """`args` continuing the stored session `session_id`."""
    return [*stored_args(args), "--resume", session_id]


def answer_event(prompt: str) -> dict[str, Any]:
    """A stream-json `user` event standing for `prompt`, sent on `--resume` (the CLI does not
    echo it), marked `"skillbench": "scripted_answer"` for the transcript."""
    return {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": prompt}]},
        "skillbench": SCRIPTED_ANSWER,
    }


def _model_tokens(result: ResultEvent) -> int | None:
    """Tokens of the result's `modelUsage` over every model (None without one)."""
    raw: Any = (result.model_extra or {}).get("modelUsage")
    if not isinstance(raw, dict) or not raw:
        return None
    total = 0
    for usage in raw.values():
        if isinstance(usage, dict):
            total += sum(
                int(usage[k]) for k in _MODEL_USAGE_KEYS if isinstance(usage.get(k), int | float)
            )
    return total


def _own_tokens(result: ResultEvent) -> int:
    usage = result.usage
    return (
        usage.input_tokens
        + usage.output_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
    )


def _sum(values: Sequence[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def merge_results(results: Sequence[ResultEvent]) -> ResultEvent:
    """The result of a session run as several invocations: the last one's outcome and reply,
    usage, turns and durations summed, the cost summed (or the session total a resumed
    invocation reports, see the module's note)."""
    if len(results) == 1:
        return results[0]
    usage = TokenCounts()
    cost = 0.0
    previous: int | None = None
    for result in results:
        usage = usage + result.usage
        model = _model_tokens(result)
        total = (
            previous is not None and model is not None and model >= previous + _own_tokens(result)
        )
        cost = result.total_cost_usd if total else cost + result.total_cost_usd
        previous = model
    return results[-1].model_copy(
        update={
            "usage": usage,
            "total_cost_usd": cost,
            "num_turns": _sum([r.num_turns for r in results]),
            "duration_ms": _sum([r.duration_ms for r in results]),
            "duration_api_ms": _sum([r.duration_api_ms for r in results]),
        }
    )
