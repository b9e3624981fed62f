"""The `anthropic` backend's spec: the Messages API through the official SDK."""

from skillbench.backends.claude_cli.spec import CLAUDE_INSTALL_HINT, CLAUDE_PACKAGE
from skillbench.backends.spec import CONVERSATION, MESSAGES_API, BackendSpec

ANTHROPIC = BackendSpec(
    name="anthropic",
    summary="the Anthropic Messages API (official SDK); trigger harnesses replay and minimal",
    judge="skillbench.backends.anthropic.replay:ReplayJudge",
    text_model="skillbench.backends.anthropic.sdk:AnthropicTextModel",
    executor=CONVERSATION,
    estimator=MESSAGES_API,
    harnesses={
        "replay": "skillbench.backends.anthropic.replay:ReplayJudge",
        "minimal": "skillbench.backends.anthropic.sdk:AnthropicJudge",
    },
    default_harness="replay",
    project_harness="replay",
    harness_label="Messages API (replay of Claude Code's request, or the minimal imitation)",
    default_workers=16,  # HTTP calls in flight; the limiter adapts down on persistent 429s
    key_variable="ANTHROPIC_API_KEY",
    cli="claude",  # the replay harness captures the CLI's request, even with every call cached
    cli_install=CLAUDE_INSTALL_HINT,
    cli_package=CLAUDE_PACKAGE,
    cli_make_target="claude",
    cli_harnesses=("replay",),
    cli_mode_harness="replay",  # the replay capture drives the interactive CLI or `claude -p`
    beside_cache="skillbench.backends.anthropic.capture:beside_cache",
    agent="claude-code",  # its replay harness replays Claude Code's own request
    transcripts="skillbench.field.claude:CLAUDE_IMPORTER",
    agent_aliases=("claude",),
    aliases=("api",),
)
