"""The model's first move in one replayed reply: the one vocabulary of every agent's replay
(Claude Code, opencode, Gemini CLI, Codex CLI), and the reader that stops a stream once the move
is known.

Kinds (`Move.kind`), as outcomes and reports show them:
- `target`: the agent's skill mechanism invoked for the target skill;
- `other-skill`: invoked for another skill (named in `fired`);
- `disabled-skill`: invoked for a skill the agent refuses to run (Claude Code's
  `disable-model-invocation: true`): not a trigger, even when it names the target;
- `other-tool`: another tool first (named in `tool`): undecided, never a miss;
- `text`: an answer without a tool: did not trigger;
- `error`: a broken answer, `error_kind` saying which (`empty`, `max_tokens`, `refusal`,
  `malformed_tool_call`, `incomplete`, …).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from skillbench.backends.skill_install import CliSkill
from skillbench.schemas.cost import TokenCounts

TARGET = "target"
OTHER_SKILL = "other-skill"
DISABLED_SKILL = "disabled-skill"
OTHER_TOOL = "other-tool"
TEXT = "text"
ERROR = "error"
MOVES = (TARGET, OTHER_SKILL, DISABLED_SKILL, OTHER_TOOL, TEXT, ERROR)

DRAIN_SECONDS = 1.0
"""After the move is decided, how long the rest of the reply may take to arrive before the
stream is cut off (closing a stream mid-body also closes its connection: the next call pays a
new TLS handshake)."""
DEADLINE_MARGIN = 0.05
"""Seconds the drain leaves before the call's deadline: nothing after the decision undoes it."""


@dataclass
class Move:
    """The model's first move in one reply (see the module docstring); None as `kind` while a
    fold has not decided it."""

    kind: str | None = None
    fired: str | None = None
    tool: str | None = None
    tool_input: Any = None
    """Another tool's input as kept in an outcome (for `skillbench explain`), when known."""
    error_kind: str | None = None
    stop_reason: str | None = None
    text: str = ""
    usage: TokenCounts = field(default_factory=TokenCounts)
    """Token counts of the reply (cost is added by the judge from the price table)."""
    closed_early: bool = False
    output_estimated: bool = False


class Fold(Protocol):
    """Folds an agent's stream events into its first `Move`."""

    @property
    def decided(self) -> bool:
        """Whether the move is known (the rest of the reply changes nothing)."""
        ...

    def feed(self, event: Any) -> bool:
        """Consume one event; True once the move is decided."""
        ...

    def close_early(self) -> None:
        """The stream is cut off after the decision (its closing events will not arrive)."""
        ...

    def finish(self) -> Move:
        """The move, settled at the end of the stream (or when it broke off)."""
        ...


class CallFold:
    """The ground of a fold whose move is the reply's first tool call (Gemini CLI's, Codex
    CLI's): the target and the installed skills, the move once a call decided it, the text
    seen before one. `finish` (the agent's) settles the move and marks it closed early when the
    reply's closing event, which carries the usage, never came."""

    def __init__(self, target: str, skills: Sequence[CliSkill] = ()) -> None:
        self.target = target
        self.skills = tuple(skills)
        self.move: Move | None = None
        self.text: list[str] = []

    @property
    def decided(self) -> bool:
        """Whether a call decided the move."""
        return self.move is not None

    def close_early(self) -> None:
        """Nothing to record: `settle` sees that the closing event never came."""

    def settle(
        self, broken: str | None, stop_reason: str | None, prompt: int, cached: int, output: int
    ) -> Move:
        """The move: the call's; else, when no call came, a broken answer of kind `broken`
        (None: none), the text answer, or an `empty` one. With its stop reason (None: the
        closing event never came, so a decided move was cut off) and its usage (`prompt`
        tokens, `cached` of them read from the cache, `output` tokens)."""
        move = self.move
        text = "".join(self.text).strip()
        if move is None:
            if broken is not None:
                move = Move(ERROR, error_kind=broken, text=text)
            elif text:
                move = Move(TEXT, text=text)
            else:
                move = Move(ERROR, error_kind="empty")
        move.stop_reason = stop_reason
        move.usage = TokenCounts(
            input_tokens=max(prompt - cached, 0),
            cache_read_input_tokens=cached,
            output_tokens=output,
        )
        move.closed_early = self.move is not None and stop_reason is None
        return move


async def read_first_move(
    events: AsyncIterable[Any],
    fold: Fold,
    as_event: Callable[[Any], Any] | None = None,
    *,
    stop_when_decided: bool,
    drain_seconds: float = DRAIN_SECONDS,
    deadline: float | None = None,
    began: Callable[[bool], None] | None = None,
) -> None:
    """Feed `events` (each through `as_event`) to `fold` until it decides. Then, when
    `stop_when_decided`, read the rest for at most `drain_seconds` and never past `deadline` (the
    loop time the whole call must end by, less `DEADLINE_MARGIN`): after a tool call that is only
    the closing events (the real output count, and the connection goes back to the pool). A
    reply still going after that, a late error or a dropped connection leaves the move as it is
    and the stream cut off (`Fold.close_early`). `began(True)` is called at each event (the
    response has begun)."""
    iterator = events.__aiter__()
    convert: Callable[[Any], Any] = as_event or _same
    async for event in iterator:
        if began is not None:
            began(True)
        if fold.feed(convert(event)) and stop_when_decided:
            break
    else:
        return
    budget = drain_seconds
    if deadline is not None:
        budget = min(budget, deadline - asyncio.get_running_loop().time() - DEADLINE_MARGIN)
    if budget <= 0:
        fold.close_early()
        return
    try:
        async with asyncio.timeout(budget):
            async for event in iterator:
                fold.feed(convert(event))
    except Exception:  # a timeout, a late error event, a dropped connection: the move stands
        fold.close_early()


def _same(event: Any) -> Any:
    return event
