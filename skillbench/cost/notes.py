"""Every note money puts in a report or a plan, worded once."""

from __future__ import annotations

STOPPED = "stopped at the cost cap"
"""The word for a workflow the cap stopped (in notes, errors and skipped items)."""

CAP_ERROR = f"not run: {STOPPED}"
"""The error outcome of a trigger run refused by the cap (never counted, never cached)."""

NO_CACHE = "no call cache (off, or not created yet): every call is counted"
RUNS_AUTO = (
    "--runs auto: counted at the upper bound of --max-runs per query; adaptive sampling "
    "usually stops earlier"
)
ROUNDS = "later rounds evaluate new candidates: counted as uncached, upper bound on rounds"
PROPOSER = (
    "proposer: one call per later round counted; a validator retry or a shortening call (at "
    "most two more per round) is not"
)
RETRY = "an invalid structured reply is asked once more; such retries are not counted"
ANALYZER = "the analyzer's call(s) after the comparison are not counted"
OFFLINE = "local backend: no model call"


def stopped(count: int, what: str = "run(s) not made", *, option: str = "cap") -> str:
    """The note of a workflow the cap stopped: how many of what were left, and how to resume."""
    return f"{STOPPED}: {count} {what}; a re-run with a higher {option} resumes from the call cache"


def backend_unavailable(backend: str, why: str | None = None) -> str:
    """A dry run that could not build the backend to compute cache keys."""
    text = f"backend {backend!r} unavailable here: cache hits not counted"
    return f"{text} ({why})" if why else text
