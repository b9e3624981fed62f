"""The `codex` backend's spec: Codex CLI's own first request replayed through the openai SDK's
Responses API (`backends/codex/`; the module names only strings, so listing backends imports
nothing)."""

from skillbench.backends.spec import AGENT_CLI_SESSION, BackendSpec, SkillLimits, cli_install_hint
from skillbench.extras import AGENTS

CODEX_PACKAGE = "@openai/codex@0.169.0"
"""The pinned npm package of its CLI (`make agents` installs it under a clone's `.tools/`)."""

CODEX_SPEC = BackendSpec(
    name="codex",
    summary="Codex CLI 0.169.0's own first request (captured once per skill set), replayed "
    "through the openai SDK's Responses API (public-API acceptance of Codex's request shape "
    "unverified)",
    judge="skillbench.backends.codex.judge:CodexJudge",
    # `--harness session`: the real `codex exec` per query-run, for when OpenAI's public API
    # refuses the replayed request (`backends/codex/session.py`)
    harnesses={
        "replay": "skillbench.backends.codex.judge:CodexJudge",
        "session": "skillbench.backends.codex.session:CodexSessionJudge",
    },
    default_harness="replay",
    harness_label="Codex CLI's own request, replayed through the openai SDK's Responses API",
    default_workers=16,
    key_variable="OPENAI_API_KEY",
    cli="codex",
    # the captured templates beside the call cache in use (`replay.store.beside_cache`)
    beside_cache="skillbench.backends.replay.store:beside_cache",
    estimator="agent-replay",  # the captured request as sent, counted (`cost.estimate`)
    extra=AGENTS,
    # `run`: the real CLI's agentic session per case run (`backends/codex/behavior.py`)
    executor=AGENT_CLI_SESSION,
    session_cli="skillbench.backends.codex.behavior:CODEX_SESSION",
    cli_package=CODEX_PACKAGE,
    cli_make_target="agents",
    agent="codex",
    transcripts="skillbench.field.codex:CODEX_IMPORTER",
    cli_install=cli_install_hint(
        CODEX_PACKAGE, "codex", "SKILLBENCH_CODEX_BIN", "agents", working_dir=True
    ),
    skill_limits=SkillLimits("Codex CLI", 64, 1024, False, True, enforced=True),
)
