"""The `gemini` backend's trigger judge: Gemini CLI's own request, replayed (`agents.judge`)."""

from skillbench.backends.agents.judge import AgentReplayJudge
from skillbench.backends.gemini.agent import GEMINI


class GeminiJudge(AgentReplayJudge):
    """Gemini CLI's captured generateContent request, query swapped, sent through google-genai."""

    agent = GEMINI
