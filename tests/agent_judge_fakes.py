"""Two scripted judges that present themselves as agent backends (a class-level `agent`), for
the cross-agent report's tests (registered through `BackendSpec`s naming these classes and
declaring the agent, `BackendSpec.agent`)."""

from __future__ import annotations

from typing import Any

from trigger_fakes import ScriptedJudge


class AgentAlpha(ScriptedJudge):
    """Triggers on both positive queries, never on the negative one."""

    agent = "alpha"

    def __init__(self, **options: Any) -> None:
        super().__init__({"tidy my csv": "T", "dedupe rows": "T", "weather": "N"}, name="alpha")


class AgentBeta(ScriptedJudge):
    """Misses one positive query."""

    agent = "beta"

    def __init__(self, **options: Any) -> None:
        super().__init__({"tidy my csv": "T", "dedupe rows": "N", "weather": "N"}, name="beta")
