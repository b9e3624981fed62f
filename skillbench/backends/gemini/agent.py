"""Gemini CLI as the agent replay needs it (`GeminiAgent`), measured on @google/gemini-cli 0.61.0.

Capture: the skills go under `.agents/skills/` of the throwaway project (Gemini reads that folder
in the current directory only), HOME is isolated and holds a `settings.json` choosing API-key
auth (with `GOOGLE_GEMINI_BASE_URL` alone the CLI picks its `gateway` auth and refuses to run) and
turning telemetry, usage statistics and update checks off; `GEMINI_CLI_TRUST_WORKSPACE=true`
trusts the project. The CLI runs `gemini -m <model> --approval-mode <mode> -p <sentinel>`: an
explicit model skips the model-router request. Checked with strace: it connects to 127.0.0.1 only.

The approval mode changes the request: only `yolo` offers the `activate_skill` function (default
mode: 8 tools, `auto_edit` 11, neither with it, though the listing stays). It is a request setting
(`SKILLBENCH_GEMINI_APPROVAL_MODE`, default `yolo`), so it is part of the template key.

Replay: the body is a plain public `streamGenerateContent` body (`contents`, `systemInstruction`,
`tools`, `generationConfig`), sent through google-genai's `generate_content_stream` with the same
fields (the SDK's types refuse a field they do not know, so nothing is dropped silently).
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import AsyncIterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.gemini import config
from skillbench.backends.gemini.listing import gemini_listing
from skillbench.backends.gemini.stream import GeminiFold, dump, skill_locations
from skillbench.backends.limiter import Failure, parse_retry_after
from skillbench.backends.replay.agent import Agent, Listing
from skillbench.backends.skill_install import CliSkill
from skillbench.errors import BackendError
from skillbench.io import atomic_write_text

DEFAULT_MODEL = "gemini-2.5-flash"
DEFAULT_ENDPOINT = "https://generativelanguage.googleapis.com"
APPROVAL_VARIABLE = "SKILLBENCH_GEMINI_APPROVAL_MODE"
APPROVAL_MODES = ("default", "auto_edit", "yolo", "plan")
DEFAULT_APPROVAL = "yolo"
#: What the capture's isolated HOME tells the CLI: API-key auth; no telemetry, usage
#: statistics or update check (no connection but the capture server's).
CAPTURE_SETTINGS = """{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true,
              "enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
"""
#: "Today's date is Thursday, November 26, 2026" (the session context, en-US).
_TODAY = re.compile(
    r"(Today's date is )(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), "
    r"(January|February|March|April|May|June|July|August|September|October|November|December) "
    r"(\d{1,2}), (\d{4})"
)
_MODEL_IN_PATH = re.compile(r"/models/([^/:?]+):")


def sse_chunk(data: str) -> bytes:
    """One server-sent event carrying `data` (a JSON document)."""
    return f"data: {data}\r\n\r\n".encode()


CAPTURE_REPLY = sse_chunk(
    '{"candidates": [{"content": {"role": "model", "parts": [{"text": "OK."}]}, '
    '"finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 1, '
    '"candidatesTokenCount": 1, "totalTokenCount": 2}}'
)


def approval_mode(environ: Mapping[str, str] | None = None) -> str:
    """The approval mode the capture runs with (`SKILLBENCH_GEMINI_APPROVAL_MODE`)."""
    source = os.environ if environ is None else environ
    mode = (source.get(APPROVAL_VARIABLE) or DEFAULT_APPROVAL).strip()
    if mode not in APPROVAL_MODES:
        raise BackendError(
            f"{APPROVAL_VARIABLE} must be one of {', '.join(APPROVAL_MODES)}, got {mode!r}"
        )
    return mode


def model_of(path: str) -> str:
    """The model named in a captured path (`/v1beta/models/<model>:streamGenerateContent`)."""
    found = _MODEL_IN_PATH.search(path)
    if found is None:
        raise BackendError(f"no model in the captured Gemini request path {path!r}")
    return found.group(1)


_checked: dict[tuple[int, ...], tuple[Any, ...]] = {}


def check_sendable(rest: Mapping[str, Any]) -> None:
    """BackendError when google-genai's config could not carry a field of `rest` (the body
    but `contents`). Checked once per template: every query's body shares these objects
    (`ReplayTemplate.body_for` copies only what leads to the query and the date)."""
    from google.genai import types

    key = tuple(id(value) for value in rest.values()) + tuple(map(id, rest))
    if key in _checked:
        return
    typed: dict[str, Any] = dict(rest.get("generationConfig") or {})
    typed.update({k: v for k, v in rest.items() if k != "generationConfig"})
    try:
        types.GenerateContentConfig.model_validate(typed)
    except ValueError as exc:
        raise BackendError(
            f"the captured Gemini request has fields google-genai cannot send: {exc}"
        ) from None
    if len(_checked) >= 64:
        _checked.clear()
    _checked[key] = (*rest.values(), *rest)  # kept alive, so their ids stay theirs


def call_config(body: Mapping[str, Any]) -> Any:
    """The google-genai `GenerateContentConfig` for a captured body: every field but `contents`
    goes as captured through `http_options.extra_body` (the SDK's typed config would rename
    `parametersJsonSchema` and `thinkingConfig`'s fields to snake_case, which the API reads the
    same but is not the CLI's request). A field google-genai's config could not carry at all is
    refused (`check_sendable`), never dropped silently."""
    from google.genai import types

    rest = {key: value for key, value in body.items() if key != "contents"}
    check_sendable(rest)
    return types.GenerateContentConfig(http_options=types.HttpOptions(extra_body=rest))


class GeminiAgent(Agent):
    """Gemini CLI 0.61.0 (see the module docstring)."""

    name = "gemini"
    title = "Gemini CLI"
    binary = "gemini"
    package = "@google/gemini-cli@0.61.0"
    bin_variable = "SKILLBENCH_GEMINI_BIN"
    default_model = DEFAULT_MODEL
    key_variable = "GEMINI_API_KEY"
    base_url_variable = "GOOGLE_GEMINI_BASE_URL"
    default_endpoint = DEFAULT_ENDPOINT
    sdk = "google-genai"
    #: Changes the system prompt the CLI sends (a custom system.md).
    request_settings = ("GEMINI_SYSTEM_MD",)
    skill_tool = "activate_skill"
    # `--project`, `--as-user` (measured on 0.61.0: `config`, docs/agents.md)
    project_instructions = config.PROJECT_INSTRUCTIONS
    project_skill_dirs = config.PROJECT_SKILL_DIRS
    config_files = config.CONFIG_FILES
    code_paths = config.CODE_PATHS
    user_instructions = config.USER_INSTRUCTIONS
    user_skill_dirs = config.USER_SKILL_DIRS
    user_left_out = config.USER_LEFT_OUT
    lists_tree = True

    def project_instruction_names(self, root: Path) -> list[str]:
        """GEMINI.md and the names the project's settings give (`context.fileName`)."""
        return list(dict.fromkeys([*self.project_instructions, *config.file_names(root)]))

    def sanitise_config(self, rel: str, text: str) -> tuple[str | None, list[str]]:
        """The project's settings with the kept sections only (`config.sanitise`)."""
        return config.sanitise(rel, text)

    # -- capture -----------------------------------------------------------------------------

    def settings(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The request settings: `GEMINI_SYSTEM_MD` when set, and the approval mode."""
        found = super().settings(environ)
        found["approval_mode"] = approval_mode(environ)
        return found

    def capture_call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        """`gemini -m <model> --approval-mode <mode> -p ""` with the prompt on stdin (the CLI
        appends stdin to an empty `-p`)."""
        mode = approval_mode()
        flags = ("-m", model, "--approval-mode", mode, "-p", "")
        return AgentCall((str(binary), *flags), prompt.encode("utf-8"))

    def capture_env(self, home: Path, base_url: str, settings: Mapping[str, str]) -> dict[str, str]:
        """`Agent.base_env` with an English locale (the date text the replay swaps), a dummy
        key, the capture server and workspace trust."""
        env = {k: v for k, v in self.base_env(home).items() if not k.startswith("LC_")}
        env.update(
            LANG="en_US.UTF-8",
            GEMINI_API_KEY="skillbench-capture-dummy",
            GOOGLE_GEMINI_BASE_URL=base_url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
            NO_COLOR="1",
        )
        env.update({k: v for k, v in settings.items() if k in self.request_settings})
        return env

    def prepare(self, project: Path, home: Path, base_url: str, model: str) -> None:
        """`~/.gemini/settings.json` of the isolated HOME (`CAPTURE_SETTINGS`)."""
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        atomic_write_text(home / ".gemini" / "settings.json", CAPTURE_SETTINGS)

    def capture_reply(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """A one-chunk "OK." text reply to every generateContent call; `{}` to anything else."""
        if "enerateContent" in path:
            if "alt=sse" in path:
                return 200, "text/event-stream", CAPTURE_REPLY
            return 200, "application/json", CAPTURE_REPLY[len("data: ") :].strip()
        return 200, "application/json", b"{}"

    def is_agent_request(self, path: str, body: dict[str, Any]) -> bool:
        """The first generateContent request that declares functions (the agent's turn)."""
        tools = body.get("tools") or []
        declares = any(isinstance(t, dict) and t.get("functionDeclarations") for t in tools)
        return "enerateContent" in path and declares and bool(body.get("contents"))

    # -- template ----------------------------------------------------------------------------

    def dated(self, text: str) -> bool:
        return _TODAY.search(text) is not None

    def swap_day(self, text: str, today: datetime.date) -> str:
        day = f"{today:%A}, {today:%B} {today.day}, {today.year}"
        return _TODAY.sub(lambda m: m.group(1) + day, text)

    def listing(self, body: dict[str, Any]) -> Listing:
        return gemini_listing(body)

    # -- replay ------------------------------------------------------------------------------

    def client(
        self, *, api_key: str, base_url: str | None, timeout: float | None, http_client: Any
    ) -> Any:
        """google-genai's client (its own retries off: the limiter retries)."""
        from google import genai
        from google.genai import types

        url = self.provider_url(base_url)
        options = types.HttpOptions(
            base_url=url,
            api_version="v1beta",
            timeout=int(timeout * 1000) if timeout else None,
            httpx_async_client=http_client,
        )
        return genai.Client(api_key=api_key, http_options=options)

    def fold(self, target: str, skills: Sequence[CliSkill], body: dict[str, Any]) -> GeminiFold:
        """`GeminiFold`: `activate_skill`, or a `read_file` of a listed SKILL.md, invokes."""
        return GeminiFold(target, skills, skill_locations(body))

    async def open_stream(
        self, client: Any, path: str, headers: Mapping[str, str], body: dict[str, Any]
    ) -> AsyncIterable[Any]:
        """`generate_content_stream` with the captured fields (`call_config`)."""
        stream: AsyncIterable[Any] = await client.aio.models.generate_content_stream(
            model=model_of(path), contents=body["contents"], config=call_config(body)
        )
        return stream

    def as_event(self, event: Any) -> Mapping[str, Any]:
        return dump(event)

    def classify_failure(self, exc: BaseException) -> Failure | None:
        """google-genai's `APIError` by status (408/429/5xx retryable, 429 a rate limit);
        httpx transport errors retryable."""
        import httpx
        from google.genai import errors

        if isinstance(exc, httpx.TransportError):
            return Failure(retryable=True)
        if not isinstance(exc, errors.APIError):
            return None
        status = int(getattr(exc, "code", 0) or 0)
        response = getattr(exc, "response", None)
        response_headers = getattr(response, "headers", None) or {}
        return Failure(
            retryable=status in (408, 409, 429) or status >= 500,
            rate_limited=status == 429,
            retry_after=parse_retry_after(response_headers),
        )


GEMINI = GeminiAgent()
