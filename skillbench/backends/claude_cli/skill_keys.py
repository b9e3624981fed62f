"""Claude Code's skill frontmatter keys beyond the open standard's, as the newest CLI installed
reads them (`make claude-latest`): the validator's `claude-code` profile (`SkillKeys`, declared
by the claude-code backend's spec). Data only, so listing backends imports nothing more."""

from __future__ import annotations

from skillbench.backends.spec import SkillKeys

CLAUDE_CODE_KEYS_VERSION = "2.1.332"
"""The Claude Code version whose skill frontmatter keys these are (and whose readers the value
checks of `skill_checks` follow)."""
CLAUDE_CODE_DOCUMENTED_KEYS = (
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "context",
    "agent",
    "hooks",
    "when_to_use",
    "disallowed-tools",
    "disallowedTools",
    "effort",
    "shell",
    "paths",
    "background",
)
"""The documented keys of the skill frontmatter schema of Claude Code 2.1.332 (the schema its
own unknown-key check uses; `scripts/claude_skill_keys.py` reads it from the binary)."""
CLAUDE_CODE_INTERNAL_KEYS = (
    "version",
    "arguments",
    "fallback",
    "created_by",
    "improved_by",
    "mcpServers",
    "lspServers",
    "agents",
    "outputStyles",
    "themes",
    "workflows",
    "channels",
    "monitors",
    "settings",
    "userConfig",
    "defaultEnabled",
    "experimental",
    "dependencies",
    "displayName",
    "author",
    "homepage",
    "repository",
    "keywords",
)
"""The keys of that schema the CLI marks internal."""

CLAUDE_CODE_SKILL_KEYS = SkillKeys(
    agent="Claude Code",
    version=CLAUDE_CODE_KEYS_VERSION,
    keys=(*CLAUDE_CODE_DOCUMENTED_KEYS, *CLAUDE_CODE_INTERNAL_KEYS),
    checks="skillbench.backends.claude_cli.skill_checks:CLAUDE_CODE_CHECKS",
)
