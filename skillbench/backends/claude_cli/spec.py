"""The `claude-code` backend's spec: the real Claude Code CLI, one session per call."""

from skillbench.backends.claude_cli.skill_keys import CLAUDE_CODE_SKILL_KEYS
from skillbench.backends.claude_cli.tested import CLAUDE_PIN
from skillbench.backends.spec import AGENT_SESSION, CLAUDE_SESSION, BackendSpec, cli_install_hint

CLAUDE_PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_PIN}"
"""The pinned npm package (`make claude` installs it under a clone's `.tools/`)."""
CLAUDE_INSTALL_HINT = cli_install_hint(CLAUDE_PACKAGE, "claude", "SKILLBENCH_CLAUDE_BIN", "claude")
"""What to do when no `claude` is found (the claude-code backend and the replay harness)."""

CLAUDE_CODE = BackendSpec(
    name="claude-code",
    summary="the real Claude Code CLI (interactive in a pty, or `claude -p`), one session per call",
    judge="skillbench.backends.claude_cli.interactive_session:claude_code_judge",
    text_model="skillbench.backends.claude_cli.session:ClaudeCodeTextModel",
    executor=CLAUDE_SESSION,
    estimator=AGENT_SESSION,
    harness_label="Claude Code CLI, print mode (stream-json)",  # interactive: its versions()
    cli_modes=True,  # --cli-mode interactive (the default, a pty) or print (`claude -p`)
    default_workers=4,  # CLI processes: each a Node process of a few hundred MB
    cli="claude",
    cli_install=CLAUDE_INSTALL_HINT,
    cli_package=CLAUDE_PACKAGE,
    cli_make_target="claude",
    sessions=True,
    # the validator's default profile: Claude Code's own keys and the checks of their values
    skill_keys=CLAUDE_CODE_SKILL_KEYS,
    default_profile=True,
    reference_for="anthropic",  # `agreement`: the replay (A) against the real CLI (B)
    escalation=True,  # `--escalate`: undecided replay runs re-run through the real CLI
    aliases=("claude_code", "claudecode"),
)
