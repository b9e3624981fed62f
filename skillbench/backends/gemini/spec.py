"""The `gemini` backend's spec: Gemini CLI's own first request replayed through google-genai
(`backends/gemini/`; the module names only strings, so listing backends imports nothing)."""

from skillbench.backends.spec import SkillLimits, npm_agent_spec
from skillbench.extras import AGENTS

GEMINI_PACKAGE = "@google/gemini-cli@0.61.0"
"""The pinned npm package of its CLI (`make agents` installs it under a clone's `.tools/`)."""

GEMINI_SPEC = npm_agent_spec(
    "gemini",
    GEMINI_PACKAGE,
    summary="Gemini CLI 0.61.0's own first request (captured once per skill set, approval mode "
    "yolo unless SKILLBENCH_GEMINI_APPROVAL_MODE says otherwise), replayed through google-genai",
    judge="skillbench.backends.gemini.judge:GeminiJudge",
    harness_label="Gemini CLI's own request, replayed through google-genai",
    key_variable="GEMINI_API_KEY",
    extra=AGENTS,
    session_cli="skillbench.backends.gemini.behavior:GEMINI_SESSION",
    transcripts="skillbench.field.gemini:GEMINI_IMPORTER",
    skill_limits=SkillLimits(
        "Gemini CLI", None, None, False, False, enforced=False, note="not checked on 0.61.0"
    ),
)
