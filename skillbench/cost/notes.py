"""Every note money puts in a report or a plan, worded once."""

from __future__ import annotations

# Worded in schemas (below cost) so a cost block's own lines say it the same way.
from skillbench.schemas.cost import STOPPED as STOPPED
from skillbench.schemas.cost import resume_hint as resume_hint

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
    return f"{STOPPED}: {count} {what}; {resume_hint(option)}"


def backend_unavailable(backend: str, why: str | None = None) -> str:
    """A dry run that could not build the backend to compute cache keys."""
    text = f"backend {backend!r} unavailable here: cache hits not counted"
    return f"{text} ({why})" if why else text
