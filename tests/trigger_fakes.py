"""A deterministic scripted TriggerJudge for trigger-eval tests (no network, no model)."""

from __future__ import annotations

import asyncio
from typing import Any

from skillbench.backends.base import CallUsage, TriggerOutcome, TriggerRequest

OTHER_SKILL = "other-skill"


class ScriptedJudge:
    """Answers each run from a per-query script, one character per run index (cycled):

    T triggered · N nothing fired · O another skill fired · E error outcome · R raises ·
    H hangs (sleeps 5 s, for timeouts) · U another tool first (undecided) · B broken answer
    (a max_tokens cut). Queries missing from the script answer N.
    """

    def __init__(
        self,
        script: dict[str, str],
        *,
        name: str = "scripted",
        is_proxy: bool = False,
        delay: float = 0.0,
        tokens: int = 10,
    ) -> None:
        self.script = script
        self.name = name
        self.model: str | None = "fake-1"
        self.is_proxy = is_proxy
        self.delay = delay
        self.tokens = tokens
        self.requests: list[TriggerRequest] = []
        self.active = 0
        self.max_active = 0
        self.closed = False

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "script": self.script}

    def versions(self) -> dict[str, str]:
        return {"scripted": "1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        self.requests.append(request)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            pattern = self.script.get(request.query, "N")
            code = pattern[request.run_index % len(pattern)]
            usage = CallUsage(input_tokens=self.tokens, output_tokens=1, cost_usd=0.001)
            if code == "T":
                return TriggerOutcome(True, fired=request.target.name, usage=usage)
            if code == "O":
                return TriggerOutcome(False, fired=OTHER_SKILL, usage=usage)
            if code == "E":
                return TriggerOutcome(False, error="api error 529 overloaded", usage=usage)
            if code == "U":
                return TriggerOutcome(False, undecided="Bash", usage=usage)
            if code == "B":
                detail = {"error_kind": "max_tokens"}
                return TriggerOutcome(False, error="max_tokens: cut", usage=usage, detail=detail)
            if code == "R":
                raise RuntimeError("crashed with key sk-ant-api03-SECRETSECRET")
            if code == "H":
                await asyncio.sleep(5)
            return TriggerOutcome(False, fired=None, usage=usage)
        finally:
            self.active -= 1

    async def aclose(self) -> None:
        self.closed = True


class ManyJudge(ScriptedJudge):
    """A scripted proxy judge that also offers ``judge_many`` (counts the batch calls)."""

    def __init__(self, script: dict[str, str], **kwargs: Any) -> None:
        super().__init__(script, is_proxy=True, **kwargs)
        self.batches: list[int] = []

    async def judge_many(self, requests: list[TriggerRequest]) -> list[TriggerOutcome]:
        self.batches.append(len(requests))
        return [await self.judge(r) for r in requests]
