"""Documented caps on numeric options, and the checks every entry point shares.

Each check raises InputError naming the option (``--runs``, ``--timeout``…) so the CLI prints
one line and exits 2 before any model call. The caps are generous for research use and stop a
typo (``--runs 100000000``) from planning a run that would never finish.
"""

from __future__ import annotations

import math

from skillbench.errors import InputError

#: Runs per query (trigger evals) or per case and configuration (behavior runs).
MAX_RUNS = 100
#: Runs per query by default, everywhere trigger rates are measured: `skillbench trigger`,
#: `library`, `improve`, `agents`, `agreement`, the Python API (`TriggerOptions.runs`) and the
#: notebooks' `runs` parameter. The fewest runs whose unanimous result settles a verdict at the
#: default threshold 0.5 and 95 % confidence (Wilson(4/4) = [0.51, 1]; 3/3 gives [0.44, 1]).
#: (The PR gate states its own default with its power.)
DEFAULT_RUNS = 4
#: Times `grade --repeats` asks the grader about one run (each asking is one paid call; the
#: stored verdict is the majority). Nine settles a majority well past what self-agreement needs.
MAX_GRADE_REPEATS = 9
#: Concurrent model calls.
MAX_WORKERS = 64
#: Per-run / per-call timeout, seconds (one hour).
MAX_TIMEOUT_SECONDS = 3600.0
#: Default bound of one routing call (a trigger judge on the anthropic backend, either harness, or
#: a `claude -p` trigger session): a first turn ending in one decision. Bounds the whole call,
#: retries and waits included.
ROUTING_CALL_TIMEOUT = 120.0
#: Default bound of one text-generation call (a behavior run's reply, a grader, comparator or
#: improver call, on the API or through `claude -p`): up to 4,096 output tokens, about 2 minutes
#: on the slowest models before any retry.
TEXT_CALL_TIMEOUT = 300.0
#: Default bound of one agentic `claude-code` behavior session: many turns of tool use.
AGENT_SESSION_TIMEOUT = 600.0
#: Default bytes of output files one behavior run (one session) may keep (`run --max-output`):
#: past it the run is an error and only what fits is kept.
DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024
#: Rounds of the description-improvement loop.
MAX_ROUNDS = 50
#: Parts of an `improve --split` (train, selection, test).
SPLIT_PARTS = 3
#: Largest seed accepted (a 63-bit integer, what every backend and numpy accept).
MAX_SEED = 2**63 - 1


def check_int(value: object, option: str, low: int, high: int) -> int:
    """`value` as an int in [low, high]; InputError naming `option` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"must be an integer from {low} to {high}, got {value!r}", path=option)
    return value


def check_float(
    value: object,
    option: str,
    low: float,
    high: float,
    *,
    low_open: bool = False,
) -> float:
    """`value` as a finite float in [low, high] (or (low, high] with `low_open`)."""
    ok = (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (low < value if low_open else low <= value)
        and value <= high
    )
    if not ok:
        bracket = "(" if low_open else "["
        raise InputError(
            f"must be a finite number in {bracket}{low:g}, {high:g}], got {value!r}", path=option
        )
    return float(value)  # type: ignore[arg-type]


def check_timeout(value: float | None, option: str = "--timeout") -> float | None:
    """None (the backend's default) or a finite number of seconds in (0, MAX_TIMEOUT_SECONDS]."""
    if value is None:
        return None
    return check_float(value, option, 0.0, MAX_TIMEOUT_SECONDS, low_open=True)
