"""The `codex` backend's trigger judge: Codex CLI's own request, replayed (`agents.judge`)."""

from skillbench.backends.agents.judge import AgentReplayJudge
from skillbench.backends.codex.agent import CODEX


class CodexJudge(AgentReplayJudge):
    """Codex CLI's captured Responses request, query swapped, sent through the openai SDK."""

    agent = CODEX
