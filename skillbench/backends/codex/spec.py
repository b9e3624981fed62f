"""The `codex` backend's spec: Codex CLI's own first request replayed through the openai SDK's
Responses API (`backends/codex/`; the module names only strings, so listing backends imports
nothing)."""

from skillbench.backends.spec import SkillLimits, npm_agent_spec
from skillbench.extras import AGENTS

CODEX_PACKAGE = "@openai/codex@0.169.0"
"""The pinned npm package of its CLI (`make agents` installs it under a clone's `.tools/`)."""

CODEX_SPEC = npm_agent_spec(
    "codex",
    CODEX_PACKAGE,
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
    key_variable="OPENAI_API_KEY",
    extra=AGENTS,
    session_cli="skillbench.backends.codex.behavior:CODEX_SESSION",
    transcripts="skillbench.field.codex:CODEX_IMPORTER",
    skill_limits=SkillLimits("Codex CLI", 64, 1024, False, True, enforced=True),
)
