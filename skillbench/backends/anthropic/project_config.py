"""What of a `--project` folder's Claude Code configuration reaches the capture's copy.

Print mode skips the trust dialog, so whatever the copy configures runs as the evaluator. The
copy therefore keeps no setting that runs anything: read from the settings schema of Claude Code
**2.1.197** (the zod object of its settings, embedded in the CLI; `tests/backends/
test_project_config.py` re-derives every key from the installed CLI and fails on one this module
does not classify), each key is kept or left out, and a key the schema does not have is left out
too (a newer CLI may run it):

- `LEFT_OUT`: the CLI's own list of command settings (`apiKeyHelper` … `subagentStatusLine`, the
  list its trust check reads), `hooks`, `policyHelper`; plugins (`enabledPlugins`,
  `extraKnownMarketplaces`: a plugin brings hooks and MCP servers); what reaches a service or
  starts one (`xaaIdp`, `forceRemoteSettingsRefresh`, `remoteControlAtStartup`,
  `autoUploadSessions`, `daemonColdStart`).
- `sandbox`: kept without the programs it names (`SANDBOX_PROGRAMS`).
- `env`: only the variables that change the request (`REQUEST_SETTINGS`, measured) and name no
  program (`ENV_PROGRAMS`), never a secret or routing variable; any other variable can run code
  (`LD_PRELOAD`, `BASH_ENV`, `GIT_CONFIG_*` setting `core.fsmonitor` for the CLI's `git status`)
  and none of them changes the request.
- `.mcp.json`: its servers left out (each one a command the CLI starts at once).
- `.claude/agents/*.md`: `hooks` and `mcpServers` removed from the frontmatter (the main-thread
  `agent` setting runs them; measured: both markers appeared); a frontmatter they cannot be cut
  from line by line is refused (`InputError` naming the file and the key, exit 2).

Each removal is one note (`"<file>: <key> left out (<why>)"`) in the template's
`project_differs`, so a report says what of the project was not reproduced.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from skillbench.backends.claude_cli.env import REQUEST_SETTINGS, ROUTING_VARS, SECRET_VARS
from skillbench.errors import InputError

SCHEMA_VERSION = "2.1.197"
#: Every top-level key of Claude Code 2.1.197's settings schema (feature shapes included).
SETTINGS_KEYS = frozenset(
    [
        "$schema",
        "apiKeyHelper",
        "proxyAuthHelper",
        "awsCredentialExport",
        "awsAuthRefresh",
        "gcpAuthRefresh",
        "policyHelper",
        "xaaIdp",
        "fileSuggestion",
        "respectGitignore",
        "breakReminder",
        "quietHours",
        "cleanupPeriodDays",
        "skillListingMaxDescChars",
        "skillListingBudgetFraction",
        "wslInheritsWindowsSettings",
        "env",
        "attribution",
        "includeCoAuthoredBy",
        "includeGitInstructions",
        "permissions",
        "model",
        "fallbackModel",
        "availableModels",
        "enforceAvailableModels",
        "modelOverrides",
        "enableAllProjectMcpServers",
        "enabledMcpjsonServers",
        "disabledMcpjsonServers",
        "disableClaudeAiConnectors",
        "skillOverrides",
        "disableBundledSkills",
        "allowedMcpServers",
        "deniedMcpServers",
        "hooks",
        "worktree",
        "disableAllHooks",
        "disableAgentView",
        "disableRemoteControl",
        "disableWorkflows",
        "disableArtifact",
        "enableArtifact",
        "enableWorkflows",
        "workflowKeywordTriggerEnabled",
        "disableSkillShellExecution",
        "defaultShell",
        "respondToBashCommands",
        "allowManagedHooksOnly",
        "allowedHttpHookUrls",
        "httpHookAllowedEnvVars",
        "allowManagedPermissionRulesOnly",
        "allowManagedMcpServersOnly",
        "allowAllClaudeAiMcps",
        "strictPluginOnlyCustomization",
        "statusLine",
        "prUrlTemplate",
        "footerLinksRegexes",
        "subagentStatusLine",
        "enabledPlugins",
        "extraKnownMarketplaces",
        "strictKnownMarketplaces",
        "blockedMarketplaces",
        "disableSideloadFlags",
        "pluginSuggestionMarketplaces",
        "forceLoginMethod",
        "forceLoginGatewayUrl",
        "parentSettingsBehavior",
        "forceLoginOrgUUID",
        "forceRemoteSettingsRefresh",
        "otelHeadersHelper",
        "outputStyle",
        "viewMode",
        "language",
        "skipWebFetchPreflight",
        "sandbox",
        "feedbackSurveyRate",
        "spinnerTipsEnabled",
        "spinnerVerbs",
        "spinnerTipsOverride",
        "syntaxHighlightingDisabled",
        "terminalTitleFromRename",
        "alwaysThinkingEnabled",
        "effortLevel",
        "ultracode",
        "autoCompactWindow",
        "advisorModel",
        "fastMode",
        "fastModePerSessionOptIn",
        "promptSuggestionEnabled",
        "awaySummaryEnabled",
        "showClearContextOnPlanAccept",
        "agent",
        "companyAnnouncements",
        "pluginConfigs",
        "remote",
        "autoUpdatesChannel",
        "minimumVersion",
        "requiredMinimumVersion",
        "requiredMaximumVersion",
        "plansDirectory",
        "tui",
        "voice",
        "channelsEnabled",
        "allowedChannelPlugins",
        "prefersReducedMotion",
        "doneMeansMerged",
        "totalTokensReminder",
        "totalTokensReminderBudget",
        "autoMemoryEnabled",
        "autoMemoryDirectory",
        "autoDreamEnabled",
        "showThinkingSummaries",
        "skipDangerousModePermissionPrompt",
        "skipWorkflowUsageWarning",
        "disableAutoMode",
        "sshConfigs",
        "claudeMd",
        "claudeMdExcludes",
        "pluginTrustMessage",
        "theme",
        "editorMode",
        "verbose",
        "preferredNotifChannel",
        "autoCompactEnabled",
        "precomputeCompactionEnabled",
        "switchModelsOnFlag",
        "autoScrollEnabled",
        "wheelScrollAccelerationEnabled",
        "fileCheckpointingEnabled",
        "showTurnDuration",
        "showMessageTimestamps",
        "terminalProgressBarEnabled",
        "todoFeatureEnabled",
        "teammateMode",
        "remoteControlAtStartup",
        "isolatePeerMachines",
        "daemonColdStart",
        "autoUploadSessions",
        "inputNeededNotifEnabled",
        "agentPushNotifEnabled",
        "skipAutoPermissionPrompt",
        "useAutoModeDuringPlan",
        "autoMode",
        "disableDeepLinkRegistration",
        "voiceEnabled",
        "defaultView",
        "axScreenReader",
    ]
)
_RUNS = "runs a command"
#: The CLI's own list of command settings (its trust check reads these from every source).
CLI_COMMAND_SETTINGS = (
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "fileSuggestion",
    "gcpAuthRefresh",
    "otelHeadersHelper",
    "proxyAuthHelper",
    "statusLine",
    "subagentStatusLine",
)
#: Settings never copied, with why (the note's text).
LEFT_OUT: dict[str, str] = {
    **dict.fromkeys(CLI_COMMAND_SETTINGS, _RUNS),
    "hooks": "runs commands",
    "policyHelper": _RUNS,
    "enabledPlugins": "loads plugins, which run hooks and servers",
    "extraKnownMarketplaces": "installs plugins, which run hooks and servers",
    "xaaIdp": "signs in at an identity provider",
    "forceRemoteSettingsRefresh": "fetches remote settings",
    "remoteControlAtStartup": "connects to claude.ai",
    "autoUploadSessions": "uploads the session",
    "daemonColdStart": "starts a background service",
}
#: `sandbox` keys naming a program the CLI runs.
SANDBOX_PROGRAMS = ("ripgrep", "bwrapPath", "socatPath")
#: Request settings whose value names a program (never set from a project).
ENV_PROGRAMS = frozenset({"SHELL", "CLAUDE_CODE_SHELL"})
#: Frontmatter keys of an agent that run something.
AGENT_COMMAND_KEYS = ("hooks", "mcpServers")
_TOP_KEY = re.compile(r"""^(?P<key>[^\s#\-'"][^:]*?|'[^']*'|"[^"]*")\s*:(\s|$)""")


def env_kept(name: str) -> bool:
    """Whether a project's settings `env` variable reaches the copy: it changes the request,
    names no program and is neither a secret nor sends the CLI elsewhere."""
    return (
        name in REQUEST_SETTINGS
        and name not in ENV_PROGRAMS
        and name not in SECRET_VARS
        and name not in ROUTING_VARS
    )


def sanitise_settings(data: object, rel: str) -> tuple[dict[str, Any], list[str]]:
    """The settings object the copy may keep, and one note per key (or part) left out. What
    is not a JSON object is read as `{}` (the CLI runs nothing from it either)."""
    if not isinstance(data, dict):
        return {}, [f"{rel}: not a JSON object, left out"]
    kept: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in data.items():
        if key in LEFT_OUT:
            notes.append(f"{rel}: {key} left out ({LEFT_OUT[key]})")
        elif key not in SETTINGS_KEYS:
            notes.append(f"{rel}: {key} left out (not a Claude Code {SCHEMA_VERSION} setting)")
        elif key == "env":
            kept[key], dropped = _split(value, env_kept)
            notes += [f"{rel}: env.{name} left out (may run code)" for name in dropped]
        elif key == "sandbox":
            kept[key], dropped = _split(value, lambda name: name not in SANDBOX_PROGRAMS)
            notes += [f"{rel}: sandbox.{name} left out (names a program)" for name in dropped]
        else:
            kept[key] = value
    return kept, notes


def _split(value: object, keep: Any) -> tuple[dict[str, Any], list[str]]:
    """(the entries of the object `value` that `keep` accepts, the names of the others)."""
    if not isinstance(value, dict):
        return {}, []
    return {k: v for k, v in value.items() if keep(k)}, [k for k in value if not keep(k)]


def sanitise_mcp(text: str) -> tuple[str, list[str]]:
    """`.mcp.json` for the copy (no server) and one note per server left out."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    names = list(servers) if isinstance(servers, dict) else []
    notes = [f".mcp.json: mcpServers.{name} left out (starts a server)" for name in names]
    if not names and data != {"mcpServers": {}}:
        notes.append(".mcp.json: left out (starts the servers it names)")
    return '{"mcpServers": {}}\n', notes


def strip_agent_commands(text: str, rel: str) -> tuple[str, list[str]]:
    """An agent file with `AGENT_COMMAND_KEYS` cut from its YAML frontmatter (line by line, the
    rest byte for byte) and one note per key. InputError naming the file and the key when the
    cut frontmatter still holds the key or no longer holds the same other fields."""
    head, body = _frontmatter(text)
    if head is None:
        return text, []
    try:
        before = yaml.safe_load(head)
    except yaml.YAMLError:
        before = None
    if not isinstance(before, dict):  # the CLI reads no hooks from it either
        return text, []
    found = [key for key in AGENT_COMMAND_KEYS if key in before]
    if not found:
        return text, []
    cut = _cut_keys(head, found)
    try:
        after = yaml.safe_load(cut)
    except yaml.YAMLError:
        after = None
    expected = {k: v for k, v in before.items() if k not in found}
    if (after or {}) != expected:
        raise InputError(
            f"--project: the frontmatter key {found[0]!r} runs commands during the capture and "
            "cannot be removed from the copy line by line; write it in block style",
            path=rel,
        )
    notes = [f"{rel}: {key} left out (runs commands)" for key in found]
    return f"---\n{cut}---{body}", notes


def _frontmatter(text: str) -> tuple[str | None, str]:
    """(the YAML between the leading `---` lines, what follows the closing `---`)."""
    if not text.startswith("---"):
        return None, text
    lines = text.splitlines(keepends=True)
    if lines[0].strip() != "---":
        return None, text
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n") == "---":
            rest = "".join(lines[index + 1 :])
            return "".join(lines[1:index]), ("\n" + rest if rest else "\n")
    return None, text


def _cut_keys(head: str, keys: list[str]) -> str:
    """`head` without the top-level entries of `keys` (the key line and its indented or
    `- ` continuation lines)."""
    out: list[str] = []
    cutting = False
    for line in head.splitlines(keepends=True):
        match = _TOP_KEY.match(line)
        if match:
            cutting = match.group("key").strip("'\"") in keys
        elif line.strip() and not line[0].isspace() and not line.startswith(("-", "#")):
            cutting = False
        if not cutting:
            out.append(line)
    return "".join(out)
