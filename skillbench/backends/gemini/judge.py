"""The `gemini` backend's trigger judge: Gemini CLI's own request, replayed (`replay.judge`)."""

from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.replay.judge import ReplayJudge


class GeminiJudge(ReplayJudge):
    """Gemini CLI's captured generateContent request, query swapped, sent through google-genai."""

    agent = GEMINI
