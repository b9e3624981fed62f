"""Claude Code as one agent of the replay family (`ClaudeCodeAgent`): how its own first request
for a skill set is captured, and the rules its template is read by.

The installed `claude` CLI runs once in print mode (or, `--cli-mode interactive`, in a pty as
users type into it) in a throwaway project (the skills written under `.claude/skills/`, inside a
copy of the `--project` view when one is given), with an isolated HOME, a dummy key and
`ANTHROPIC_BASE_URL` pointing at the loopback capture server (`replay.capture_server`), which
speaks just enough of the streaming Messages API to let the CLI finish (every model call gets a
short `end_turn` text). The first request whose tools include `Skill` is the template: its body
(system blocks, tools, messages, thinking, max_tokens, output_config, context_management) and
the two headers that change the answer (`anthropic-version`, `anthropic-beta`). The query is a
sentinel, later swapped for each eval query (`ReplayTemplate.body_for`). The CLI also writes its
debug log (`--debug-file`, which leaves the request unchanged) into the throwaway folder: when
the skill listing went over its budget it names the budget, kept as
`ReplayTemplate.listing_budget`. Skills are installed under their folder names, as Claude Code
names them (`claude_install`).

The CLI runs in the caller's environment by the claude-code backend's rules (`claude_env`: the
session and HOME-config variables and the secrets left out, HOME isolated), minus what would send
it elsewhere than the capture server (`ROUTING_VARS`), so `SHELL`, a Bash timeout or disabled
betas reach the capture as they reach the user's own Claude Code.

Normalised before anything is kept: the throwaway folder becomes `/tmp/skillbench-replay`,
`metadata` (device and session ids) is dropped, `stream` is removed. Templates are stored by the
replay family's store (`replay.store`, beside the call cache in use), keyed by what the CLI
reads: the skills' SKILL.md files (not their evals or notes), the model, the CLI version, the
environment settings that change the request (`REQUEST_SETTINGS`), the `--project` snapshot
and the CLI mode (`template_key`).

Per query, `ReplayTemplate.body_for` swaps what the CLI itself derives from the day and the query:
the sentinel, today's date (the context reminder's `Today's date is …` and the WebSearch tool's
`The current month is …`) and the billing header's `cc_version` suffix (`billing_suffix`).

Replayed, the request goes through the anthropic SDK as any Messages API agent's
(`first_turn.MessagesAgent`), or through its Bedrock / Vertex client with `CLAUDE_CODE_USE_BEDROCK`
/ `CLAUDE_CODE_USE_VERTEX` set (as for Claude Code itself), the model id mapped as Claude Code
2.1.197 maps it (`provider_model`); no key then: the provider's credentials apply.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Unpack

from skillbench.backends.agent_cli import AgentCall, print_call
from skillbench.backends.anthropic.as_user import seed_home
from skillbench.backends.anthropic.first_turn import MessagesAgent, messages_arguments
from skillbench.backends.anthropic.project import (
    ProjectSnapshot,
    materialise,
    replace_project_skills,
)
from skillbench.backends.anthropic.sdk import DEFAULT_MODEL, resolve_api_key
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.env import (  # noqa: F401  (REQUEST_SETTINGS re-exported)
    REQUEST_SETTINGS,
    ROUTING_VARS,
    SECRET_VARS,
    build_env,
    request_settings,
)
from skillbench.backends.claude_cli.interactive import CliMode
from skillbench.backends.claude_cli.spec import CLAUDE_INSTALL_HINT, CLAUDE_PACKAGE
from skillbench.backends.replay import capture as replay_capture
from skillbench.backends.replay import store as replay_store
from skillbench.backends.replay.agent import CaptureRun, CaptureSite, Listing
from skillbench.backends.replay.capture import CaptureOptions
from skillbench.backends.replay.capture_server import CaptureServer as ReplayCaptureServer
from skillbench.backends.replay.keys import common_fields, short_key
from skillbench.backends.replay.run import run_until_captured
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.backends.skill_install import cli_name, install_skills
from skillbench.backends.user_config import UserConfig
from skillbench.errors import BackendError

SENTINEL = "SKILLBENCH_REPLAY_SENTINEL_QUERY_7f3a"
STABLE_ROOT = "/tmp/skillbench-replay"
TEMPLATE_FORMAT = 3  # 2: captured in the caller's environment, date and billing swapped per
# query, skills installed under their folder names, the listing budget kept; 3: two branches
# each bumped 1 -> 2 for different changes, so a 2 may be either: neither is loaded; the key
# follows the install precedence, the project's own skills, settings stripped of commands
_BILLING = re.compile(r"(cc_version=(\d+\.\d+\.\d+[^.;\s]*)\.)([0-9a-f]+)")
#: The CLI's salt for the billing suffix (2.1.197: sha256(salt + 3 characters + version)[:3]).
_BILLING_SALT = "59cf53e54c78"
_BILLING_AT = (4, 7, 20)
_TODAY = re.compile(r"(Today['\u2019\u02bc\u02b9]s date is )(\d{4})([-/])(\d{2})\3(\d{2})\.")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH = re.compile(r"(The current month is )(" + "|".join(_MONTHS) + r") (\d{4})\.")
_INSTALL_HINT = (
    "the replay harness needs the Claude Code CLI to capture its request: "
    f"{CLAUDE_INSTALL_HINT}; or choose --harness minimal (an imitation, not Claude Code's "
    "request)"
)


#: Claude Code 2.1.197's own model table (first party → Bedrock, Vertex).
PROVIDER_MODELS: dict[str, tuple[str, str]] = {
    "claude-haiku-4-5": (
        "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        "claude-haiku-4-5@20251001",
    ),
    "claude-haiku-4-5-20251001": (
        "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        "claude-haiku-4-5@20251001",
    ),
    "claude-sonnet-4-5": (
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ),
    "claude-sonnet-4-5-20250929": (
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ),
    "claude-sonnet-4-6": ("us.anthropic.claude-sonnet-4-6", "claude-sonnet-4-6"),
    "claude-sonnet-5": ("us.anthropic.claude-sonnet-5", "claude-sonnet-5"),
    "claude-opus-4-5": ("us.anthropic.claude-opus-4-5-20251101-v1:0", "claude-opus-4-5@20251101"),
    "claude-opus-4-6": ("us.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
    "claude-opus-4-7": ("us.anthropic.claude-opus-4-7", "claude-opus-4-7"),
    "claude-opus-4-8": ("us.anthropic.claude-opus-4-8", "claude-opus-4-8"),
}
_VERSION = re.compile(r"\d+\.\d+\.\d+\S*")


def provider() -> str:
    """`bedrock`, `vertex` or `anthropic`, from Claude Code's own switches."""
    if os.environ.get("CLAUDE_CODE_USE_BEDROCK", "").strip() not in ("", "0", "false"):
        return "bedrock"
    if os.environ.get("CLAUDE_CODE_USE_VERTEX", "").strip() not in ("", "0", "false"):
        return "vertex"
    return "anthropic"


