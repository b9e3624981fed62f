"""The `opencode` backend's spec: opencode's own request replayed through the anthropic SDK
(`backends/opencode/`; the module names only strings, so listing backends imports nothing)."""

from skillbench.backends.spec import SkillLimits, npm_agent_spec

OPENCODE_PACKAGE = "opencode-ai@1.18.33"
"""The pinned npm package of its CLI (`make agents` installs it under a clone's `.tools/`)."""

OPENCODE_SPEC = npm_agent_spec(
    "opencode",
    OPENCODE_PACKAGE,
    summary="opencode 1.18.33's own first request (captured once per skill set), replayed "
    "through the anthropic SDK",
    judge="skillbench.backends.opencode.judge:OpencodeJudge",
    # opencode's provider here is Anthropic: the improver (`improve --agent opencode`) and the
    # graders use the Messages API directly
    text_model="skillbench.backends.anthropic.sdk:AnthropicTextModel",
    harness_label="opencode's own request, replayed through the anthropic SDK",
    key_variable="ANTHROPIC_API_KEY",
    session_cli="skillbench.backends.opencode.behavior:OPENCODE_SESSION",
    transcripts="skillbench.field.opencode:OPENCODE_IMPORTER",
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
