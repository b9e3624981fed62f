"""The `opencode` backend's spec: opencode's own request replayed through the anthropic SDK
(`backends/opencode/`; the module names only strings, so listing backends imports nothing)."""

from skillbench.backends.spec import AGENT_CLI_SESSION, BackendSpec, SkillLimits, cli_install_hint

OPENCODE_PACKAGE = "opencode-ai@1.18.33"
"""The pinned npm package of its CLI (`make agents` installs it under a clone's `.tools/`)."""

OPENCODE_SPEC = BackendSpec(
    name="opencode",
    summary="opencode 1.18.33's own first request (captured once per skill set), replayed "
    "through the anthropic SDK",
    judge="skillbench.backends.opencode.judge:OpencodeJudge",
    # opencode's provider here is Anthropic: the improver (`improve --agent opencode`) and the
    # graders use the Messages API directly
    text_model="skillbench.backends.anthropic.sdk:AnthropicTextModel",
    harness_label="opencode's own request, replayed through the anthropic SDK",
    default_workers=16,
    beside_cache="skillbench.backends.replay.store:beside_cache",
    estimator="agent-replay",  # the captured request as sent, counted (`cost.estimate`)
    key_variable="ANTHROPIC_API_KEY",
    cli="opencode",
    # `run`: the real CLI's agentic session per case run (`backends/opencode/behavior.py`)
    executor=AGENT_CLI_SESSION,
    session_cli="skillbench.backends.opencode.behavior:OPENCODE_SESSION",
    cli_package=OPENCODE_PACKAGE,
    cli_make_target="agents",
    agent="opencode",
    transcripts="skillbench.field.opencode:OPENCODE_IMPORTER",
    cli_install=cli_install_hint(
        OPENCODE_PACKAGE, "opencode", "SKILLBENCH_OPENCODE_BIN", "agents", working_dir=True
    ),
    skill_limits=SkillLimits(
        "opencode",
        64,
        1024,
        True,
        False,
        enforced=False,
        note="opencode 1.18.33 listed such skills anyway (measured)",
    ),
)