def provider_model(model: str, where: str) -> str:
    """The model id for `where` (`bedrock` / `vertex`); ids already in provider form pass."""
    if where == "anthropic":
        return model
    mapped = PROVIDER_MODELS.get(model)
    if mapped is None:
        return model  # already a provider id (or an inference profile / ARN)
    return mapped[0] if where == "bedrock" else mapped[1]


def _is_derived(text: str) -> bool:
    """Whether a string holds something the CLI derives from the query or the day."""
    return bool(_BILLING.search(text) or _TODAY.search(text) or _MONTH.search(text))


def billing_suffix(prompt: str, version: str) -> str:
    """The suffix Claude Code 2.1.197 appends to `cc_version=<version>.` in its billing header:
    the first 3 hex digits of SHA-256 over a fixed salt, the prompt's UTF-16 code units at 4, 7
    and 20 ("0" past its end) and the version (the rule of the CLI's own code)."""
    units = prompt.encode("utf-16-le")

    def unit(index: int) -> str:
        if 2 * index + 2 > len(units):
            return "0"
        # one code unit; a lone surrogate is hashed as U+FFFD, as JavaScript's UTF-8 encoder does
        return units[2 * index : 2 * index + 2].decode("utf-16-le", errors="replace")

    picked = "".join(unit(index) for index in _BILLING_AT)
    blob = f"{_BILLING_SALT}{picked}{version}".encode()
    return hashlib.sha256(blob).hexdigest()[:3]


def swap_billing(text: str, query: str) -> str:
    """`text` with every `cc_version=<version>.<suffix>` suffix computed for `query`."""
    return _BILLING.sub(lambda m: m.group(1) + billing_suffix(query, m.group(2)), text)


