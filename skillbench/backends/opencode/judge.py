"""The `opencode` backend's trigger judge: opencode's own request, replayed (`agents.judge`)."""

from skillbench.backends.agents.judge import AgentReplayJudge
from skillbench.backends.opencode.agent import OPENCODE


class OpencodeJudge(AgentReplayJudge):
    """opencode's captured Messages request, query swapped, sent through the anthropic SDK."""

    agent = OPENCODE
