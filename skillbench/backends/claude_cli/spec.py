"""The `claude-code` backend's spec: the real Claude Code CLI, one session per call."""

from skillbench.backends.claude_cli.tested import CLAUDE_PIN
from skillbench.backends.spec import AGENT_SESSION, CLAUDE_SESSION, BackendSpec, cli_install_hint

CLAUDE_PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_PIN}"
"""The pinned npm package (`make claude` installs it under a clone's `.tools/`)."""
CLAUDE_INSTALL_HINT = cli_install_hint(CLAUDE_PACKAGE, "claude", "SKILLBENCH_CLAUDE_BIN", "claude")
"""What to do when no `claude` is found (the claude-code backend and the replay harness)."""

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
    cli_install=CLAUDE_INSTALL_HINT,
    cli_package=CLAUDE_PACKAGE,
    sessions=True,
    aliases=("claude_code", "claudecode"),
)