def swap_date(text: str, today: datetime.date | None) -> str:
    """`text` with the CLI's date texts set to `today` (unchanged when None): `Today's date is
    YYYY-MM-DD.` (separator and apostrophe kept) and `The current month is <Month> <YYYY>.`"""
    if today is None:
        return text

    def day(m: re.Match[str]) -> str:
        sep = m.group(3)
        return f"{m.group(1)}{today.year:04d}{sep}{today.month:02d}{sep}{today.day:02d}."

    text = _TODAY.sub(day, text)
    return _MONTH.sub(lambda m: f"{m.group(1)}{_MONTHS[today.month - 1]} {today.year}.", text)


def beside_cache(options: dict[str, Any], cache_path: Path) -> dict[str, Any]:
    """The anthropic spec's `beside_cache`: on the replay harness (the default), its captured
    templates and batch ledgers go beside the call cache in use (unless `template_dir` is given)."""
    if (options.get("harness") or "replay") != "replay":
        return options
    return replay_store.beside_cache(options, cache_path)


# -- the capture server ------------------------------------------------------------------------


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def text_reply_stream(model: str, text: str = "OK.") -> bytes:
    """A complete streamed `end_turn` text reply (what the capture server answers)."""
    message: dict[str, Any] = {
        "id": "msg_capture_" + uuid.uuid4().hex[:12],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return b"".join(
        [
            _sse("message_start", {"type": "message_start", "message": message}),
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": text},
                },
            ),
            _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 2},
                },
            ),
            _sse("message_stop", {"type": "message_stop"}),
        ]
    )


_NOT_FOUND = b'{"type":"error","error":{"type":"not_found_error"}}'


