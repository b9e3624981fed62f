"""The `codex` backend's trigger judge: Codex CLI's own request, replayed (`replay.judge`)."""

from skillbench.backends.codex.agent import CODEX
from skillbench.backends.replay.judge import ReplayJudge
from skillbench.schemas.trigger import HarnessInfo

UNVERIFIED = (
    "Codex sends its default model's request in an internal-looking 'responses-lite' shape "
    "(tools as an additional_tools input item, header x-openai-internal-codex-responses-lite); "
    "whether OpenAI's public Responses API accepts it is unverified: a refusal shows as API "
    "errors, never as misses"
)


class CodexJudge(ReplayJudge):
    """Codex CLI's captured Responses request, query swapped, sent through the openai SDK."""

    agent = CODEX

    def harness_info(self) -> HarnessInfo:
        """The agent replay's description, plus the caveat of a responses-lite template."""
        info = super().harness_info()
        lite = any(
            "x-openai-internal-codex-responses-lite" in t.headers
            for t in self.templates_used.values()
        )
        if not lite:
            return info
        return info.model_copy(update={"note": f"{info.note}. {UNVERIFIED}"})
