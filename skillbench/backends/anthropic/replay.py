"""The `replay` harness of the anthropic backend: Claude Code's own request, query swapped.

Claude Code is one agent of the replay family (`anthropic.capture.ClaudeCodeAgent`): for each
skill set (target + catalog) the installed `claude` CLI's first Skill-offering request is
captured once; every run then sends that request — system blocks, tools, messages, thinking,
max_tokens, output_config, context_management, `anthropic-version`, `anthropic-beta` — through
the anthropic SDK with only the sentinel replaced by the query (`replay.judge.ReplayJudge` does
that, as for every agent). Claude Code's `cache_control` breakpoints are kept, so after the first
call per template nearly all input tokens are cache reads (the report's cost line shows the
share).

What this judge adds to the family's: Message Batches (`batch`: half price, resumed after a
kill), prompt-cache priming (one call per cache prefix first, `priming`) and the optional
breakpoint before the query (`cache_before_query`), the `--project` view and the `--cli-mode`
of the capture, Bedrock / Vertex (`capture.provider`), and a cache key on the template's
content and the query (`sent_fields`), so an edit that leaves the captured request
byte-identical keeps every cached answer.

The outcome is the model's FIRST move (`replay.move`): the target skill, another skill, another
tool first (undecided: counted apart, never a miss), a text answer, or a broken answer (an error
with its kind). Once the outcome is decided the rest of the message is read for at most
`drain_seconds`, then the stream is cut off (`stop_when_decided`).
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from skillbench.backends.anthropic.as_user import read_as_user
from skillbench.backends.anthropic.capture import (
    SENTINEL,
    ClaudeCodeAgent,
    provider,
)
from skillbench.backends.anthropic.priming import CachePrimer, breakpoint_keys
from skillbench.backends.anthropic.project import ProjectSnapshot, snapshot
from skillbench.backends.anthropic.prompt_cache import add_breakpoint_before_query
from skillbench.backends.anthropic.sdk import (
    DEFAULT_MODEL,
    DEFAULT_WORKERS,
    _describe,
    redact,
    trace_sends,
)
from skillbench.backends.base import TriggerOutcome, TriggerRequest
from skillbench.backends.claude_cli.interactive import check_cli_mode
from skillbench.backends.describe import replay_harness
from skillbench.backends.replay import capture as replay_capture
from skillbench.backends.replay import judge as replay_judge
from skillbench.backends.replay.move import Move
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.backends.skill_install import CliSkill
from skillbench.errors import BackendError
from skillbench.limits import ROUTING_CALL_TIMEOUT
from skillbench.schemas.trigger import HarnessInfo

if TYPE_CHECKING:
    import httpx2

    from skillbench.backends.user_config import UserConfig

HARNESS = "replay"
CACHE_BEFORE_QUERY = "claude-code + 1 before the query"
"""The `cache_breakpoints` version of a judge with `cache_before_query` on."""
LOG = logging.getLogger("skillbench.replay")


def cli_version(claude_bin: Path) -> str:
    """`claude --version` of the binary (run in a throwaway HOME)."""
    return replay_capture.cli_version(ClaudeCodeAgent(), claude_bin)


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


class ReplayJudge(replay_judge.ReplayJudge):
    """TriggerJudge that replays Claude Code's captured request through the SDK."""

    name = "anthropic"
    agent: ClaudeCodeAgent
    harness: ClassVar[str] = HARNESS
    listing_source: ClassVar[Literal["agent", "captured"]] = "captured"
    serial_sends: ClassVar[bool] = True  # the client's request hook says when each is written
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
        """The family's options (`replay.judge.ReplayJudge`), the CLI as `claude_bin`, and
        Claude Code's own: Message Batches, the breakpoint before the query, `--project`,
        `--cli-mode`, `--as-user`."""
        if temperature is not None and temperature != 1.0:
            raise BackendError("the replay harness sends Claude Code's own sampling settings")
        agent = ClaudeCodeAgent(provider=provider())
        key = agent.api_key(api_key)  # the key first, then the CLI (`locate`)
        agent.cli_mode = check_cli_mode(cli_mode)
        agent.project = snapshot(project) if project is not None else None
        #: `--as-user`: the user's Claude Code configuration in the capture's HOME (read once).
        agent.as_user = read_as_user(as_user) if as_user is not None else None
        self.agent = agent
        super().__init__(
            model,
            api_key=key,
            base_url=base_url,
            binary=claude_bin,
            template_dir=template_dir,
            max_concurrency=max_concurrency,
            max_retries=max_retries,
            overload_retries=overload_retries,
            timeout=timeout,
            http_client=http_client,
            stop_when_decided=stop_when_decided,
            clock=clock,
        )
        self.name = "anthropic"
        self.batch = batch
        self.batch_poll_seconds = batch_poll_seconds
        self.batch_timeout_seconds = batch_timeout_seconds
        self.progress: Callable[[str], None] | None = None
        self.notes: list[str] = []  # what a run should tell its reader (a forgotten batch id)
        self.cache_before_query = cache_before_query
        self._prepared: dict[str, ReplayTemplate] = {}
        self._content_hashes: dict[str, str] = {}
        #: one call per prompt-cache prefix first, the rest once its response has begun
        self.primer = CachePrimer()

    @property
    def claude_bin(self) -> Path:
        """The CLI the templates are captured with."""
        return self.binary

    @property
    def provider(self) -> str:
        """`anthropic`, `bedrock` or `vertex` (Claude Code's own switches, read at start)."""
        return self.agent.provider

    @property
    def cli_mode(self) -> str:
        """`--cli-mode`: whose request is replayed, `claude -p`'s or the interactive CLI's."""
        return self.agent.cli_mode

    @property
    def as_user(self) -> UserConfig | None:
        """`--as-user`: what of the user's configuration the captures' HOME holds."""
        return self.agent.as_user

    @property
    def project(self) -> ProjectSnapshot | None:
        """`--project`: the capture sees this repository's view (read-only snapshot)."""
        return self.agent.project

    # -- identity ---------------------------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        """The family's identity, plus the provider, the CLI mode (when not `print`) and the
        project (its label and content key)."""
        return {
            **super().identity(),
            "provider": self.provider,
            **({"cli_mode": self.cli_mode} if self.cli_mode != "print" else {}),
            **(
                {"project": self.project.label(), "project_key": self.project.key()}
                if self.project is not None
                else {}
            ),
            **({"as_user": self.as_user.key()} if self.as_user is not None else {}),
        }

    def harness_label(self) -> str:
        return HARNESS

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

    def harness_info(self) -> HarnessInfo:
        """Claude Code's own request (with the breakpoint `--cache-before-query` adds)."""
        return replay_harness(self.cache_before_query, self.cli_mode, self.as_user)

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

    # -- what is sent -----------------------------------------------------------------------

    def sent_fields(self, template: ReplayTemplate, request: TriggerRequest) -> dict[str, Any]:
        """The template's content hash (headers and body; the model and settings are in the
        identity) and the query: an edit to evals/ or notes that leaves the captured request
        byte-identical leaves every key unchanged."""
        digest = self._content_hashes.get(template.key)
        if digest is None:
            digest = self._content_hashes[template.key] = template.content_hash()
        return {"template": digest, "query": request.query}

    def http_client(self) -> Any:
        """The SDK's HTTP client with two hooks: each request's send reported to the limiter
        (`trace_sends`), each answer's rate-limit headers shown to it."""
        import anthropic

        http_client = self._http_client or anthropic.DefaultAsyncHttpxClient()
        http_client.event_hooks["request"].append(trace_sends)
        http_client.event_hooks["response"].append(self._observe)
        return http_client

    async def _observe(self, response: Any) -> None:
        self.limiter.observe_headers(response.headers)

    def request_body(self, template: ReplayTemplate, query: str) -> dict[str, Any]:
        """The body sent for `query` today (`clock`): the captured one with the query, the
        billing suffix and the date swapped in (`ReplayTemplate.body_for`), plus one
        prompt-cache breakpoint before the query when `cache_before_query` is on (added once
        per template; the model sees the same tokens)."""
        if not self.cache_before_query:
            return super().request_body(template, query)
        prepared = self._prepared.get(template.key)
        if prepared is None:
            body = add_breakpoint_before_query(template.body, SENTINEL)
            prepared = template.model_copy(update={"body": body})
            prepared.forget_paths()  # found again in the new body
            self._prepared[template.key] = prepared
        return super().request_body(prepared, query)

    def call_arguments(self, template: ReplayTemplate, query: str) -> dict[str, Any]:
        """The `beta.messages.create` arguments: the body for the query (`request_body`; fields
        the SDK does not name go through `extra_body`), the betas as a list and the captured
        `anthropic-version` (`ClaudeCodeAgent.call_arguments`)."""
        body = self.request_body(template, query)
        return self.agent.call_arguments(template.path, template.headers, body)

    # -- judging ----------------------------------------------------------------------------

    async def send(self, template: ReplayTemplate, request: TriggerRequest) -> Move:
        """One replayed call, primed: the first call of a prompt-cache prefix goes alone, the
        calls sharing it once its response has begun (`priming`); a failed attempt lets the
        next call waiting prime instead of every call waiting out this one's backoff."""
        arguments = self.call_arguments(template, request.query)
        release = await self.primer.acquire(self.cache_keys(arguments))
        target, skills = request.target.name, self._cli_skills(request)

        def call(deadline: float | None) -> Awaitable[Move]:
            return self._stream_once(arguments, target, deadline, skills=skills, began=release)

        try:
            return await self.limited(call, failed=lambda: release(False))
        finally:
            release(False)  # no-op once the response began

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

    async def _stream_once(
        self,
        arguments: dict[str, Any],
        target: str,
        deadline: float | None = None,
        *,
        skills: Sequence[CliSkill] = (),
        began: Callable[[bool], None] | None = None,
    ) -> Move:
        """One streamed call folded into its first move (`Agent.follow`): the rest of a
        decided message read for at most `drain_seconds`, then cut off."""
        fold = self.agent.fold(target, skills, arguments)
        stream = await self.client.beta.messages.create(**arguments)
        return await self.agent.follow(
            stream,
            fold,
            stop_when_decided=self.stop_when_decided,
            deadline=deadline,
            drain_seconds=self.drain_seconds,
            began=began,
        )

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
        return await self.limiter.run(make, self.agent.classify_failure)

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
        fold = self.agent.fold(request.target.name, self._cli_skills(request), {})
        for event in message_events(result.message):
            fold.feed(event)
        outcome = self.outcome(fold.finish(), template, seconds, batch=True)
        outcome.detail["batch"] = True
        return outcome

    @staticmethod
    def _failed(message: str, kind: str) -> TriggerOutcome:
        return TriggerOutcome(triggered=False, error=message, detail={"error_kind": kind})