class ClaudeCodeAgent(MessagesAgent):
    """Claude Code 2.1.197 as the replay family's agent (see the module docstring): captured in
    print mode or interactively (`cli_mode`), in a copy of `project`'s view when given, its
    request replayed to `provider` (`anthropic`, `bedrock` or `vertex`)."""

    name = "claude-code"
    title = "Claude Code"
    binary = "claude"
    package = CLAUDE_PACKAGE
    bin_variable = "SKILLBENCH_CLAUDE_BIN"
    skills_dir = ".claude/skills"
    default_model = DEFAULT_MODEL
    request_settings = tuple(REQUEST_SETTINGS)
    skill_tool = "Skill"
    # the template's own, older than the family: every stored template holds them
    sentinel = SENTINEL
    stable_root = STABLE_ROOT
    template_format = TEMPLATE_FORMAT

    def __init__(
        self,
        *,
        project: ProjectSnapshot | None = None,
        cli_mode: CliMode = "print",
        provider: str = "anthropic",
        as_user: UserConfig | None = None,
    ) -> None:
        #: `--project`: the capture sees this repository's view (read-only snapshot).
        self.project = project
        #: `--cli-mode`: whose request is captured, `claude -p`'s or the interactive CLI's.
        self.cli_mode = cli_mode
        self.provider = provider
        #: `--as-user`: the user's Claude Code configuration, seeded into the capture's HOME.
        self.as_user = as_user

    # -- the CLI -------------------------------------------------------------------------------

    def locate(self, binary: str | os.PathLike[str] | None = None) -> Path:
        """The CLI to capture with (`claude_cli.session.resolve_claude_bin`), or BackendError
        naming `make claude` and the `--harness minimal` alternative."""
        from skillbench.backends.claude_cli.session import resolve_claude_bin

        try:
            return resolve_claude_bin(binary)
        except BackendError:
            raise BackendError(f"no Claude Code CLI found: {install_hint()}") from None

    def install_hint(self) -> str:
        return _INSTALL_HINT

    def version_env(self, home: Path) -> dict[str, str]:
        """Its config folder in the throwaway HOME, the auto-updater off."""
        return {"CLAUDE_CONFIG_DIR": str(home / ".claude"), "DISABLE_AUTOUPDATER": "1"}

    def parse_version(self, output: str) -> str | None:
        """`2.1.197` of `2.1.197 (Claude Code)`."""
        match = _VERSION.search(output)
        return match.group(0) if match else None

    def settings(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The request-changing settings set (non-empty) in `environ` (`REQUEST_SETTINGS`)."""
        return request_settings(environ)

    # -- the capture ---------------------------------------------------------------------------

    def lay_out(
        self, site: CaptureSite, target: SkillEntry, catalog: Sequence[SkillEntry]
    ) -> list[str]:
        """The project (a copy of `project`'s view, its own skills of the names under test
        replaced) and HOME's `.claude/`; what of the view the copy could not reproduce."""
        differs = materialise(self.project, site.project) if self.project is not None else []
        site.project.mkdir(exist_ok=True)
        (site.home / ".claude").mkdir(parents=True)
        if self.as_user is not None:  # the user's configuration, cut, in the isolated HOME
            catalog, seeded = seed_home(self.as_user, site.home, target, catalog)
            differs += seeded
        installing = list(dict.fromkeys(cli_name(s) for s in (target, *catalog)))
        differs += [
            f".claude/skills/{name}: the project's own replaced by the one under test"
            for name in replace_project_skills(site.project, installing)
        ]
        return differs

    def project_catalog(self, catalog: Sequence[SkillEntry]) -> Sequence[SkillEntry]:
        """The catalog but the user's own skills the seeded HOME holds (`--as-user`)."""
        if self.as_user is None:
            return catalog
        return [entry for entry in catalog if not self.as_user.provides(entry.folder)]

    def capture_env(self, home: Path, base_url: str, settings: Mapping[str, str]) -> dict[str, str]:
        """`capture_env`: the caller's environment by the session rules, the capture server."""
        return capture_env(home, base_url, settings)

    def capture_call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        """`claude -p` with stream-json output, the prompt on stdin."""
        return print_call(binary, _print_flags(model), prompt)

    def run_capture(self, run: CaptureRun) -> tuple[int | None, str]:
        """`claude -p` run to its end (its debug log, `--debug-file`, names the listing budget;
        the request is the same with or without it), or the interactive CLI stopped once its
        request is in (`_run_interactive`)."""
        debug_log = run.site.root / "debug.log"
        if self.cli_mode == "interactive":
            return 0, _run_interactive(run, debug_log)
        flags = [*_print_flags(run.model), "--debug-file", str(debug_log)]
        call = print_call(run.binary, flags, self.sentinel)
        project, env = run.site.project, run.env
        return run_until_captured(self, call, project, env, run.server, run.timeout, to_exit=True)

    def captured(self, site: CaptureSite) -> dict[str, Any]:
        """The listing budget and size the debug log names (when the listing went over), and
        the CLI mode."""
        try:
            over = logged_budget((site.root / "debug.log").read_text("utf-8", errors="replace"))
        except OSError:
            over = None
        return {
            "listing_budget": over[1] if over else None,
            "listing_chars": over[0] if over else None,
            "cli_mode": self.cli_mode,
        }

    def capture_reply(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """The loopback Messages API's answer: a short text reply, a count for `count_tokens`,
        a 404 for anything else."""
        if method == "HEAD":
            return 200, "text/plain", b""
        path = path.split("?", 1)[0]
        if method == "POST" and path.endswith("/count_tokens"):
            return 200, "application/json", b'{"input_tokens": 100}'
        if method != "POST" or not path.endswith("/v1/messages"):
            return 404, "application/json", _NOT_FOUND
        model = str(body.get("model") or "claude")
        if body.get("stream"):
            return 200, "text/event-stream", text_reply_stream(model)
        reply = {
            "id": "msg_capture",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "OK."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 2},
        }
        return 200, "application/json", json.dumps(reply).encode()

    def is_agent_request(self, path: str, body: dict[str, Any]) -> bool:
        """A Messages request offering the `Skill` tool."""
        tools = body.get("tools") or []
        return any(isinstance(t, dict) and t.get("name") == "Skill" for t in tools)

    # -- the template --------------------------------------------------------------------------

    def key_fields(self, common: dict[str, Any]) -> dict[str, Any]:
        """`common` (format 3, skill set, model, CLI version, settings), the `--project`
        snapshot (its `ProjectSnapshot.key`) when one is given, the CLI mode when not `print`
        and the `--as-user` configuration (`UserConfig.key`) when given, so the keys of the
        templates stored before any of them existed are unchanged."""
        project = self.project.key() if self.project is not None else None
        return _key_fields(common, project, self.cli_mode, self.as_user)

    def normalise(self, body: dict[str, Any], root: str) -> dict[str, Any]:
        """`normalise_body`: paths (and their slugs) stable, `metadata` and `stream` off."""
        return normalise_body(body, root)

    def derived(self, text: str) -> bool:
        """The billing header, `Today's date is …` and `The current month is …`."""
        return _is_derived(text)

    def swap_derived(self, text: str, query: str, today: datetime.date | None) -> str:
        """The billing suffix computed for `query`, the date texts set to `today`."""
        return swap_date(swap_billing(text, query), today)

    def listing(self, body: dict[str, Any]) -> Listing | None:
        """None: reports read Claude Code's listing from the body by its own rules
        (`trigger.listing`), its budget from the template (`listing_budget`)."""
        return None

    # -- the replay ----------------------------------------------------------------------------

    def api_key(self, given: str | None) -> str:
        """The Anthropic key (`sdk.resolve_api_key`); none for Bedrock and Vertex, whose own
        credentials sign the requests."""
        return resolve_api_key(given) if self.provider == "anthropic" else ""

    def client(
        self, *, api_key: str, base_url: str | None, timeout: float | None, http_client: Any
    ) -> Any:
        """The anthropic SDK's client for the provider (its own retries off)."""
        if self.provider == "anthropic":
            return super().client(
                api_key=api_key, base_url=base_url, timeout=timeout, http_client=http_client
            )
        import anthropic

        common = self.sdk_options(timeout, http_client)
        if self.provider == "bedrock":
            return anthropic.AsyncAnthropicBedrock(
                aws_region=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION"),
                base_url=base_url or os.environ.get("ANTHROPIC_BEDROCK_BASE_URL"),
                **common,
            )
        region = os.environ.get("CLOUD_ML_REGION") or "us-east5"
        project = os.environ.get("ANTHROPIC_VERTEX_PROJECT_ID")
        vertex: dict[str, Any] = {"project_id": project} if project else {}
        return anthropic.AsyncAnthropicVertex(
            region=region,
            **vertex,
            base_url=base_url or os.environ.get("ANTHROPIC_VERTEX_BASE_URL"),
            **common,
        )

    def endpoint(self, base_url: str | None) -> str:
        """The provider, or the Anthropic base URL (no credentials)."""
        return self.provider if self.provider != "anthropic" else super().endpoint(base_url)

    def call_arguments(
        self, path: str, headers: Mapping[str, str], body: dict[str, Any]
    ) -> dict[str, Any]:
        """`messages_arguments`, the model id mapped for the provider (`provider_model`)."""
        model = provider_model(str(body["model"]), self.provider)
        sent = {**body, "model": model}
        return messages_arguments(path, headers, sent, first_party=self.provider == "anthropic")


def template_key(
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    model: str,
    cli_version: str,
    settings: Mapping[str, str],
    project: ProjectSnapshot | str | None = None,
    cli_mode: str = "print",
    as_user: UserConfig | None = None,
) -> str:
    """Claude Code's template key for this skill set, model, CLI version, settings, `--project`
    snapshot (or its `ProjectSnapshot.key`), CLI mode and `--as-user` configuration
    (`ClaudeCodeAgent.key_fields`)."""
    if isinstance(project, ProjectSnapshot):
        project = project.key()
    common = common_fields(TEMPLATE_FORMAT, target, catalog, model, cli_version, settings)
    return short_key(_key_fields(common, project, cli_mode, as_user))


def _key_fields(
    common: dict[str, Any], project: str | None, cli_mode: str, as_user: UserConfig | None
) -> dict[str, Any]:
    fields = dict(common)
    if project is not None:
        fields["project"] = project
    if cli_mode != "print":
        fields["cli_mode"] = cli_mode
    if as_user is not None:
        fields["as_user"] = as_user.key()
    return fields


def _print_flags(model: str) -> list[str]:
    return ["--model", model, "--output-format", "stream-json", "--verbose"]


class CaptureServer(ReplayCaptureServer):
    """The capture server answering as Claude Code's Messages API (`ClaudeCodeAgent`); the value
    for ANTHROPIC_BASE_URL is its `base_url`."""

    def __init__(self) -> None:
        super().__init__(ClaudeCodeAgent())

    def skill_request(self) -> tuple[str, dict[str, str], dict[str, Any]] | None:
        """The first request whose tools include `Skill`."""
        return self.agent_request()


# -- capture -----------------------------------------------------------------------------------


#: What the CLI logs (`--debug-file`) when the skill listing exceeds its budget.
_OVER_BUDGET = re.compile(r"Skill listing over budget: \d+ skills, (\d+) chars > (\d+) budget")


def logged_budget(debug_log: str) -> tuple[int, int] | None:
    """(listing characters, budget) from the CLI's debug log, when it logged going over."""
    match = _OVER_BUDGET.search(debug_log)
    return (int(match.group(1)), int(match.group(2))) if match else None


def write_skills(project: Path, target: SkillEntry, catalog: Sequence[SkillEntry]) -> list[str]:
    """Install the target and the catalog under `project/.claude/skills/` (target wins a name
    clash) exactly as the claude-code backend installs them (whole folders when known, see
    `claude_install`); returns the names installed, in order."""
    return install_skills(project, target, catalog)


def capture_env(
    home: Path,
    base_url: str,
    settings: Mapping[str, str],
    *,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The CLI's environment for a capture: the allowlisted variables of the caller's
    environment (`source`, default the process environment) by the session rules
    (`claude_env.build_env`: no key, no secret, HOME isolated), without routing variables (so no
    cloud provider's variables either), with a dummy key, the capture server as
    ANTHROPIC_BASE_URL and `settings` applied last."""
    environ = dict(os.environ if source is None else source)
    kept = {k: v for k, v in environ.items() if k not in ROUTING_VARS}
    route = {"ANTHROPIC_API_KEY": "sk-ant-skillbench-capture-dummy", "ANTHROPIC_BASE_URL": base_url}
    env = build_env(home, source=kept, route=route)
    env.update(settings)
    return env


def path_slug(path: str) -> str:
    """Claude Code's folder slug for a path (`/tmp/x.y` → `-tmp-x-y`), as in its memory path."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def normalise(value: Any, root: str) -> Any:
    """Replace the throwaway folder `root` (and its slug) by `STABLE_ROOT` in every string."""
    if isinstance(value, str):
        if root in value:
            value = value.replace(root, STABLE_ROOT)
        slug = path_slug(root)
        return value.replace(slug, path_slug(STABLE_ROOT)) if slug in value else value
    if isinstance(value, list):
        return [normalise(item, root) for item in value]
    if isinstance(value, dict):
        return {key: normalise(item, root) for key, item in value.items()}
    return value


def normalise_body(body: dict[str, Any], root: str) -> dict[str, Any]:
    """The body as kept: paths made stable, `metadata` (device/session ids) and `stream` off."""
    kept = {k: v for k, v in body.items() if k not in {"metadata", "stream"}}
    result: dict[str, Any] = normalise(kept, root)
    return result


def _run_interactive(run: CaptureRun, debug_log: Path) -> str:
    """The interactive capture (`claude_cli.interactive`): the config seeded so the CLI asks
    nothing, the sentinel as its initial prompt in a pty, stopped once the Skill-offering
    request has arrived. Returns what the terminal showed."""
    from skillbench.backends.claude_cli.interactive import (
        interactive_argv,
        run_interactive,
        seed_config,
    )

    folder, server = run.site.project, run.server
    seed_config(run.env, folder)
    flags = ["--model", run.model, "--debug-file", str(debug_log)]
    argv = interactive_argv(run.binary, flags, SENTINEL)
    return run_interactive(
        argv, folder, run.env, lambda: server.agent_request() is not None, run.timeout
    )


def capture_template(
    claude_bin: Path,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    *,
    project: ProjectSnapshot | None = None,
    cli_mode: CliMode = "print",
    as_user: UserConfig | None = None,
    **options: Unpack[CaptureOptions],
) -> ReplayTemplate:
    """Run the CLI once against the capture server and return the normalised template
    (`replay.capture.capture_template` with Claude Code's rules): in a copy of `project`'s view
    when given, in print mode (`claude -p`) or, with `cli_mode="interactive"`, as users type
    into it; with `as_user`, the isolated HOME holds the user's configuration (`seed_home`).

    BackendError when the CLI fails, times out or never offers the Skill tool.
    """
    agent = ClaudeCodeAgent(project=project, cli_mode=cli_mode, as_user=as_user)
    return replay_capture.capture_template(agent, claude_bin, target, catalog, **options)


def install_hint() -> str:
    """What to do when no CLI is installed (for error messages)."""
    return _INSTALL_HINT
