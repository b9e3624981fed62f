"""Codex CLI as the agent replay needs it (`CodexAgent`), measured on @openai/codex 0.169.0.

Capture: the skills go under `.agents/skills/` of the throwaway project (a git repository, as
Codex walks up to the repository root for skill folders), `CODEX_HOME` is isolated and holds a
`config.toml` whose own provider points at the capture server with `supports_websockets = false`
(`OPENAI_BASE_URL` is ignored for Codex's WebSocket transport), no retries,
analytics and the update check off. The CLI runs `codex exec --disable plugins
--skip-git-repo-check -m <model> … -` with the prompt on stdin. `--disable plugins` stops the
plugin-marketplace sync (`git ls-remote https://github.com/openai/plugins.git` and an
api.github.com lookup, seen with strace); the captured request is the same with and without it
apart from its ids. With it, strace shows connections to 127.0.0.1 only.

What changes the request is in the template key: the model (gpt-6.1-sol, Codex's default, is
sent in the "responses-lite" shape: tools as an `additional_tools` input item, header
`x-openai-internal-codex-responses-lite`; a model Codex has no metadata for gets public-looking
top-level `tools`), the reasoning effort (`SKILLBENCH_CODEX_REASONING_EFFORT`), the sandbox
(`SKILLBENCH_CODEX_SANDBOX`, default `read-only` as `codex exec`) and the approval policy
(`SKILLBENCH_CODEX_APPROVAL`, default `never`), which Codex writes into its permissions text.

Normalised: the throwaway folder, the ids of the input items (`msg_…`, `at_…` → stable ones),
`prompt_cache_key` (the session id → a digest of the normalised request), and `client_metadata`
(installation, session and turn ids, the workspace path) is dropped. Kept headers:
`x-openai-internal-codex-responses-lite`, `x-codex-beta-features`, `originator`.

Replay: the body through the openai SDK's `responses.create(stream=True)` (model, input; the
rest through `extra_body`), the kept headers as `extra_headers`. Whether OpenAI's public API
accepts the responses-lite shape is NOT verified here (no key); a refusal shows as an API error
in every run, never as a miss.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
from collections.abc import AsyncIterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.codex.listing import codex_listing, parse_listing
from skillbench.backends.codex.stream import CodexFold
from skillbench.backends.limiter import Failure, parse_retry_after
from skillbench.backends.replay.agent import Agent, Listing
from skillbench.backends.skill_install import CliSkill
from skillbench.errors import BackendError
from skillbench.io import atomic_write_text

DEFAULT_MODEL = "gpt-6.1-sol"
DEFAULT_ENDPOINT = "https://api.openai.com/v1"
CAPTURE_KEY_VARIABLE = "SKILLBENCH_CODEX_CAPTURE_KEY"
EFFORT_VARIABLE = "SKILLBENCH_CODEX_REASONING_EFFORT"
SANDBOX_VARIABLE = "SKILLBENCH_CODEX_SANDBOX"
APPROVAL_VARIABLE = "SKILLBENCH_CODEX_APPROVAL"
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")
APPROVALS = ("untrusted", "on-failure", "on-request", "never")
KEPT_HEADERS = ("x-openai-internal-codex-responses-lite", "x-codex-beta-features", "originator")
DROPPED_FIELDS = ("client_metadata", "stream")
_DATE = re.compile(r"(<current_date>)(\d{4}-\d{2}-\d{2})(</current_date>)")
_ITEM_ID = re.compile(r"^([a-z]+)_[0-9a-f-]{8,}$")


def _choice(environ: Mapping[str, str], variable: str, allowed: Sequence[str]) -> str | None:
    value = (environ.get(variable) or "").strip()
    if not value:
        return None
    if value not in allowed:
        raise BackendError(f"{variable} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def capture_config(base_url: str, api_path: str = "/v1") -> str:
    """The capture's `config.toml`: its own Responses provider at `base_url` + `api_path` over
    HTTP (no WebSocket), no retries, analytics and the update check off (the session mode
    passes the provider's own URL, `api_path=""`)."""
    return (
        'model_provider = "skillbench_capture"\n'
        "check_for_update_on_startup = false\n\n"
        "[analytics]\nenabled = false\n\n"
        "[model_providers.skillbench_capture]\n"
        'name = "skillbench capture"\n'
        f"base_url = {json.dumps(base_url.rstrip('/') + api_path)}\n"
        'wire_api = "responses"\n'
        f'env_key = "{CAPTURE_KEY_VARIABLE}"\n'
        "supports_websockets = false\n"
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def text_reply(model: str, text: str = "OK.") -> bytes:
    """A complete streamed Responses reply holding one assistant message `text`."""
    item = {
        "type": "message",
        "id": "msg_capture",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    response = {"id": "resp_capture", "object": "response", "created_at": 0, "model": model}
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    return b"".join(
        (
            _sse(
                "response.created",
                {
                    "type": "response.created",
                    "response": {**response, "status": "in_progress", "output": []},
                },
            ),
            _sse(
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            _sse(
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {
                        **response,
                        "status": "completed",
                        "output": [item],
                        "usage": usage,
                    },
                },
            ),
        )
    )


def stable_ids(body: dict[str, Any]) -> dict[str, Any]:
    """Input items' ids (`msg_<uuid>`, `at_<uuid>`) as `<prefix>_skillbench_<n>`."""
    items = []
    for index, item in enumerate(body.get("input") or ()):
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            match = _ITEM_ID.match(item["id"])
            if match is not None:
                item = {**item, "id": f"{match.group(1)}_skillbench_{index}"}
        items.append(item)
    return {**body, "input": items} if "input" in body else body


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def as_dict(event: Any) -> Mapping[str, Any]:
    """What the fold reads of an openai stream event, as a plain dict (a dict passes through):
    its type, a finished output item, the final response's status, usage and incomplete
    details. Only those are dumped: the whole event per event cost more than the SDK's parse."""
    if isinstance(event, Mapping):
        return event
    kind = getattr(event, "type", None)
    data: dict[str, Any] = {"type": kind}
    if kind == "response.output_item.done":
        data["item"] = _plain(getattr(event, "item", None)) or {}
    response = getattr(event, "response", None)
    if response is not None and kind in (
        "response.completed",
        "response.incomplete",
        "response.failed",
    ):
        data["response"] = {
            "status": getattr(response, "status", None),
            "usage": _plain(getattr(response, "usage", None)) or {},
            "incomplete_details": _plain(getattr(response, "incomplete_details", None)) or {},
        }
    return data


class CodexAgent(Agent):
    """Codex CLI 0.169.0 (see the module docstring)."""

    name = "codex"
    title = "Codex CLI"
    binary = "codex"
    package = "@openai/codex@0.169.0"
    bin_variable = "SKILLBENCH_CODEX_BIN"
    default_model = DEFAULT_MODEL
    key_variable = "OPENAI_API_KEY"
    base_url_variable = "OPENAI_BASE_URL"
    default_endpoint = DEFAULT_ENDPOINT
    sdk = "openai"
    kept_headers = KEPT_HEADERS
    # no skill tool: a skill is opened by reading its SKILL.md (`stream.CodexFold`)
    # `--project`, `--as-user` (measured on 0.169.0; docs/agents.md): `AGENTS.override.md`
    # before `AGENTS.md` at the project's top and in CODEX_HOME; the skills of `.agents/skills`
    # and `.codex/skills` (walking up to the git top), `~/.agents/skills` and CODEX_HOME's
    project_instructions = ("AGENTS.override.md", "AGENTS.md")
    project_skill_dirs = (".agents/skills", ".codex/skills")
    config_files = (".codex/config.toml",)
    user_instructions = (".codex/AGENTS.override.md", ".codex/AGENTS.md")
    user_skill_dirs = (".codex/skills", ".agents/skills")
    user_skill_skip = (".system",)  # Codex's own, installed by the CLI itself
    user_left_out = (
        (
            ".codex/config.toml",
            "Codex's configuration: provider, MCP servers, notify; never copied",
        ),
    )

    def sanitise_config(self, rel: str, text: str) -> tuple[str | None, list[str]]:
        """A project's `.codex/config.toml` is left out: Codex reads it only in a project it
        trusts (measured: an untrusted project's is not read), and the capture trusts none."""
        return None, [
            f"{rel}: left out (read only in a project Codex trusts; the capture trusts none)"
        ]

    # -- capture -----------------------------------------------------------------------------

    def settings(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """Reasoning effort (when set), sandbox and approval policy; the provider the replay
        speaks to (OpenAI's Responses API)."""
        source = os.environ if environ is None else environ
        found = {
            "provider": "openai-responses",
            "sandbox": _choice(source, SANDBOX_VARIABLE, SANDBOXES) or "read-only",
            "approval": _choice(source, APPROVAL_VARIABLE, APPROVALS) or "never",
        }
        effort = _choice(source, EFFORT_VARIABLE, EFFORTS)
        if effort is not None:
            found["reasoning_effort"] = effort
        return found

    def version_call(self, binary: Path) -> tuple[str, ...]:
        return (str(binary), "--version")

    def capture_call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        """`codex exec` with the settings as flags and the prompt on stdin (`-`)."""
        settings = self.settings()
        flags = ["exec", "--disable", "plugins", "--skip-git-repo-check", "--color", "never"]
        flags += ["-m", model, "-s", settings["sandbox"]]
        flags += ["-c", f'approval_policy="{settings["approval"]}"']
        if "reasoning_effort" in settings:
            flags += ["-c", f'model_reasoning_effort="{settings["reasoning_effort"]}"']
        return AgentCall((str(binary), *flags, "-"), prompt.encode("utf-8"))

    def capture_env(self, home: Path, base_url: str, settings: Mapping[str, str]) -> dict[str, str]:
        """`Agent.base_env`, CODEX_HOME inside the isolated HOME, the capture provider's
        dummy key."""
        env = self.base_env(home)
        env.update(CODEX_HOME=str(home / ".codex"), NO_COLOR="1")
        env[CAPTURE_KEY_VARIABLE] = "skillbench-capture-dummy"
        return env

    def prepare(self, project: Path, home: Path, base_url: str, model: str) -> None:
        """`config.toml` in CODEX_HOME (`capture_config`) and `git init` of the project."""
        import subprocess

        (home / ".codex").mkdir(parents=True, exist_ok=True)
        atomic_write_text(home / ".codex" / "config.toml", capture_config(base_url))
        subprocess.run(
            ["git", "init", "-q", str(project)],
            check=False,
            capture_output=True,
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
        )

    def capture_reply(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """A text reply to `/responses`; an empty model list to anything else."""
        if method == "POST" and path.rstrip("/").endswith("/responses"):
            return 200, "text/event-stream", text_reply(str(body.get("model") or ""))
        return 200, "application/json", b'{"object": "list", "data": [], "models": []}'

    def is_agent_request(self, path: str, body: dict[str, Any]) -> bool:
        """The first `/responses` call whose input holds a user message."""
        items = body.get("input") or []
        user = any(isinstance(i, dict) and i.get("role") == "user" for i in items)
        return path.split("?")[0].rstrip("/").endswith("/responses") and user

    # -- template ----------------------------------------------------------------------------

    def normalise(self, body: dict[str, Any], root: str) -> dict[str, Any]:
        """Paths made stable, `client_metadata` and `stream` dropped, item ids stable and the
        `prompt_cache_key` a digest of the rest (one cache key per template, as Codex keeps
        one per session)."""
        kept = {k: v for k, v in super().normalise(body, root).items() if k not in DROPPED_FIELDS}
        kept = stable_ids(kept)
        if "prompt_cache_key" in kept:
            rest = {k: v for k, v in kept.items() if k != "prompt_cache_key"}
            blob = json.dumps(rest, sort_keys=True, ensure_ascii=False).encode("utf-8")
            kept["prompt_cache_key"] = "skillbench-" + hashlib.sha256(blob).hexdigest()[:32]
        return kept

    def dated(self, text: str) -> bool:
        return _DATE.search(text) is not None

    def swap_day(self, text: str, today: datetime.date) -> str:
        return _DATE.sub(lambda m: f"{m.group(1)}{today.isoformat()}{m.group(3)}", text)

    def listing(self, body: dict[str, Any]) -> Listing:
        return codex_listing(body)

    # -- replay ------------------------------------------------------------------------------

    def client(
        self, *, api_key: str, base_url: str | None, timeout: float | None, http_client: Any
    ) -> Any:
        """The openai SDK's async client (its own retries off: the limiter retries)."""
        import openai

        options = self.sdk_options(timeout, http_client)
        return openai.AsyncOpenAI(api_key=api_key, base_url=self.provider_url(base_url), **options)

    def fold(self, target: str, skills: Sequence[CliSkill], body: dict[str, Any]) -> CodexFold:
        """`CodexFold`: a tool call reading a listed skill's SKILL.md invokes it."""
        return CodexFold(target, skills, parse_listing(body))

    async def open_stream(
        self, client: Any, path: str, headers: Mapping[str, str], body: dict[str, Any]
    ) -> AsyncIterable[Any]:
        """`responses.create(stream=True)` with the captured body (model and input by name,
        the rest through `extra_body`) and headers."""
        rest = {k: v for k, v in body.items() if k not in ("model", "input", "stream")}
        stream: AsyncIterable[Any] = await client.responses.create(
            model=body["model"],
            input=body["input"],
            stream=True,
            extra_body=rest,
            extra_headers=dict(headers),
        )
        return stream

    def as_event(self, event: Any) -> Mapping[str, Any]:
        return as_dict(event)

    def classify_failure(self, exc: BaseException) -> Failure | None:
        """As the openai SDK would retry: connection errors, 408/409/429/5xx (429 a rate
        limit, with the server's `retry-after`)."""
        import openai

        if isinstance(exc, openai.APIConnectionError):
            return Failure(retryable=True)
        if not isinstance(exc, openai.APIStatusError):
            return None
        status = exc.status_code
        should = exc.response.headers.get("x-should-retry")
        retryable = should == "true" or (
            should != "false" and (status in (408, 409, 429) or status >= 500)
        )
        return Failure(
            retryable=retryable,
            rate_limited=status == 429,
            retry_after=parse_retry_after(exc.response.headers),
        )


CODEX = CodexAgent()
