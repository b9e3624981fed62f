"""The `replay` harness of the anthropic backend: Claude Code's own request, query swapped.

For each skill set (target + catalog) the installed `claude` CLI's first Skill-offering request is
captured once (`replay_capture`); every run then sends that request — system blocks, tools,
messages, thinking, max_tokens, output_config, context_management, `anthropic-version`,
`anthropic-beta` — through the anthropic SDK with only the sentinel replaced by the query. Claude
Code's `cache_control` breakpoints are kept, so after the first call per template nearly all input
tokens are cache reads (the report's cost line shows the share).

The outcome is the model's FIRST move (`first_turn`): the target skill, another skill, another
tool first (undecided: counted apart, never a miss), a text answer, or a broken answer (an error
with its kind). Once the outcome is decided the rest of the message is read for at most
`DRAIN_SECONDS`, then the stream is cut off (`stop_when_decided`).

Bedrock / Vertex: with `CLAUDE_CODE_USE_BEDROCK` / `CLAUDE_CODE_USE_VERTEX` set (as for Claude
Code itself) the request goes through the SDK's Bedrock / Vertex client, the model id mapped as
Claude Code 2.1.197 maps it (`provider_model`). No key then: the provider's credentials apply.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import json
import logging
import os
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.backends.anthropic.as_user import read_as_user
from skillbench.backends.anthropic.capture import (
    SENTINEL,
    ReplayTemplate,
    TemplateStore,
    install_hint,
    request_settings,
)
from skillbench.backends.anthropic.first_turn import FirstTurn
from skillbench.backends.anthropic.priming import CachePrimer, breakpoint_keys
from skillbench.backends.anthropic.project import ProjectSnapshot, snapshot
from skillbench.backends.anthropic.prompt_cache import add_breakpoint_before_query
from skillbench.backends.anthropic.sdk import (
    DEFAULT_ENDPOINT,
    DEFAULT_MODEL,
    DEFAULT_WORKERS,
    _describe,
    classify_failure,
    price,
    redact,
    resolve_api_key,
    tool_input_kept,
    trace_sends,
    within_deadline,
)
from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TriggerOutcome,
    TriggerRequest,
    public_endpoint,
)
from skillbench.backends.claude_cli.interactive import check_cli_mode
from skillbench.backends.limiter import AdaptiveLimiter, RetryPolicy
from skillbench.backends.skill_install import CliSkill, cli_skills
from skillbench.errors import BackendError
from skillbench.limits import ROUTING_CALL_TIMEOUT

if TYPE_CHECKING:
    import httpx2

HARNESS = "replay"
DRAIN_SECONDS = 1.0
DEADLINE_MARGIN = 0.05  # seconds the drain leaves before the call's deadline
"""After the first move is decided, how long the rest of the message may take to arrive before
the stream is cut off (closing a stream mid-body also closes its connection: the next call
pays a new TLS handshake)."""
CACHE_BEFORE_QUERY = "claude-code + 1 before the query"
"""The `cache_breakpoints` version of a judge with `cache_before_query` on."""
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
LOG = logging.getLogger("skillbench.replay")


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


def cli_version(claude_bin: Path) -> str:
    """`claude --version` of the binary (run in a throwaway HOME)."""
    import re

    with tempfile.TemporaryDirectory(prefix="skillbench-replay-v-") as tmp:
        env = {k: os.environ[k] for k in ("PATH", "LANG", "TMPDIR") if k in os.environ}
        env.update(HOME=tmp, CLAUDE_CONFIG_DIR=str(Path(tmp) / ".claude"), DISABLE_AUTOUPDATER="1")
        try:
            done = subprocess.run(
                [str(claude_bin), "--version"],
                capture_output=True,
                text=True,
                timeout=60,
                env=env,
                cwd=tmp,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendError(
                f"`claude --version` failed: {type(exc).__name__}; {install_hint()}"
            ) from None
    match = re.search(r"\d+\.\d+\.\d+\S*", done.stdout or "")
    if done.returncode != 0 or match is None:
        raise BackendError(
            f"`claude --version` exited with code {done.returncode}; {install_hint()}"
        )
    return match.group(0)


def locate_claude(claude_bin: str | os.PathLike[str] | None) -> Path:
    """The CLI to capture with (see `claude_code.resolve_claude_bin`), or BackendError naming
    `make claude` and the `--harness minimal` alternative."""
    from skillbench.backends.claude_cli.session import resolve_claude_bin

    try:
        return resolve_claude_bin(claude_bin)
    except BackendError:
        raise BackendError(f"no Claude Code CLI found: {install_hint()}") from None


def message_events(message: Any) -> list[dict[str, Any]]:
    """A complete (non-streamed) message as the stream events that would have carried it."""
    usage = getattr(message, "usage", None)
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"usage": usage}}]
    for index, block in enumerate(getattr(message, "content", []) or []):
        kind = getattr(block, "type", None)
        start: dict[str, Any] = {"type": kind, "name": getattr(block, "name", None)}
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        if kind in ("tool_use", "server_tool_use"):
            raw = json.dumps(getattr(block, "input", {}) or {})
            delta: dict[str, Any] = {"type": "input_json_delta", "partial_json": raw}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        elif kind == "text":
            delta = {"type": "text_delta", "text": getattr(block, "text", "")}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": getattr(message, "stop_reason", None)}
    events.append({"type": "message_delta", "delta": stop, "usage": usage})
    events.append({"type": "message_stop"})
    return events


class ReplayJudge:
    """TriggerJudge that replays Claude Code's captured request through the SDK."""

    name = "anthropic"
    harness = HARNESS
    is_proxy = False
    default_max_concurrency = DEFAULT_WORKERS  # calls in flight; the limiter adapts down
    default_timeout = ROUTING_CALL_TIMEOUT  # a first turn, cut off once decided

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        claude_bin: str | os.PathLike[str] | None = None,
        template_dir: str | os.PathLike[str] | None = None,
        max_concurrency: int | None = None,
        max_retries: int = 4,
        overload_retries: int = 2,
        http_client: httpx2.AsyncClient | None = None,
        timeout: float | None = ROUTING_CALL_TIMEOUT,
        stop_when_decided: bool = True,
        batch: bool = False,
        batch_poll_seconds: float = 10.0,
        batch_timeout_seconds: float = 24 * 3600.0,
        temperature: float | None = None,
        cache_before_query: bool = False,
        project: str | os.PathLike[str] | None = None,
        clock: Callable[[], datetime.date] = datetime.date.today,
        cli_mode: str = "print",
        as_user: str | os.PathLike[str] | None = None,
    ) -> None:
        if temperature is not None and temperature != 1.0:
            raise BackendError("the replay harness sends Claude Code's own sampling settings")
        self.model: str | None = model
        self._model = model
        self.provider = provider()
        self._key = resolve_api_key(api_key) if self.provider == "anthropic" else ""
        self._base_url = base_url
        self.claude_bin = locate_claude(claude_bin)
        self._cli_version: str | None = None
        self.store = TemplateStore(template_dir)
        self.settings = request_settings()
        #: `--cli-mode`: whose request is replayed, `claude -p`'s or the interactive CLI's.
        self.cli_mode = check_cli_mode(cli_mode)
        #: `--project`: the capture sees this repository's view (read-only snapshot).
        self.project: ProjectSnapshot | None = snapshot(project) if project is not None else None
        #: `--as-user`: the user's Claude Code configuration in the capture's HOME (read once).
        self.as_user = read_as_user(as_user) if as_user is not None else None
        #: Today's date for the replayed request (local time, as the CLI's own date).
        self.clock = clock
        self.max_concurrency = max_concurrency or self.default_max_concurrency
        self.limiter = AdaptiveLimiter(
            self.max_concurrency,
            policy=RetryPolicy(max_retries=max_retries, overload_retries=overload_retries),
            serial_sends=True,  # the client's request hook says when each request is written
        )
        self._http_client = http_client
        self._timeout = timeout
        self.stop_when_decided = stop_when_decided
        self.drain_seconds = DRAIN_SECONDS
        self._client: Any = None
        self._capture_lock: asyncio.Lock | None = None
        self.sleep = asyncio.sleep
        self.templates_used: dict[str, ReplayTemplate] = {}
        self.batch = batch
        self.batch_poll_seconds = batch_poll_seconds
        self.batch_timeout_seconds = batch_timeout_seconds
        self.progress: Callable[[str], None] | None = None
        self.notes: list[str] = []  # what a run should tell its reader (a forgotten batch id)
        self.cache_before_query = cache_before_query
        self._prepared: dict[str, ReplayTemplate] = {}
        self._by_skill_set: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], ReplayTemplate] = {}
        self._skill_sets: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], tuple[CliSkill, ...]] = {}
        self._content_hashes: dict[str, str] = {}
        #: one call per prompt-cache prefix first, the rest once its response has begun
        self.primer = CachePrimer()

    # -- identity ---------------------------------------------------------------------------

    def cli_version(self) -> str:
        """The capturing CLI's version (asked once)."""
        if self._cli_version is None:
            self._cli_version = cli_version(self.claude_bin)
        return self._cli_version

    def endpoint(self) -> str:
        """Where requests go (no credentials): the provider, or the Anthropic base URL."""
        if self.provider != "anthropic":
            return self.provider
        url = self._base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ENDPOINT
        return public_endpoint(url) or DEFAULT_ENDPOINT

    def identity(self) -> dict[str, Any]:
        """Backend, harness, model, provider, endpoint, CLI version and request settings."""
        return {
            "backend": self.name,
            "harness": HARNESS,
            "model": self._model,
            "provider": self.provider,
            "endpoint": self.endpoint(),
            "cli_version": self.cli_version(),
            "settings": dict(sorted(self.settings.items())),
            "outcome": "first-turn",
            **({"cli_mode": self.cli_mode} if self.cli_mode != "print" else {}),
            **(
                {"project": self.project.label(), "project_key": self.project.key()}
                if self.project is not None
                else {}
            ),
            **({"as_user": self.as_user.key()} if self.as_user is not None else {}),
        }

    def versions(self) -> dict[str, str]:
        """SDK, CLI, endpoint and prompt-cache breakpoints, for the report."""
        return {
            "harness": HARNESS,
            "anthropic": metadata.version("anthropic"),
            "claude_code": self.cli_version(),
            "endpoint": self.endpoint(),
            "cache_breakpoints": CACHE_BEFORE_QUERY if self.cache_before_query else "claude-code",
            "cli_mode": self.cli_mode,
            **({"project": self.project_label()} if self.project is not None else {}),
            **({"as_user": self.as_user.summary()} if self.as_user is not None else {}),
        }

    def project_label(self) -> str:
        """`DIR @ <commit>`, plus what the capture's copy could not reproduce, if anything."""
        if self.project is None:
            return ""
        differs = sorted({d for t in self.templates_used.values() for d in t.project_differs})
        label = self.project.label()
        if self.project.skills:
            label += f"; its own skills, listed too: {', '.join(self.project.skills)}"
        return (
            f"{label} (the capture's copy differs in: {', '.join(differs)})" if differs else label
        )

    # -- templates --------------------------------------------------------------------------

    async def template(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> ReplayTemplate:
        """The captured request for this skill set (captured once, then cached on disk; a skill
        set already seen by this judge is answered without a lock or a thread hop)."""
        known = self._by_skill_set.get((target, catalog))
        if known is not None:
            return known
        if self._capture_lock is None:
            self._capture_lock = asyncio.Lock()
        version = self.cli_version()
        async with self._capture_lock:
            template = await asyncio.to_thread(
                self.store.get,
                self.claude_bin,
                target,
                catalog,
                model=self._model,
                cli_version=version,
                settings=self.settings,
                project=self.project,
                cli_mode=self.cli_mode,
                as_user=self.as_user,
            )
        self.templates_used[template.key] = template
        self._by_skill_set[(target, catalog)] = template
        return template

    def template_for(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> ReplayTemplate:
        """Blocking form of `template` (for reports written after a run)."""
        template = self.store.get(
            self.claude_bin,
            target,
            catalog,
            model=self._model,
            cli_version=self.cli_version(),
            settings=self.settings,
            project=self.project,
            cli_mode=self.cli_mode,
            as_user=self.as_user,
        )
        self.templates_used[template.key] = template
        return template

    def known_template(
        self, target: SkillEntry, catalog: tuple[SkillEntry, ...]
    ) -> ReplayTemplate | None:
        """The template of this skill set if this judge has it or it is stored (never captured)."""
        known = self._by_skill_set.get((target, catalog))
        if known is not None:
            return known
        return self.store.lookup(
            target,
            catalog,
            model=self._model,
            cli_version=self.cli_version(),
            settings=self.settings,
            project=self.project,
            cli_mode=self.cli_mode,
            as_user=self.as_user,
        )

    def request_fields(self, request: TriggerRequest) -> dict[str, Any] | None:
        """What is sent, as the cache key: the template's content hash (headers and body; the
        model and settings are in the identity), the query, run index and seed; None while the
        template is not captured. An edit to evals/ or notes that leaves the captured request
        byte-identical leaves every key unchanged."""
        template = self.known_template(request.target, request.catalog)
        if template is None:
            return None
        digest = self._content_hashes.get(template.key)
        if digest is None:
            digest = self._content_hashes[template.key] = template.content_hash()
        return {
            "template": digest,
            "query": request.query,
            "run_index": request.run_index,
            "seed": request.seed,
        }

    async def prepare_keys(self, requests: Sequence[TriggerRequest]) -> None:
        """Capture (or load) the template of every skill set among `requests`, so that their
        keys are known; a failed capture is left for `judge` to report."""
        for skill_set in dict.fromkeys((r.target, r.catalog) for r in requests):
            try:
                await self.template(*skill_set)
            except BackendError:
                continue

    # -- client -----------------------------------------------------------------------------

    @property
    def client(self) -> Any:
        """The SDK client for the provider, created on first use."""
        if self._client is None:
            import anthropic

            # the SDK's own retries are off: the limiter retries, with the slot given back
            # while it waits, and sees every answer's rate-limit headers through the hook
            http_client = self._http_client or anthropic.DefaultAsyncHttpxClient()
            http_client.event_hooks["request"].append(trace_sends)
            http_client.event_hooks["response"].append(self._observe)
            common: dict[str, Any] = {
                "max_retries": 0,
                "timeout": self._timeout,
                "http_client": http_client,
            }
            if self.provider == "bedrock":
                self._client = anthropic.AsyncAnthropicBedrock(
                    aws_region=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION"),
                    base_url=self._base_url or os.environ.get("ANTHROPIC_BEDROCK_BASE_URL"),
                    **common,
                )
            elif self.provider == "vertex":
                region = os.environ.get("CLOUD_ML_REGION") or "us-east5"
                project = os.environ.get("ANTHROPIC_VERTEX_PROJECT_ID")
                vertex: dict[str, Any] = {"project_id": project} if project else {}
                self._client = anthropic.AsyncAnthropicVertex(
                    region=region,
                    **vertex,
                    base_url=self._base_url or os.environ.get("ANTHROPIC_VERTEX_BASE_URL"),
                    **common,
                )
            else:
                self._client = anthropic.AsyncAnthropic(
                    api_key=self._key, base_url=self._base_url, **common
                )
        return self._client

    async def _observe(self, response: Any) -> None:
        self.limiter.observe_headers(response.headers)

    def request_body(self, template: ReplayTemplate, query: str) -> dict[str, Any]:
        """The body sent for `query` today (`clock`): the captured one with the query, the
        billing suffix and the date swapped in (`ReplayTemplate.body_for`), plus one
        prompt-cache breakpoint before the query when `cache_before_query` is on (added once
        per template; the model sees the same tokens)."""
        today = self.clock()
        if not self.cache_before_query:
            return template.body_for(query, today)
        prepared = self._prepared.get(template.key)
        if prepared is None:
            body = add_breakpoint_before_query(template.body, SENTINEL)
            prepared = template.model_copy(update={"body": body})
            prepared._sentinel_at = None  # found again in the new body
            prepared._derived_at = None
            self._prepared[template.key] = prepared
        return prepared.body_for(query, today)

    def call_arguments(self, template: ReplayTemplate, query: str) -> dict[str, Any]:
        """The `beta.messages.create` arguments: the body for the query (`request_body`; fields
        the SDK does not name go through `extra_body`), the betas as a list and the captured
        `anthropic-version`."""
        body = self.request_body(template, query)
        model = provider_model(str(body.pop("model", self._model)), self.provider)
        max_tokens = body.pop("max_tokens")
        messages = body.pop("messages")
        arguments: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens,
            "messages": messages,
            "stream": True,
            "extra_body": body,
        }
        betas = template.betas()
        if betas:
            arguments["betas"] = betas
        version = template.headers.get("anthropic-version")
        if self.provider == "anthropic":
            if version:
                arguments["extra_headers"] = {"anthropic-version": version}
            if "beta=true" in template.path:
                arguments["extra_query"] = {"beta": "true"}
        return arguments

    # -- judging ----------------------------------------------------------------------------

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """One replayed call; failures become outcomes with `error` set (never a miss)."""
        start = time.perf_counter()
        try:
            template = await self.template(request.target, request.catalog)
        except BackendError as exc:
            return TriggerOutcome(
                triggered=False, error=f"capture: {exc}", detail={"error_kind": "capture"}
            )
        arguments = self.call_arguments(template, request.query)
        release = await self.primer.acquire(self.cache_keys(arguments))
        try:
            fold = await self._send(
                arguments, request.target.name, self._cli_skills(request), began=release
            )
        except Exception as exc:  # SDK errors and transport failures alike
            return TriggerOutcome(
                triggered=False,
                error=redact(_describe(exc), self._key),
                duration_seconds=time.perf_counter() - start,
                detail={"error_kind": "api", "template": template.key},
            )
        finally:
            release(False)  # no-op once the response began
        return self._outcome(fold, template, time.perf_counter() - start)

    @staticmethod
    def cache_keys(arguments: dict[str, Any]) -> list[str]:
        """The prompt-cache prefixes a call with these `call_arguments` writes or reads."""
        extra = arguments.get("extra_body") or {}
        body = {
            "tools": extra.get("tools"),
            "system": extra.get("system"),
            "messages": arguments.get("messages"),
        }
        return breakpoint_keys(body, str(arguments.get("model")))

    def _cli_skills(self, request: TriggerRequest) -> tuple[CliSkill, ...]:
        """The skill set as Claude Code resolves Skill calls (folder names, frontmatter names,
        disabled skills), read once per skill set."""
        key = (request.target, request.catalog)
        found = self._skill_sets.get(key)
        if found is None:
            found = self._skill_sets[key] = tuple(cli_skills(request.target, request.catalog))
        return found

    async def _send(
        self,
        arguments: dict[str, Any],
        target: str,
        skills: Sequence[CliSkill] = (),
        *,
        began: Callable[[bool], None] | None = None,
    ) -> FirstTurn:
        """One replayed call through the shared limiter (slot freed while waiting out a
        `retry-after` or backoff); the timeout bounds the whole call, retries included.
        `began(True)` is called at the first stream event (the prompt cache's entry is then
        readable: `priming`), `began(False)` when an attempt fails before it (the call waiting
        next primes, rather than every call waiting out this one's backoff)."""
        self.limiter.sleep = self.sleep
        timeout = self._timeout
        loop = asyncio.get_running_loop()
        deadline: float | None = None

        async def attempt() -> FirstTurn:
            nonlocal deadline
            try:
                if timeout is None:
                    return await self._stream_once(arguments, target, skills=skills, began=began)
                deadline = deadline or loop.time() + timeout
                result: FirstTurn = await within_deadline(
                    self._stream_once(arguments, target, deadline, skills=skills, began=began),
                    deadline,
                    timeout,
                )
                return result
            except BaseException:
                if began is not None:  # a failed attempt (a 429 waiting to retry) before its
                    began(False)  # response began: the next call waiting primes instead
                raise

        return await self.limiter.run(attempt, classify_failure)

    async def _stream_once(
        self,
        arguments: dict[str, Any],
        target: str,
        deadline: float | None = None,
        *,
        skills: Sequence[CliSkill] = (),
        began: Callable[[bool], None] | None = None,
    ) -> FirstTurn:
        """One streamed call folded into its first move. Once the move is decided the rest of
        the message is read for at most `drain_seconds` (after a tool call it is only the
        closing events, so the connection goes back to the pool and the real output count
        arrives); a reply still going after that is cut off (`FirstTurn.close_early`). Nothing
        after the decision can undo it: not the call's deadline, a late error event or a
        dropped connection."""
        fold = FirstTurn(target, skills)
        stream = await self.client.beta.messages.create(**arguments)
        events = stream.__aiter__()
        try:
            async for event in events:
                if began is not None:
                    began(True)
                if fold.feed(event) and self.stop_when_decided:
                    if not await self._drain(events, fold, deadline):
                        fold.close_early()
                    break
        finally:
            if fold.decision.decided:
                with contextlib.suppress(Exception):
                    await stream.close()
            else:
                await stream.close()
        fold.finish()
        return fold

    async def _drain(self, events: Any, fold: FirstTurn, deadline: float | None) -> bool:
        """Read the decided message to its end within `drain_seconds` (and before the call's
        deadline); False if it went on, broke off or failed."""
        budget = self.drain_seconds
        if deadline is not None:
            budget = min(budget, deadline - asyncio.get_running_loop().time() - DEADLINE_MARGIN)
        if budget <= 0:
            return False
        try:
            async with asyncio.timeout(budget):
                async for event in events:
                    fold.feed(event)  # message_delta: the real output count
        except Exception:  # timeout, a late `error` event, a dropped connection: the move stands
            return False
        return True

    # -- Message Batches ----------------------------------------------------------------------

    async def judge_many(self, requests: Sequence[TriggerRequest]) -> list[TriggerOutcome]:
        """Many requests: one Message Batch (half price) when `batch` is on, else live calls."""
        if not self.batch:
            return list(await asyncio.gather(*(self.judge(r) for r in requests)))
        return await self.judge_batch(requests)

    def ledger_path(self, ids: Sequence[str], bodies: Sequence[dict[str, Any]]) -> Path:
        """Where the id of this wave's batch is kept until its results are read, so a run killed
        while the batch is processing resumes it instead of paying for a second one."""
        blob = json.dumps([self.identity(), list(ids), list(bodies)], sort_keys=True)
        digest = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]
        return self.store.folder / "batches" / f"{digest}.json"

    async def judge_batch(self, requests: Sequence[TriggerRequest]) -> list[TriggerOutcome]:
        """All requests as one Message Batch, results matched by custom_id, in request order.

        The batch id is written to a ledger as soon as the batch exists; a later run of the same
        wave (after a kill) polls that batch instead of creating another. Failed, expired or
        missing results are errors."""
        import anthropic

        start = time.perf_counter()
        try:
            templates = [await self.template(r.target, r.catalog) for r in requests]
        except BackendError as exc:
            return [self._failed(f"capture: {exc}", "capture") for _ in requests]
        ids = [f"r{i}" for i in range(len(requests))]
        params = []
        for template, request in zip(templates, requests, strict=True):
            arguments = self.call_arguments(template, request.query)
            arguments.pop("stream", None)
            extra = arguments.pop("extra_body", {})
            for key in ("betas", "extra_headers", "extra_query"):
                arguments.pop(key, None)
            params.append({**arguments, **extra})
        betas = sorted({b for t in templates for b in t.betas()})
        ledger = self.ledger_path(ids, params)
        body = [{"custom_id": c, "params": p} for c, p in zip(ids, params, strict=True)]
        try:
            batch_id = self._resume(ledger)
            if batch_id is not None:
                LOG.debug("batch %s: resumed from the ledger %s", batch_id, ledger)
            while True:
                resumed = batch_id is not None
                if batch_id is None:
                    batch_id = await self._create_batch(body, betas, ledger)
                try:
                    batch = await self._wait_for_batch(batch_id, betas)
                    if batch.processing_status != "ended":
                        return [
                            self._failed(
                                f"batch {batch_id} did not finish in time; cancelled", "batch"
                            )
                            for _ in ids
                        ]
                    results = await self._batch_results(batch_id, betas)
                except anthropic.NotFoundError:
                    if not resumed:
                        raise
                    self._forget(ledger, batch_id)
                    batch_id = None
                    continue
                break
        except anthropic.AnthropicError as exc:
            text = redact(_describe(exc), self._key)
            return [self._failed(text, "api") for _ in ids]
        ledger.unlink(missing_ok=True)
        seconds = (time.perf_counter() - start) / max(len(ids), 1)
        return [
            self._batch_outcome(results.get(c), r, t, seconds)
            for c, r, t in zip(ids, requests, templates, strict=True)
        ]

    async def _create_batch(
        self, body: list[dict[str, Any]], betas: list[str], ledger: Path
    ) -> str:
        """Submit the batch and write its id to `ledger` at once (see `judge_batch`)."""
        from skillbench.io import atomic_write_text

        created = await self._batch_call(
            lambda: self.client.beta.messages.batches.create(requests=body, betas=betas)
        )
        ledger.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(ledger, json.dumps({"batch_id": created.id, "requests": len(body)}))
        LOG.debug("batch %s: submitted, %d requests (ledger %s)", created.id, len(body), ledger)
        return str(created.id)

    async def _batch_results(self, batch_id: str, betas: list[str]) -> dict[str, Any]:
        """custom_id → result of an ended batch."""
        results: dict[str, Any] = {}
        decoder = await self._batch_call(
            lambda: self.client.beta.messages.batches.results(batch_id, betas=betas)
        )
        async for line in decoder:
            results[line.custom_id] = line.result
        return results

    def _forget(self, ledger: Path, batch_id: str) -> None:
        """A saved batch id the server no longer knows (404: expired, deleted, or another
        account's): drop it from the ledger and say so; the caller submits the wave anew."""
        ledger.unlink(missing_ok=True)
        message = (
            f"batch {batch_id} (saved in {ledger}) is unknown to the server (404: expired, "
            "deleted or made with another key): forgotten; submitting a new batch"
        )
        LOG.warning(message)
        self.notes.append(message)
        if self.progress is not None:
            self.progress(message)

    async def _batch_call(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """One Message Batches call through the limiter: a transient failure (5xx such as a
        502 from a proxy, 429/529, a dropped connection) is retried with backoff, within the
        retry budget, instead of failing every run of the wave."""
        self.limiter.sleep = self.sleep
        return await self.limiter.run(make, classify_failure)

    @staticmethod
    def _resume(ledger: Path) -> str | None:
        try:
            data = json.loads(ledger.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        batch_id = data.get("batch_id") if isinstance(data, dict) else None
        return batch_id if isinstance(batch_id, str) and batch_id else None

    def _report(self, message: str) -> None:
        LOG.info(message)
        if self.progress is not None:
            self.progress(message)

    async def _wait_for_batch(self, batch_id: str, betas: list[str]) -> Any:
        """Poll with backoff (from `batch_poll_seconds` up to 60 s) until the batch ends, reporting
        its request counts; cancel it after `batch_timeout_seconds`."""
        deadline = time.monotonic() + self.batch_timeout_seconds
        delay = self.batch_poll_seconds
        while True:
            batch = await self._batch_call(
                lambda: self.client.beta.messages.batches.retrieve(batch_id, betas=betas)
            )
            counts = batch.request_counts
            done = counts.succeeded + counts.errored + counts.canceled + counts.expired
            total = done + counts.processing
            self._report(f"batch {batch_id}: {batch.processing_status}, {done}/{total} done")
            if batch.processing_status == "ended":
                return batch
            if time.monotonic() + delay > deadline:
                await self._batch_call(
                    lambda: self.client.beta.messages.batches.cancel(batch_id, betas=betas)
                )
                return batch
            await self.sleep(delay)
            delay = min(delay * 1.5, 60.0)

    def _batch_outcome(
        self, result: Any, request: TriggerRequest, template: ReplayTemplate, seconds: float
    ) -> TriggerOutcome:
        if result is None:
            return self._failed("no result for this request in the batch results", "batch")
        if result.type == "errored":
            err = result.error.error
            return self._failed(
                redact(f"batch request errored: {err.type}: {err.message}", self._key), "api"
            )
        if result.type != "succeeded":
            return self._failed(f"batch request {result.type}", "batch")
        fold = FirstTurn(request.target.name, self._cli_skills(request))
        for event in message_events(result.message):
            fold.feed(event)
        fold.finish()
        outcome = self._outcome(fold, template, seconds, batch=True)
        outcome.detail["batch"] = True
        return outcome

    @staticmethod
    def _failed(message: str, kind: str) -> TriggerOutcome:
        return TriggerOutcome(triggered=False, error=message, detail={"error_kind": kind})

    def _outcome(
        self, fold: FirstTurn, template: ReplayTemplate, seconds: float, *, batch: bool = False
    ) -> TriggerOutcome:
        d = fold.decision
        usage = CallUsage.from_wire(d.usage)
        usage.cost_usd, cost_note = price(self._model, usage, batch=batch)
        detail: dict[str, Any] = {
            "harness": HARNESS,
            "outcome": d.kind,
            "stop_reason": d.stop_reason,
            "template": template.key,
        }
        if d.closed_early:
            detail["stream_closed_when_decided"] = True
        if d.output_estimated:
            detail["output_tokens_estimated"] = "characters received / 4 (stream closed early)"
        if d.text:
            detail["text"] = d.text
        if cost_note:
            detail["cost_note"] = cost_note
        if d.kind == "error":
            detail["error_kind"] = d.error_kind
            return TriggerOutcome(
                triggered=False,
                error=f"{d.error_kind}: broken answer (stop_reason={d.stop_reason})",
                usage=usage,
                duration_seconds=seconds,
                detail=detail,
            )
        if d.kind == "other-tool":
            detail["undecided_tool"] = d.tool
            detail["tool_input"] = tool_input_kept(d.tool_input)
        if d.kind == "disabled-skill":  # Claude Code refuses the call: the skill never runs
            detail["disabled_skill"] = d.fired
        return TriggerOutcome(
            triggered=d.kind == "target",
            fired=None if d.kind == "disabled-skill" else d.fired,
            usage=usage,
            duration_seconds=seconds,
            detail=detail,
            undecided=d.tool if d.kind == "other-tool" else None,
        )

    async def aclose(self) -> None:
        """Close the SDK client."""
        if self._client is not None:
            await self._client.close()
            self._client = None
