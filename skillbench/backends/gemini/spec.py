"""The `gemini` backend's spec: Gemini CLI's own first request replayed through google-genai
(`backends/gemini/`; the module names only strings, so listing backends imports nothing)."""

from skillbench.backends.spec import AGENT_CLI_SESSION, BackendSpec, SkillLimits, cli_install_hint
from skillbench.extras import AGENTS

GEMINI_PACKAGE = "@google/gemini-cli@0.61.0"
"""The pinned npm package of its CLI (`make agents` installs it under a clone's `.tools/`)."""

GEMINI_SPEC = BackendSpec(
    name="gemini",
    summary="Gemini CLI 0.61.0's own first request (captured once per skill set, approval mode "
    "yolo unless SKILLBENCH_GEMINI_APPROVAL_MODE says otherwise), replayed through google-genai",
    judge="skillbench.backends.gemini.judge:GeminiJudge",
    harness_label="Gemini CLI's own request, replayed through google-genai",
    default_workers=16,
    key_variable="GEMINI_API_KEY",
    cli="gemini",
    # the captured templates beside the call cache in use (`replay.store.beside_cache`)
    beside_cache="skillbench.backends.replay.store:beside_cache",
    estimator="agent-replay",  # the captured request as sent, counted (`cost.estimate`)
    extra=AGENTS,
    # `run`: the real CLI's agentic session per case run (`backends/gemini/behavior.py`)
    executor=AGENT_CLI_SESSION,
    session_cli="skillbench.backends.gemini.behavior:GEMINI_SESSION",
    cli_package=GEMINI_PACKAGE,
    cli_make_target="agents",
    agent="gemini",
    transcripts="skillbench.field.gemini:GEMINI_IMPORTER",
    cli_install=cli_install_hint(
        GEMINI_PACKAGE, "gemini", "SKILLBENCH_GEMINI_BIN", "agents", working_dir=True
    ),
    skill_limits=SkillLimits(
        "Gemini CLI", None, None, False, False, enforced=False, note="not checked on 0.61.0"
    ),
)
