"""`--escalate`: undecided replay runs (another tool first) re-run through the claude-code backend.

The replay harness sees only the model's first move; when that is another tool (Bash, Read, ...)
the run is undecided. With escalation such a run is sent again to the real CLI, which plays the
session out, and its outcome replaces the undecided one (`detail["escalated_from"]` names the tool
called first). Off by default: each escalated run costs a whole agent session.
"""

from __future__ import annotations

from typing import Any

from skillbench.backends.base import TriggerJudge, TriggerOutcome, TriggerRequest


class EscalatingJudge:
    """A judge whose undecided outcomes are re-run through `fallback`."""

    def __init__(self, primary: TriggerJudge, fallback: TriggerJudge) -> None:
        self.inner = primary
        self.fallback = fallback
        self.name = primary.name
        self.model = primary.model
        self.is_proxy = primary.is_proxy
        self.escalated = 0

    def identity(self) -> dict[str, Any]:
        """The primary's identity (each inner judge keys its own cache entries)."""
        return {**self.inner.identity(), "escalate": self.fallback.identity()}

    def versions(self) -> dict[str, str]:
        """The primary's versions and the fallback's, prefixed."""
        versions = dict(self.inner.versions())
        versions.update({f"escalation_{k}": v for k, v in self.fallback.versions().items()})
        return versions

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """The primary's outcome, or the fallback's when the primary was undecided."""
        outcome = await self.inner.judge(request)
        if outcome.undecided is None or outcome.error is not None:
            return outcome
        self.escalated += 1
        second = await self.fallback.judge(request)
        second.detail = {**second.detail, "escalated_from": outcome.undecided}
        return second

    async def aclose(self) -> None:
        """Close both judges."""
        try:
            await self.inner.aclose()
        finally:
            await self.fallback.aclose()
