"""The `claude-code` backend's spec: the real Claude Code CLI, one session per call."""

from skillbench.backends.spec import BackendSpec

CLAUDE_CODE = BackendSpec(
    name="claude-code",
    summary="the real Claude Code CLI (`claude -p`), one session per call",
    judge="skillbench.backends.claude_cli.session:ClaudeCodeJudge",
    text_model="skillbench.backends.claude_cli.session:ClaudeCodeTextModel",
    executor="skillbench.behavior.executors:ClaudeCodeExecutor",
    estimator="skillbench.cost.estimate:ClaudeCodeEstimator",
    default_workers=4,
    cli="claude",
    cli_install="make claude",
    sessions=True,
    aliases=("claude_code", "claudecode"),
)
