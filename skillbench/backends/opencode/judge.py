"""The `opencode` backend's trigger judge: opencode's own request, replayed (`replay.judge`)."""

from skillbench.backends.opencode.agent import OPENCODE
from skillbench.backends.replay.judge import ReplayJudge


class OpencodeJudge(ReplayJudge):
    """opencode's captured Messages request, query swapped, sent through the anthropic SDK."""

    agent = OPENCODE
