"""The environment a `claude` run sees: the caller's, minus the session and the HOME config.

Claude Code is run many ways: an API key, a subscription login, Bedrock, Vertex, a gateway
behind a proxy with its own CA, pinned model aliases. All of that lives in environment
variables, so the caller's environment passes through by default. Removed are only:

- the variables a running Claude Code session sets for its children (`CLAUDECODE`,
  `CLAUDE_CODE_ENTRYPOINT`, `CLAUDE_CODE_SSE_PORT`, session ids, IDE and plugin paths, …): a
  run started from inside Claude Code must not behave as a nested session;
- the variables that point at the caller's own configuration (`HOME`, `CLAUDE_CONFIG_DIR`,
  `XDG_*`, …): they are replaced by an isolated HOME, so the user's skills, plugins, settings
  and memory never reach a run.

`minimal_env` keeps the older whitelist (PATH, locale, proxies, CA, keys) for callers who
want nothing else to pass.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

#: Set by a running Claude Code session for what it spawns (never passed to a run).
SESSION_VARS = frozenset(
    {
        "CLAUDECODE",
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_CODE_SSE_PORT",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_CODE_SESSION_KIND",
        "CLAUDE_CODE_SESSION_NAME",
        "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
        "CLAUDE_CODE_CHILD_SESSION",
        "CLAUDE_CODE_EXECPATH",
        "CLAUDE_CODE_WORKER_EPOCH",
        "CLAUDE_CODE_TASK_LIST_ID",
        "CLAUDE_CODE_CONTAINER_ID",
        "CLAUDE_AGENT_SDK_VERSION",
        "CLAUDE_AGENT_SDK_CLIENT_APP",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_ENV_FILE",
        "CLAUDE_PLUGIN_ROOT",
        "CLAUDE_PLUGIN_DATA",
        "CLAUDE_SKILL_DIR",
        "CLAUDE_JOB_DIR",
        "CLAUDE_RUNNER_ACTIVITY_FD",
        "CLAUDE_SESSION_INGRESS_TOKEN_FILE",
    }
)
#: Name patterns of session variables (remote sessions, background runners, IDE bridges, file
#: descriptors that are not inherited anyway).
SESSION_PATTERNS = (
    re.compile(r"^CLAUDE_CODE_REMOTE(_.*)?$"),
    re.compile(r"^CLAUDE_CODE_RESUME_.*$"),
    re.compile(r"^CLAUDE_CODE_IDE_.*$"),
    re.compile(r"^CLAUDE_BG_.*$"),
    re.compile(r"^CLAUDE_BRIDGE_.*$"),
    re.compile(r"^CLAUDE_CODE_.*_FILE_DESCRIPTOR$"),
)
#: Point at the caller's own configuration (replaced by the isolated HOME).
HOME_VARS = frozenset(
    {
        "HOME",
        "USERPROFILE",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_SECURESTORAGE_CONFIG_DIR",
        "CLAUDE_CODE_PLUGIN_CACHE_DIR",
        "CLAUDE_CODE_REMOTE_SETTINGS_PATH",
        "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
    }
)
#: The older whitelist, for `pass_env=False`.
MINIMAL_VARS = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "SYSTEMROOT",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_OAUTH_TOKEN",
)
#: Variables whose values are secrets (redacted from anything skillbench keeps).
SECRET_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_REFRESH_TOKEN",
    "ANTHROPIC_CUSTOM_HEADERS",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
)
#: Send the CLI somewhere other than the capture server (never passed to a replay capture).
ROUTING_VARS = frozenset(
    {
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_BEDROCK_BASE_URL",
        "ANTHROPIC_BEDROCK_MANTLE_BASE_URL",
        "ANTHROPIC_VERTEX_BASE_URL",
        "ANTHROPIC_FOUNDRY_BASE_URL",
        "ANTHROPIC_FOUNDRY_RESOURCE",
        "ANTHROPIC_AWS_BASE_URL",
        "ANTHROPIC_UNIX_SOCKET",
        "CLAUDE_CODE_API_BASE_URL",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
        "CLAUDE_CODE_USE_ANTHROPIC_AWS",
        "CLAUDE_CODE_USE_GATEWAY",
        "CLAUDE_CODE_USE_MANTLE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    }
)
#: Set for every run: no updater, no telemetry, no error reports. Each was measured not to
#: change the request (pinned CLI 2.1.197, a capture with and without it: same body, betas and
#: path). `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` is not among them: it changes the request
#: (without it the CLI offers a `DesignSync` tool), so it is the user's setting, passed through
#: and keyed like any other (`REQUEST_SETTINGS`). Without it the CLI opens one connection to
#: api.anthropic.com:443 (seen through a CONNECT-logging proxy; `DISABLE_GROWTHBOOK`,
#: `DO_NOT_TRACK` and `CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL` do not stop it) and,
#: offline, still finishes (2.0 s instead of 1.2 s, exit 0): no hang.
FIXED_ENV = {
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


#: Environment settings that change the CLI's request; part of the template key when set.
#: Found by measurement with the pinned CLI 2.1.197 (see `tests/backends/test_replay_fidelity_env.py`,
#: which re-derives a few): every `process.env.NAME` its embedded cli.js reads, plus its settings
#: allow-list (which holds BASH_DEFAULT_TIMEOUT_MS), less session, HOME, secret and routing
#: variables (475 names), was set in groups of 24 (numbers 23456, flags 1, SHELL /bin/bash) and
#: every group whose captured request (body, betas, version, path; haiku-4-5, one skill) changed
#: was bisected down to single names: the first block. The three of the second block change it so
#: much that the CLI offers no Skill tool at all. The third block holds string- or model-dependent
#: settings the flag values could not reach, each measured by hand (a value set vs unset, on
#: haiku-4-5 or sonnet-4-6: ANTHROPIC_BETAS adds a beta, CLAUDE_CODE_EXTRA_BODY a field,
#: CLAUDE_CODE_EFFORT_LEVEL and CLAUDE_CODE_DISABLE_ADAPTIVE_THINKING change sonnet's thinking,
#: CLAUDE_CODE_SHELL the environment section, SLASH_COMMAND_TOOL_CHAR_BUDGET the listing of a
#: large catalog), and CLAUDE_CODE_DISABLE_1M_CONTEXT, keyed from the CLI's code (it changes a
#: 1M-context model's listing budget) though not measured. That search ran with
#: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC forced on every capture; measured by hand since
#: (unset vs 1): it changes the tools (a `DesignSync` tool without it), so it is listed too. A
#: variable whose effect shows only without it was not searched for again
#: (CLAUDE_CODE_ENABLE_DESIGN_SYNC checked: 0 or 1 change nothing).
REQUEST_SETTINGS = (
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_TIMEOUT_MS",
    "CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS",
    "CLAUDE_CODE_ACTION",
    "CLAUDE_CODE_DISABLE_AGENT_VIEW",
    "CLAUDE_CODE_DISABLE_ATTACHMENTS",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    "CLAUDE_CODE_DISABLE_CLAUDE_API_SKILL",
    "CLAUDE_CODE_DISABLE_CRON",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS",
    "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS",
    "CLAUDE_CODE_DISABLE_THINKING",
    "CLAUDE_CODE_DISABLE_WORKFLOWS",
    "CLAUDE_CODE_ENABLE_EXPERIMENTAL_ADVISOR_TOOL",
    "CLAUDE_CODE_ENABLE_FINE_GRAINED_TOOL_STREAMING",
    "CLAUDE_CODE_ENABLE_TOKEN_USAGE_ATTACHMENT",
    "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS",
    "CLAUDE_CODE_FORCE_MID_CONVERSATION_SYSTEM",
    "CLAUDE_CODE_FORK_SUBAGENT",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "CLAUDE_CODE_NEW_INIT",
    "CLAUDE_CODE_PERFORCE_MODE",
    "CLAUDE_CODE_REPL",
    "CLAUDE_CODE_SAFE_MODE",
    "CLAUDE_CODE_SIMPLE_SYSTEM_PROMPT",
    "CLAUDE_CODE_SIMULATE_PROXY_USAGE",
    "CLAUDE_CODE_VERIFY_PROMPT",
    "CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES",
    "CLAUDE_COWORK_MEMORY_GUIDELINES",
    "CLAUDE_COWORK_MEMORY_INDEX_CONTENT",
    "CLAUDE_MEMORY_STORES",
    "CLAUDE_PROJECT_UUID",
    "DISABLE_INTERLEAVED_THINKING",
    "DISABLE_PROMPT_CACHING",
    "ENABLE_PROMPT_CACHING_1H",
    "ENABLE_TOOL_SEARCH",
    "MAX_THINKING_TOKENS",
    "SHELL",
    # no Skill tool offered at all
    "CLAUDE_CODE_COORDINATOR_MODE",
    "CLAUDE_CODE_SIMPLE",
    "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB",
    # string- or model-dependent, measured by hand; the last from the CLI's code
    "ANTHROPIC_BETAS",
    "CLAUDE_CODE_EXTRA_BODY",
    "CLAUDE_CODE_EFFORT_LEVEL",
    "CLAUDE_CODE_DISABLE_ADAPTIVE_THINKING",
    "CLAUDE_CODE_SHELL",
    "SLASH_COMMAND_TOOL_CHAR_BUDGET",
    "CLAUDE_CODE_DISABLE_1M_CONTEXT",
)


def is_session_var(name: str) -> bool:
    """Whether `name` is set by a running Claude Code session for its children."""
    return name in SESSION_VARS or any(p.match(name) for p in SESSION_PATTERNS)


def passthrough_env(source: Mapping[str, str]) -> dict[str, str]:
    """`source` without the session variables and the HOME-config variables."""
    return {k: v for k, v in source.items() if not is_session_var(k) and k not in HOME_VARS}


def minimal_env(source: Mapping[str, str]) -> dict[str, str]:
    """Only the whitelisted variables of `source` (the older, stricter policy)."""
    return {k: source[k] for k in MINIMAL_VARS if k in source}


def isolated_home_env(home: Path, *, create: bool = True) -> dict[str, str]:
    """HOME, the Claude config dir and the XDG folders, all inside `home` (created unless
    `create` is False)."""
    config = home / ".claude"
    if create:
        config.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "CLAUDE_CONFIG_DIR": str(config),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


def build_env(
    home: Path | None,
    *,
    pass_env: bool = True,
    extra: Mapping[str, str] | None = None,
    drop: frozenset[str] = frozenset(),
    source: Mapping[str, str] | None = None,
    create_home: bool = True,
) -> dict[str, str]:
    """The environment of one run.

    `home` None keeps the caller's HOME (no isolation; session variables are still removed).
    `pass_env` False keeps only MINIMAL_VARS. `drop` names variables to leave out (e.g. the API
    key when `--auth login` is asked for). `extra` is applied last (the caller's explicit `env=`
    wins over everything, FIXED_ENV included).
    """
    environ = dict(os.environ if source is None else source)
    if home is None:
        env = {k: v for k, v in environ.items() if not is_session_var(k)}
    else:
        env = passthrough_env(environ) if pass_env else minimal_env(environ)
        env.update(isolated_home_env(home, create=create_home))
    for name in drop:
        env.pop(name, None)
    env.update(FIXED_ENV)
    env.update(extra or {})
    return env


def secret_values(*sources: Mapping[str, str]) -> list[str]:
    """The secret values present in `sources` (for redaction only)."""
    return [s[name] for s in sources for name in SECRET_VARS if s.get(name)]


def request_settings(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The request-changing settings present in `env` (default: the process environment)."""
    source = os.environ if env is None else env
    return {name: source[name] for name in REQUEST_SETTINGS if source.get(name)}
