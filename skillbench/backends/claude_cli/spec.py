"""The `claude-code` backend's spec: the real Claude Code CLI, one session per call."""

from skillbench.backends.spec import AGENT_SESSION, CLAUDE_SESSION, BackendSpec

CLAUDE_CODE = BackendSpec(
    name="claude-code",
    summary="the real Claude Code CLI (`claude -p`), one session per call",
    judge="skillbench.backends.claude_cli.session:ClaudeCodeJudge",
    text_model="skillbench.backends.claude_cli.session:ClaudeCodeTextModel",
    executor=CLAUDE_SESSION,
    estimator=AGENT_SESSION,
    harness_label="Claude Code CLI, print mode (stream-json)",
    default_workers=4,  # CLI processes: each a Node process of a few hundred MB
    cli="claude",
    cli_install="make claude",
    sessions=True,
    aliases=("claude_code", "claudecode"),
)
