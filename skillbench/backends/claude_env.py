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
#: Set for every run: no updater, no telemetry, no nonessential traffic.
FIXED_ENV = {
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


def is_session_var(name: str) -> bool:
    """Whether `name` is set by a running Claude Code session for its children."""
    return name in SESSION_VARS or any(p.match(name) for p in SESSION_PATTERNS)


def passthrough_env(source: Mapping[str, str]) -> dict[str, str]:
    """`source` without the session variables and the HOME-config variables."""
    return {k: v for k, v in source.items() if not is_session_var(k) and k not in HOME_VARS}


def minimal_env(source: Mapping[str, str]) -> dict[str, str]:
    """Only the whitelisted variables of `source` (the older, stricter policy)."""
    return {k: source[k] for k in MINIMAL_VARS if k in source}


def isolated_home_env(home: Path) -> dict[str, str]:
    """HOME, the Claude config dir and the XDG folders, all inside `home` (created)."""
    config = home / ".claude"
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
        env.update(isolated_home_env(home))
    for name in drop:
        env.pop(name, None)
    env.update(FIXED_ENV)
    env.update(extra or {})
    return env


def secret_values(*sources: Mapping[str, str]) -> list[str]:
    """The secret values present in `sources` (for redaction only)."""
    return [s[name] for s in sources for name in SECRET_VARS if s.get(name)]
