"""The environment an agent session sees: an allowlist, never the caller's whole environment.

A session runs code the model chose (a skill's script, a Bash call), so anything in its
environment can end up in a file, encoded past any redaction. It therefore gets only:

- `BASE_VARS` and `LC_*` (where programs are, language, time zone, terminal);
- the agent's own non-secret settings: `REQUEST_SETTINGS` (measured to change the request, and
  keyed) and `AGENT_VARS` / `ANTHROPIC_DEFAULT_*_MODEL` (model pins, timeouts);
- an isolated HOME (`isolated_home_env`), so the user's skills, plugins, settings and memory
  never reach a run;
- instead of a provider key (`KEY_VARS`), a random dummy key and a loopback base URL: the key
  forwarder (`backends.key_forwarder`) holds the real key and forwards only to the configured
  base URL (the runner passes that as `route`);
- the documented exception, `PROVIDER_VARS`: with `CLAUDE_CODE_USE_BEDROCK`, `_VERTEX` or
  `_FOUNDRY`, that provider's own variables (AWS or Google credentials sign the requests, which a
  forwarder cannot re-sign), and without a forwarder (Bedrock, Vertex, Foundry, `--auth login`)
  the proxy and CA variables the CLI then needs itself (`NETWORK_VARS`).

Everything else stays out: GitHub tokens, other providers' keys, cloud secrets of a provider
not in use, the variables a running Claude Code session sets for its children (`SESSION_VARS`)
and those pointing at the caller's own configuration (`HOME_VARS`). `$SKILLBENCH_PASS_ENV`
(comma-separated names, a trailing `*` for a prefix) lets named extra variables through on
purpose; it never lets a provider key through.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
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
#: Passed from the caller to every session (none is a secret or points at a configuration).
BASE_VARS = frozenset(
    {
        "PATH",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "TMPDIR",
        "USER",
        "LOGNAME",
        "SYSTEMROOT",
    }
)
#: Claude Code's own non-secret settings beyond `REQUEST_SETTINGS`: model pins and timeouts.
AGENT_VARS = frozenset(
    {
        "ANTHROPIC_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION",
        "CLAUDE_CODE_SUBAGENT_MODEL",
        "API_TIMEOUT_MS",
        "CLAUDE_CODE_MAX_RETRIES",
        "MCP_TIMEOUT",
        "MCP_TOOL_TIMEOUT",
    }
)
_MODEL_PIN = re.compile(r"^ANTHROPIC_DEFAULT_[A-Z0-9_]+_MODEL(_NAME|_DESCRIPTION)?$")
#: The provider keys: never in a session; the key forwarder holds them, the session gets dummies.
KEY_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")
#: The cloud providers' own variables, passed only when that provider is selected (the
#: exception: their requests are signed with these credentials, no forwarder can swap a key).
PROVIDER_VARS: dict[str, tuple[re.Pattern[str], ...]] = {
    "bedrock": (
        re.compile(r"^CLAUDE_CODE_(USE|SKIP)_BEDROCK(_AUTH)?$"),
        re.compile(r"^AWS_[A-Z0-9_]+$"),
        re.compile(r"^ANTHROPIC_(BEDROCK|AWS)_[A-Z0-9_]+$"),
    ),
    "vertex": (
        re.compile(r"^CLAUDE_CODE_(USE|SKIP)_VERTEX(_AUTH)?$"),
        re.compile(r"^ANTHROPIC_VERTEX_[A-Z0-9_]+$"),
        re.compile(r"^(CLOUD_ML_REGION|VERTEX_REGION_[A-Z0-9_]+)$"),
        re.compile(r"^(GOOGLE_APPLICATION_CREDENTIALS|GOOGLE_CLOUD_PROJECT|GCLOUD_PROJECT)$"),
        re.compile(r"^CLOUDSDK_[A-Z0-9_]+$"),
    ),
    "foundry": (
        re.compile(r"^CLAUDE_CODE_(USE|SKIP)_FOUNDRY(_AUTH)?$"),
        re.compile(r"^ANTHROPIC_FOUNDRY_[A-Z0-9_]+$"),
    ),
}
#: What a CLI talking to the provider itself (no forwarder) needs to reach it.
NETWORK_VARS = frozenset(
    {
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "no_proxy",
        "NODE_EXTRA_CA_CERTS",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_CUSTOM_HEADERS",
    }
)
#: The variable naming extra variables a caller lets through on purpose.
PASS_VARIABLE = "SKILLBENCH_PASS_ENV"
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


def provider_of(environ: Mapping[str, str]) -> str:
    """Which API the CLI calls: `bedrock`, `vertex`, `foundry` or `anthropic`."""
    for name in ("bedrock", "vertex", "foundry"):
        flag = f"CLAUDE_CODE_USE_{name.upper()}"
        if environ.get(flag, "").strip().lower() not in ("", "0", "false"):
            return name
    return "anthropic"


def named_passes(environ: Mapping[str, str]) -> list[str]:
    """The names and prefixes (`NAME*`) of `$SKILLBENCH_PASS_ENV`."""
    return [item.strip() for item in environ.get(PASS_VARIABLE, "").split(",") if item.strip()]


def allowed(name: str, provider: str, named: Sequence[str] = ()) -> bool:
    """Whether variable `name` may reach a session of `provider` (never a key, a session
    variable or a HOME-config variable)."""
    if name in KEY_VARS or is_session_var(name) or name in HOME_VARS:
        return False
    if name in BASE_VARS or name.startswith("LC_") or name in REQUEST_SETTINGS:
        return True
    if name in AGENT_VARS or _MODEL_PIN.match(name):
        return True
    if any(p.match(name) for p in PROVIDER_VARS.get(provider, ())):
        return True
    return any(name == n or (n.endswith("*") and name.startswith(n[:-1])) for n in named)


def allowlisted_env(source: Mapping[str, str], *, strict: bool = False) -> dict[str, str]:
    """The variables of `source` a session may see (`allowed`); `strict` keeps `BASE_VARS`
    and `LC_*` only."""
    if strict:
        return {k: v for k, v in source.items() if k in BASE_VARS or k.startswith("LC_")}
    provider = provider_of(source)
    named = named_passes(source)
    return {k: v for k, v in source.items() if allowed(k, provider, named)}


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
    route: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of one run: the allowlisted variables (`allowlisted_env`) of the
    caller's environment (`source`, default the process's) and of the explicit `extra`.

    `route` is where the provider is reached: the key forwarder's dummy keys and loopback
    `ANTHROPIC_BASE_URL`. Without one, no key passes; the base URL, custom headers, proxies and
    CA variables do (`NETWORK_VARS`: a Bedrock/Vertex/Foundry or login run reaches the provider
    itself). `home` None keeps the caller's HOME and its config variables (no isolation).
    `pass_env` False keeps only `BASE_VARS` and `LC_*` (plus `extra`). `drop` names variables to
    leave out. `extra` is applied after FIXED_ENV (an explicit `env=` wins over it), a key in it
    excepted: keys go to the forwarder, never to the session.
    """
    environ = dict(os.environ if source is None else source)
    explicit = {k: v for k, v in (extra or {}).items() if k not in KEY_VARS}
    merged = {**environ, **(extra or {})}
    env = allowlisted_env(merged, strict=not pass_env)
    if route is None:
        env.update({k: v for k, v in merged.items() if k in NETWORK_VARS})
    if home is None:
        env.update({k: v for k, v in environ.items() if k in HOME_VARS})
    else:
        env.update(isolated_home_env(home, create=create_home))
    for name in drop:
        env.pop(name, None)
        explicit.pop(name, None)
    env.update(FIXED_ENV)
    env.update({k: v for k, v in explicit.items() if not is_session_var(k)})
    if route is not None:
        env.update(route)
    return env


def secret_values(*sources: Mapping[str, str]) -> list[str]:
    """The secret values present in `sources` (for redaction only)."""
    return [s[name] for s in sources for name in SECRET_VARS if s.get(name)]


def request_settings(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The request-changing settings present in `env` (default: the process environment)."""
    source = os.environ if env is None else env
    return {name: source[name] for name in REQUEST_SETTINGS if source.get(name)}
