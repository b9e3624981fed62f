"""Capture the request Claude Code itself sends for a skill set, once, as a replay template.

The installed `claude` CLI runs once in print mode in a throwaway project (the skills written
under `.claude/skills/`), with an isolated HOME, a dummy key and `ANTHROPIC_BASE_URL` pointing at a
loopback capture server that speaks just enough of the streaming Messages API to let the CLI
finish (every model call gets a short `end_turn` text). The first request whose tools include
`Skill` is the template: its body (system blocks, tools, messages, thinking, max_tokens,
output_config, context_management) and the two headers that change the answer
(`anthropic-version`, `anthropic-beta`). The query is a sentinel, later swapped for each eval
query (`ReplayTemplate.body_for`).

Normalised before anything is kept: the throwaway folder becomes `/tmp/skillbench-replay`,
`metadata` (device and session ids) is dropped, `stream` is removed. No key, no home path and no
session id is ever stored. Templates are cached as JSON under the cache folder
(`<cache dir>/replay-templates/<key>.json`, beside the call cache in use: `templates_dir`), keyed by the skill set's content, the model, the CLI
version and the environment settings that change the request (`REQUEST_SETTINGS`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_install import install_skills
from skillbench.backends.prompt_cache import swap_text
from skillbench.errors import BackendError

SENTINEL = "SKILLBENCH_REPLAY_SENTINEL_QUERY_7f3a"
STABLE_ROOT = "/tmp/skillbench-replay"
TEMPLATE_FORMAT = 1
KEPT_HEADERS = ("anthropic-version", "anthropic-beta")
#: Environment settings that change the CLI's request; part of the template key when set.
REQUEST_SETTINGS = (
    "SLASH_COMMAND_TOOL_CHAR_BUDGET",
    "MAX_THINKING_TOKENS",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "CLAUDE_CODE_DISABLE_THINKING",
    "DISABLE_PROMPT_CACHING",
)
CAPTURE_TIMEOUT = 120.0
_BILLING_SUFFIX = re.compile(r"(cc_version=\d+\.\d+\.\d+\.)[0-9a-f]+")
_BASE_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT")
_INSTALL_HINT = (
    "the replay harness needs the Claude Code CLI to capture its request: run `make claude` "
    "(or `npm install --prefix .tools @anthropic-ai/claude-code@2.1.197`), put `claude` on PATH "
    "or set SKILLBENCH_CLAUDE_BIN; or choose --harness minimal (an imitation, not Claude Code's "
    "request)"
)


class ReplayTemplate(BaseModel):
    """One captured request, normalised, with the sentinel where the query goes."""

    format: int = TEMPLATE_FORMAT
    key: str
    model: str
    cli_version: str
    path: str = Field(description="request path the CLI used, e.g. /v1/messages?beta=true")
    headers: dict[str, str] = Field(description="anthropic-version and anthropic-beta only")
    body: dict[str, Any]
    settings: dict[str, str] = Field(default_factory=dict)
    skills: list[str] = Field(default_factory=list, description="skill folders installed")

    def content_hash(self) -> str:
        """SHA-256 of the headers and body (part of the replay judge's cache identity)."""
        blob = json.dumps({"h": self.headers, "b": self.body}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def betas(self) -> list[str]:
        """The `anthropic-beta` flags, in the CLI's order."""
        raw = self.headers.get("anthropic-beta", "")
        return [flag.strip() for flag in raw.split(",") if flag.strip()]

    _sentinel_at: tuple[str | int, ...] | None = PrivateAttr(default=None)

    def body_for(self, query: str) -> dict[str, Any]:
        """The body with the sentinel replaced by `query` (JSON-safe: only string values are
        touched, so quotes or backslashes in the query cannot break the document).

        Only the containers on the way to the sentinel's string are copied; the rest (tools,
        system prompt: ~100 kB) is shared with the template, so the result is read-only below
        its top level. A body without exactly one sentinel string is copied whole."""
        at = self._sentinel_at if self._sentinel_at is not None else self._find_sentinel()
        if not at:
            return dict(swap_text(self.body, SENTINEL, query))
        root: dict[str, Any] = dict(self.body)
        node: Any = root
        for step in at[:-1]:
            child = node[step]
            node[step] = child = list(child) if isinstance(child, list) else dict(child)
            node = child
        node[at[-1]] = node[at[-1]].replace(SENTINEL, query)
        return root

    def _find_sentinel(self) -> tuple[str | int, ...]:
        """The path (keys and indices) to the one string holding the sentinel; () if not one."""
        found: list[tuple[str | int, ...]] = []

        def walk(value: Any, path: tuple[str | int, ...]) -> None:
            if isinstance(value, str):
                if SENTINEL in value:
                    found.append(path)
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    walk(item, (*path, index))
            elif isinstance(value, dict):
                for key, item in value.items():
                    walk(item, (*path, key))

        walk(self.body, ())
        self._sentinel_at = found[0] if len(found) == 1 and found[0] else ()
        return self._sentinel_at

    def sentinel_count(self) -> int:
        """How many strings of the body hold the sentinel (1 for a well-formed capture)."""
        return json.dumps(self.body, ensure_ascii=False).count(SENTINEL)


def skill_set_hash(target: SkillEntry, catalog: Sequence[SkillEntry]) -> str:
    """SHA-256 over the names, descriptions and bodies of the installed skills (and the content
    hash of their folders when known: a `when_to_use` changes the listing)."""
    items = [
        [s.name, s.description, s.body, getattr(s, "content_hash", None) or ""]
        for s in (target, *catalog)
    ]
    blob = json.dumps(sorted(items), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def request_settings(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The request-changing settings present in `env` (default: the process environment)."""
    source = os.environ if env is None else env
    return {name: source[name] for name in REQUEST_SETTINGS if source.get(name)}


def template_key(
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    model: str,
    cli_version: str,
    settings: Mapping[str, str],
) -> str:
    """The cache key of a template: skill set content, model, CLI version, settings."""
    blob = json.dumps(
        {
            "format": TEMPLATE_FORMAT,
            "skills": skill_set_hash(target, catalog),
            "model": model,
            "cli": cli_version,
            "settings": dict(sorted(settings.items())),
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def templates_dir(cache_path: str | os.PathLike[str] | None = None) -> Path:
    """`replay-templates/` beside the call cache in use: `cache_path` (what `--cache` gave),
    else the default cache (`$SKILLBENCH_CACHE`, else the user's cache folder), never the
    working directory, which may be read-only."""
    from skillbench.backends.cache import default_cache_path

    cache = Path(cache_path) if cache_path is not None else default_cache_path()
    return cache.parent / "replay-templates"


def default_template_dir() -> Path:
    """`replay-templates/` beside the default call cache (see `templates_dir`)."""
    return templates_dir(None)


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


class _CaptureHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: CaptureServer

    def log_message(self, format: str, *args: Any) -> None:
        """No access log."""

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self._send(200, b"", "text/plain")

    def do_GET(self) -> None:
        self._send(404, b'{"type":"error","error":{"type":"not_found_error"}}', "application/json")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            self._send(200, b'{"input_tokens": 100}', "application/json")
            return
        if not path.endswith("/v1/messages"):
            self._send(
                404, b'{"type":"error","error":{"type":"not_found_error"}}', "application/json"
            )
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.record(self.path, {k: headers[k] for k in KEPT_HEADERS if k in headers}, body)
        model = str(body.get("model") or "claude")
        if body.get("stream"):
            self._send(200, text_reply_stream(model), "text/event-stream")
            return
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
        self._send(200, json.dumps(reply).encode(), "application/json")


class CaptureServer(ThreadingHTTPServer):
    """Loopback Messages API that records every `/v1/messages` request (body and the kept
    headers only: never the key)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _CaptureHandler)
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The value for ANTHROPIC_BASE_URL."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def record(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        """Keep one request."""
        with self._lock:
            self.requests.append((path, headers, body))

    def skill_request(self) -> tuple[str, dict[str, str], dict[str, Any]] | None:
        """The first request whose tools include `Skill`."""
        with self._lock:
            for path, headers, body in self.requests:
                tools = body.get("tools") or []
                if any(isinstance(t, dict) and t.get("name") == "Skill" for t in tools):
                    return path, headers, body
        return None

    def __enter__(self) -> CaptureServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)


# -- capture -----------------------------------------------------------------------------------


def write_skills(project: Path, target: SkillEntry, catalog: Sequence[SkillEntry]) -> list[str]:
    """Install the target and the catalog under `project/.claude/skills/` (target wins a name
    clash) exactly as the claude-code backend installs them (whole folders when known, see
    `claude_install`); returns the names installed, in order."""
    return install_skills(project, target, catalog)


def capture_env(home: Path, base_url: str, settings: Mapping[str, str]) -> dict[str, str]:
    """The CLI's environment for a capture: isolated HOME, dummy key, the capture server."""
    env = {k: os.environ[k] for k in _BASE_ENV if k in os.environ}
    env.update(
        HOME=str(home),
        USERPROFILE=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        ANTHROPIC_API_KEY="sk-ant-skillbench-capture-dummy",
        ANTHROPIC_BASE_URL=base_url,
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
    )
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


def mask_volatile(value: Any) -> Any:
    """`value` with what legitimately differs between two CLI runs masked: the per-request
    suffix of the billing header's `cc_version` (for comparing requests, not for sending)."""
    if isinstance(value, str):
        return _BILLING_SUFFIX.sub(r"\1*", value)
    if isinstance(value, list):
        return [mask_volatile(item) for item in value]
    if isinstance(value, dict):
        return {key: mask_volatile(item) for key, item in value.items()}
    return value


def normalise_body(body: dict[str, Any], root: str) -> dict[str, Any]:
    """The body as kept: paths made stable, `metadata` (device/session ids) and `stream` off."""
    kept = {k: v for k, v in body.items() if k not in {"metadata", "stream"}}
    result: dict[str, Any] = normalise(kept, root)
    return result


def capture_template(
    claude_bin: Path,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    *,
    model: str,
    cli_version: str,
    settings: Mapping[str, str] | None = None,
    timeout: float = CAPTURE_TIMEOUT,
) -> ReplayTemplate:
    """Run the CLI once against the capture server and return the normalised template.

    BackendError when the CLI fails, times out or never offers the Skill tool.
    """
    settings = dict(settings or {})
    key = template_key(target, catalog, model, cli_version, settings)
    root = Path(tempfile.mkdtemp(prefix="skillbench-capture-")).resolve()
    try:
        project, home = root / "project", root / "home"
        project.mkdir()
        (home / ".claude").mkdir(parents=True)
        names = write_skills(project, target, catalog)
        with CaptureServer() as server:
            env = capture_env(home, server.base_url, settings)
            args = [str(claude_bin), "-p", SENTINEL, "--model", model]
            args += ["--output-format", "stream-json", "--verbose"]
            try:
                done = subprocess.run(
                    args,
                    cwd=project,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    stdin=subprocess.DEVNULL,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise BackendError(
                    f"capturing Claude Code's request timed out after {timeout:g} s"
                ) from None
            except OSError as exc:
                raise BackendError(f"cannot run {claude_bin}: {exc}; {_INSTALL_HINT}") from None
            found = server.skill_request()
        if found is None:
            tail = (done.stderr or done.stdout or "").strip()[-400:]
            raise BackendError(
                f"the claude CLI (exit {done.returncode}) made no request offering the Skill tool; "
                f"cannot capture a replay template. CLI said: {tail!r}"
            )
        path, headers, body = found
        template = ReplayTemplate(
            key=key,
            model=model,
            cli_version=cli_version,
            path=path,
            headers=headers,
            body=normalise_body(body, str(root)),
            settings=settings,
            skills=names,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if template.sentinel_count() != 1:
        raise BackendError(
            f"the captured request holds the sentinel query {template.sentinel_count()} times "
            "(expected once): this CLI version is not supported by the replay harness"
        )
    return template


class TemplateStore:
    """Replay templates on disk (one JSON file per key), captured on a miss."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_template_dir()
        self.captures = 0
        self._lock = threading.Lock()
        self._memory: dict[str, ReplayTemplate] = {}
        self._failed: dict[str, str] = {}

    def path(self, key: str) -> Path:
        """Where the template of `key` lives."""
        return self.folder / f"{key}.json"

    def load(self, key: str) -> ReplayTemplate | None:
        """The stored template, or None (a damaged file counts as missing)."""
        if key in self._memory:
            return self._memory[key]
        file = self.path(key)
        if not file.is_file():
            return None
        try:
            template = ReplayTemplate.model_validate_json(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if template.key != key or template.format != TEMPLATE_FORMAT:
            return None
        self._memory[key] = template
        return template

    def save(self, template: ReplayTemplate) -> None:
        """Write atomically (a temporary file renamed into place)."""
        from skillbench.io import atomic_write_text

        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path(template.key), template.model_dump_json(indent=1))
        self._memory[template.key] = template

    def lookup(
        self,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
    ) -> ReplayTemplate | None:
        """The stored template for this skill set, model, CLI version and settings, or None
        (never captured here: for cache keys and dry runs)."""
        with self._lock:
            return self.load(template_key(target, catalog, model, cli_version, settings))

    def get(
        self,
        claude_bin: Path,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
    ) -> ReplayTemplate:
        """The template for this skill set, model, CLI version and settings (captured once)."""
        key = template_key(target, catalog, model, cli_version, settings)
        with self._lock:
            found = self.load(key)
            if found is not None:
                return found
            if key in self._failed:  # one failed capture per skill set, not one per run
                raise BackendError(self._failed[key])
            self.captures += 1
            try:
                template = capture_template(
                    claude_bin,
                    target,
                    catalog,
                    model=model,
                    cli_version=cli_version,
                    settings=settings,
                )
            except BackendError as exc:
                self._failed[key] = str(exc)
                raise
            self.save(template)
            return template


def install_hint() -> str:
    """What to do when no CLI is installed (for error messages)."""
    return _INSTALL_HINT


def which_claude() -> str | None:
    """`claude` on PATH, if any."""
    return shutil.which("claude")
