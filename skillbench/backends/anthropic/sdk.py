"""Messages API backend through the official `anthropic` SDK (2.x, on `httpx2`).

`AnthropicJudge` asks the model the way Claude Code routes skills (see `routing_prompt`): a run is
triggered when the reply contains a `Skill` tool_use naming the target. `AnthropicTextModel`
answers prompts with text or with a pydantic object (structured output: `output_config.format`).

Concurrency and retries: one `limiter.AdaptiveLimiter` per backend object (at most
`max_concurrency` calls in flight — what `--workers` sets — adapting down when 429s persist). The
SDK's own retries are off (`max_retries=0` on the client): the limiter retries
408/409/429/5xx/529 and connection errors (`max_retries`, backoff 0.5 s → 8 s with jitter,
honouring `retry-after` / `retry-after-ms`), then rate-limit and overload answers get
`overload_retries` more (full-jitter backoff from 2 s capped at 30 s), and it gives the slot back
while a call waits. The `anthropic-ratelimit-*` headers of every answer reach it through an httpx
response hook, and a request hook tells it when each request is written (httpcore's `trace`
extension), so that calls write their requests one at a time (`serial_sends`). Anything still
failing becomes `TriggerOutcome(error=...)` — never "not triggered". Error texts are redacted: the
API key never appears in them.

Sampling: SDK 2.x sends `anthropic-version: 2026-10-21`, which rejects `temperature`, `top_p`
and `top_k` at ANY value (the SDK dropped them too), so requests carry none: the model samples
at the API default (temperature 1.0). `temperature=None` or `1.0` (the same thing) is accepted
for compatibility; any other value raises BackendError. A TextRequest's `temperature` is
ignored with a warning. The API version is part of `identity()`.

The call cache wraps a judge from outside (`CachingJudge`); `identity()` therefore holds every
setting that changes answers and no secret.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import json
import os
import re
import time
import warnings
from collections.abc import Awaitable, Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, TypeVar, Unpack

from pydantic import BaseModel

from skillbench import redaction
from skillbench.backends import deadline as deadline_module
from skillbench.backends.anthropic import routing_prompt
from skillbench.backends.anthropic.priming import CachePrimer, breakpoint_keys
from skillbench.backends.base import (
    CallUsage,
    PaidReplyError,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
    listing_request_fields,
    public_endpoint,
    reply_problem,
)
from skillbench.backends.deadline import CallTimedOut
from skillbench.backends.limiter import (
    AdaptiveLimiter,
    Failure,
    RetryPolicy,
    parse_retry_after,
    request_sent,
)
from skillbench.errors import BackendError
from skillbench.limits import ROUTING_CALL_TIMEOUT, TEXT_CALL_TIMEOUT

if TYPE_CHECKING:
    import anthropic
    import httpx2
    from anthropic.types import Message

DEFAULT_MODEL = "claude-haiku-4-5"
DEFAULT_ENDPOINT = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 1024
BATCH_CHUNK = 10_000  # requests per Message Batch (the API allows up to 100,000 / 256 MB)
DEFAULT_WORKERS = 16  # calls in flight when neither --workers nor max_concurrency says
_API_VERSION = re.compile(
    r"^ANTHROPIC_API_VERSION\s*(?::[^=]*)?=\s*[\x27\"]([^\x27\"]+)[\x27\"]", re.MULTILINE
)

M = TypeVar("M", bound=BaseModel)
Sleep = Callable[[float], Awaitable[None]]


def resolve_api_key(api_key: str | None) -> str:
    """The explicit key, else ANTHROPIC_API_KEY; BackendError (never echoing a key) if neither."""
    key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY", "")
    if not key or not key.strip():
        raise BackendError(
            "the anthropic backend needs an API key: set the ANTHROPIC_API_KEY environment "
            "variable (or pass api_key=...), or choose the offline `local` backend"
        )
    return key.strip()


def check_sampling(temperature: float | None) -> None:
    """Refuse a temperature the API cannot honour (anything but None / the 1.0 default)."""
    if temperature is not None and temperature != 1.0:
        raise BackendError(
            f"temperature={temperature} cannot be sent: the Messages API version used by the "
            "anthropic SDK 2.x (2026-10-21) rejects sampling parameters; the model always "
            "samples at its default (1.0)"
        )


@functools.cache
def api_version() -> str:
    """The `anthropic-version` header the installed SDK sends.

    Read from the SDK's `_constants.py` without importing the SDK: importing it costs one to two
    seconds, and a fully cached re-run (which needs the version for its cache keys) makes no
    call at all. Falls back to the import if the file does not hold the constant as expected.
    """
    spec = importlib.util.find_spec("anthropic")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        constants = Path(folder) / "_constants.py"
        if constants.is_file():
            match = _API_VERSION.search(constants.read_text(encoding="utf-8"))
            if match:
                return match.group(1)
    from anthropic._constants import ANTHROPIC_API_VERSION

    return ANTHROPIC_API_VERSION


def redact(text: str, secret: str) -> str:
    """`text` with `secret` (and its tail) and key-shaped strings redacted (skillbench.redaction)."""
    return redaction.redact(text, (secret,))


def usage_of(message: Message) -> CallUsage:
    """Token usage of a reply, cache reads and writes included (cost filled in separately)."""
    u = message.usage
    return CallUsage(
        input_tokens=u.input_tokens or 0,
        output_tokens=u.output_tokens or 0,
        cache_read_input_tokens=u.cache_read_input_tokens or 0,
        cache_creation_input_tokens=u.cache_creation_input_tokens or 0,
    )


def price(model: str, usage: CallUsage, *, batch: bool = False) -> tuple[float, str | None]:
    """Cost in USD via `skillbench.schemas.prices`, and why it is unknown (None when known)."""
    try:
        from skillbench.schemas import prices as pricing
    except ImportError:
        return 0.0, "pricing table unavailable"
    value = pricing.cost(model, usage, batch=batch)
    if value is None:
        return 0.0, f"no known price for {model}"
    return float(value), None


TOOL_INPUT_KEEP = 500
"""Characters of another tool's input kept in an outcome (JSON), for `skillbench explain`."""


def tool_input_kept(value: Any) -> Any:
    """A tool call's input as kept in an outcome: secrets redacted; when its JSON is longer
    than `TOOL_INPUT_KEEP`, that JSON cut (a string)."""
    clean = redaction.redact_data(value)
    text = json.dumps(clean, ensure_ascii=False)
    return clean if len(text) <= TOOL_INPUT_KEEP else text[: TOOL_INPUT_KEEP - 1] + "…"


def classify_reply(message: Message, target: str) -> tuple[bool, str | None, dict[str, Any]]:
    """(triggered, fired, detail) of one routing reply.

    Triggered when any `Skill` tool_use names `target`; `fired` is the target then, else the
    first other skill named (or None when no skill was invoked).
    """
    tools: list[str] = []
    skills: list[str] = []
    text_parts: list[str] = []
    other_input: Any = None
    for block in message.content:
        if block.type == "tool_use":
            tools.append(block.name)
            skill = routing_prompt.skill_called(block.name, block.input)
            if skill is not None:
                skills.append(skill)
            elif block.name != routing_prompt.SKILL_TOOL and other_input is None:
                other_input = tool_input_kept(block.input)
        elif block.type == "text":
            text_parts.append(block.text)
    triggered = target in skills
    fired = target if triggered else (skills[0] if skills else None)
    detail: dict[str, Any] = {
        "tool_uses": tools,
        "skills_named": skills,
        "stop_reason": message.stop_reason,
        "text": " ".join(text_parts)[:500],
    }
    if other_input is not None:  # the first other tool's input (`skillbench explain`)
        detail["tool_input"] = other_input
    return triggered, fired, detail


def broken_kind(message: Message) -> str | None:
    """Why a reply that named no skill is broken (`refusal`, `max_tokens`,
    `malformed_tool_call`, `empty`), or None when it is a real answer."""
    if message.stop_reason == "refusal":
        return "refusal"
    if message.stop_reason == "max_tokens":
        return "max_tokens"
    for block in message.content:
        if (
            block.type == "tool_use"
            and block.name == routing_prompt.SKILL_TOOL
            and routing_prompt.skill_called(block.name, block.input) is None
        ):
            return "malformed_tool_call"
    has_text = any(b.type == "text" and b.text.strip() for b in message.content)
    has_tool = any(b.type == "tool_use" for b in message.content)
    if not has_text and not has_tool:
        return "empty"
    return None


def classify_failure(exc: BaseException) -> Failure | None:
    """How the limiter treats an SDK exception: retryable as the SDK would retry it (timeouts,
    connection errors, 408/409/429/5xx, or `x-should-retry`), rate-limited for 429/529, with the
    server's `retry-after`. None for anything that is not an API failure."""
    import anthropic

    if isinstance(exc, anthropic.APIConnectionError):  # includes APITimeoutError
        return Failure(retryable=True)
    if not isinstance(exc, anthropic.APIStatusError):
        return None
    headers = exc.response.headers
    status = exc.status_code
    should = headers.get("x-should-retry")
    retryable = should == "true" or (
        should != "false" and (status in (408, 409, 429) or status >= 500)
    )
    return Failure(
        retryable=retryable,
        rate_limited=status in (429, 529),
        retry_after=parse_retry_after(headers),
    )


def _describe(exc: BaseException) -> str:
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        return f"{type(exc).__name__} (HTTP {exc.status_code}): {exc.message}"
    return f"{type(exc).__name__}: {exc}"


async def within_deadline(call: Awaitable[Any], deadline: float, seconds: float) -> Any:
    """`deadline.within_deadline` for the Anthropic SDK's callers: the timeout raised as an
    `anthropic.AnthropicError`, which they already turn into an error outcome."""
    import anthropic

    try:
        return await deadline_module.within_deadline(call, deadline, seconds)
    except CallTimedOut as exc:
        raise anthropic.AnthropicError(str(exc)) from None


_SENT_EVENTS = ("send_request_body.complete", "connect_tcp.started", "start_tls.started")


async def trace_sends(request: httpx2.Request) -> None:
    """Request hook: tell the limiter (`limiter.request_sent`) when this request is written, or
    when it waits on the network for a new connection, through httpcore's `trace` extension.

    The limiter then lets the next call write its own request (`serial_sends`): calls started
    together would otherwise interleave every step of their sends on the one event loop and
    all reach the server only once the last one was built, a whole wave late."""
    previous = request.extensions.get("trace")

    async def trace(event: str, info: dict[str, Any]) -> None:
        if event.endswith(_SENT_EVENTS) or event.endswith(".failed"):
            request_sent()
        if previous is not None:
            await previous(event, info)

    request.extensions["trace"] = trace


class ClientOptions(TypedDict, total=False):
    """The keyword options every Messages API backend accepts (see `_AnthropicBase.__init__`)."""

    api_key: str | None
    base_url: str | None
    max_concurrency: int | None
    max_retries: int
    overload_retries: int
    http_client: httpx2.AsyncClient | None
    timeout: float | None


class _AnthropicBase:
    """Client construction, key handling, concurrency and retries shared by judge and text model.

    Subclasses set the defaults of `max_concurrency` and `timeout`."""

    name = "anthropic"
    default_max_concurrency: ClassVar[int] = 4
    default_timeout: ClassVar[float] = TEXT_CALL_TIMEOUT

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_concurrency: int | None = None,
        max_retries: int = 4,
        overload_retries: int = 2,
        http_client: httpx2.AsyncClient | None = None,
        timeout: float | None = None,
    ) -> None:
        """`max_concurrency` and `timeout` default to the class's `default_*` values."""
        if max_concurrency is None:
            max_concurrency = self.default_max_concurrency
        if timeout is None:
            timeout = self.default_timeout
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.model: str | None = model
        self._model = model
        self._key = resolve_api_key(api_key)
        self._base_url = base_url
        self._http_client = http_client
        self._timeout = timeout
        self._max_concurrency = max_concurrency
        self._client: anthropic.AsyncAnthropic | None = None
        self.limiter = AdaptiveLimiter(
            max_concurrency,
            policy=RetryPolicy(max_retries=max_retries, overload_retries=overload_retries),
            serial_sends=True,  # the client's request hook says when each request is written
        )
        self.sleep: Sleep = asyncio.sleep  # patched by tests to keep backoff instant

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self._model!r}, max_concurrency={self._max_concurrency})"
        )

    def endpoint(self) -> str:
        """Where requests go: the base URL (explicit, else ANTHROPIC_BASE_URL, else the public
        API) without credentials. Part of the identity, so a mock's answers are never reused as
        the real API's."""
        url = self._base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ENDPOINT
        return public_endpoint(url) or DEFAULT_ENDPOINT

    @property
    def max_concurrency(self) -> int:
        """Calls in flight at most (what `--workers` sets)."""
        return self._max_concurrency

    @property
    def attempts(self) -> int:
        """HTTP attempts made so far, retries included."""
        return self.limiter.attempts

    @property
    def client(self) -> anthropic.AsyncAnthropic:
        """The SDK client, created on first use, with its own retries off (the limiter
        retries) and a response hook that shows the limiter every answer's headers."""
        if self._client is None:
            import anthropic

            http_client = self._http_client or anthropic.DefaultAsyncHttpxClient()
            http_client.event_hooks["request"].append(trace_sends)
            http_client.event_hooks["response"].append(self._observe)
            self._client = anthropic.AsyncAnthropic(
                api_key=self._key,
                base_url=self._base_url,  # None → ANTHROPIC_BASE_URL or the public API
                max_retries=0,
                timeout=self._timeout,
                http_client=http_client,
            )
        return self._client

    def warm_up(self) -> None:
        """Import the SDK and build the client now (a second or two), so that timings of the
        calls that follow (`wall_seconds`) do not include it."""
        _ = self.client

    async def _observe(self, response: httpx2.Response) -> None:
        self.limiter.observe_headers(response.headers)

    def _error_text(self, exc: BaseException) -> str:
        return redact(_describe(exc), self._key)

    async def _call(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run one SDK call through the limiter (slot, retries, backoff, rate-limit headers).

        The timeout bounds the whole call, from its first attempt to its answer (retries and the
        waits between them included, queueing for the first slot not): the SDK's own timeout is
        per read.
        """
        self.limiter.sleep = self.sleep
        loop = asyncio.get_running_loop()
        deadline: float | None = None

        async def attempt() -> Any:
            nonlocal deadline
            deadline = deadline or loop.time() + self._timeout
            return await within_deadline(make(), deadline, self._timeout)

        return await self.limiter.run(attempt, classify_failure)

    def versions(self) -> dict[str, str]:
        """SDK and HTTP client versions (from package metadata: no SDK import)."""
        return {
            "anthropic": metadata.version("anthropic"),
            "httpx2": metadata.version("httpx2"),
            "endpoint": self.endpoint(),
        }

    async def aclose(self) -> None:
        """Close the SDK client (a caller-supplied http_client is closed too)."""
        if self._client is not None:
            await self._client.close()
            self._client = None


class AnthropicJudge(_AnthropicBase):
    """TriggerJudge over the Messages API, routing like Claude Code's `Skill` tool."""

    is_proxy = False
    harness = "minimal"
    default_max_concurrency = DEFAULT_WORKERS
    default_timeout = ROUTING_CALL_TIMEOUT

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        temperature: float | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        batch: bool = False,
        per_query_shuffle: bool = False,
        batch_poll_seconds: float = 10.0,
        batch_timeout_seconds: float = 24 * 3600.0,
        **options: Unpack[ClientOptions],
    ) -> None:
        super().__init__(model, **options)
        check_sampling(temperature)
        self.max_tokens = max_tokens
        self.batch = batch
        self.per_query_shuffle = per_query_shuffle
        self.batch_poll_seconds = batch_poll_seconds
        self.batch_timeout_seconds = batch_timeout_seconds
        #: one call per prompt-cache prefix (listing) first, the rest once it has answered
        self.primer = CachePrimer()

    def identity(self) -> dict[str, Any]:
        """Everything that changes answers: model, prompt, API version and the endpoint (no key,
        no concurrency)."""
        return {
            "backend": self.name,
            "model": self._model,
            "endpoint": self.endpoint(),
            "prompt_version": routing_prompt.PROMPT_VERSION,
            "tool_schema_version": routing_prompt.TOOL_SCHEMA_VERSION,
            "api_version": api_version(),
            "sampling": "api-default",
            "max_tokens": self.max_tokens,
            "shuffle": "query" if self.per_query_shuffle else "run",
        }

    def request_fields(self, request: TriggerRequest) -> dict[str, Any]:
        """What decides this judge's answer, its cache key: the query, run index, seed and each
        skill's name and description (not the body, not the rest of the skill folder)."""
        return listing_request_fields(request)

    def versions(self) -> dict[str, str]:
        """SDK versions and endpoint, and the harness name (`minimal`: not Claude Code's
        request)."""
        return {"harness": self.harness, **super().versions()}

    def params(self, request: TriggerRequest) -> dict[str, Any]:
        """The `messages.create` arguments for one request."""
        return routing_prompt.routing_params(
            request,
            model=self._model,
            max_tokens=self.max_tokens,
            per_query_shuffle=self.per_query_shuffle,
        )

    def outcome(
        self, message: Message, request: TriggerRequest, *, seconds: float, batch: bool = False
    ) -> TriggerOutcome:
        """Turn one reply into an outcome, with usage and cost. A broken reply (`broken_kind`)
        is an error with its kind, never "not triggered"."""
        triggered, fired, detail = classify_reply(message, request.target.name)
        usage = usage_of(message)
        usage.cost_usd, cost_note = price(self._model, usage, batch=batch)
        if cost_note:
            detail["cost_note"] = cost_note
        if batch:
            detail["batch"] = True
        kind = None if triggered or fired else broken_kind(message)
        if kind is not None:
            return TriggerOutcome.broken(
                kind, message.stop_reason, usage=usage, duration_seconds=seconds, detail=detail
            )
        return TriggerOutcome(
            triggered=triggered, fired=fired, usage=usage, duration_seconds=seconds, detail=detail
        )

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """One routing call; API failures after retries give an outcome with `error` set."""
        import anthropic

        params = self.params(request)
        start = time.perf_counter()
        # the first call with a listing writes its prefix; the others wait for its reply
        release = await self.primer.acquire(breakpoint_keys(params))

        async def send() -> Message:
            try:
                return await self.client.messages.create(**params)
            except BaseException:
                release(False)  # a failed attempt (a 429 waiting to retry): the next call primes
                raise

        try:
            message = await self._call(send)
            release(True)
        except anthropic.AnthropicError as exc:
            return TriggerOutcome(
                triggered=False,
                error=self._error_text(exc),
                duration_seconds=time.perf_counter() - start,
            )
        finally:
            release(False)  # no-op after a reply
        return self.outcome(message, request, seconds=time.perf_counter() - start)

    async def judge_many(self, requests: Sequence[TriggerRequest]) -> list[TriggerOutcome]:
        """Many requests at once: one Message Batch when `batch` is on, else concurrent calls
        (bounded by `max_concurrency`). Results are in request order."""
        if self.batch:
            return await self.judge_batch(requests)
        return list(await asyncio.gather(*(self.judge(r) for r in requests)))

    async def judge_batch(self, requests: Sequence[TriggerRequest]) -> list[TriggerOutcome]:
        """All requests through the Message Batches API (half price), in request order.

        Each request gets `custom_id` "r<index>"; the batch is polled with backoff until it
        ends (or `batch_timeout_seconds` passes, when it is cancelled); results are matched
        by custom_id. Failed, expired, cancelled or missing results become errors.
        """
        outcomes: list[TriggerOutcome] = []
        for start in range(0, len(requests), BATCH_CHUNK):
            chunk = list(requests[start : start + BATCH_CHUNK])
            outcomes.extend(await self._run_batch(chunk, offset=start))
        return outcomes

    async def _run_batch(
        self, requests: list[TriggerRequest], *, offset: int
    ) -> list[TriggerOutcome]:
        import anthropic

        ids = [f"r{offset + i}" for i in range(len(requests))]
        body = [
            {"custom_id": cid, "params": self.params(r)}
            for cid, r in zip(ids, requests, strict=True)
        ]
        start = time.perf_counter()
        try:
            batch = await self._call(lambda: self.client.messages.batches.create(requests=body))  # type: ignore[arg-type]
            batch = await self._wait_for_batch(batch.id)
            if batch.processing_status != "ended":
                note = f"batch {batch.id} did not finish in time; cancelled"
                return [self._failed(note) for _ in ids]
            results: dict[str, Any] = {}
            decoder = await self._call(lambda: self.client.messages.batches.results(batch.id))
            async for line in decoder:
                results[line.custom_id] = line.result
        except anthropic.AnthropicError as exc:
            return [self._failed(self._error_text(exc)) for _ in ids]
        seconds = time.perf_counter() - start
        return [
            self._batch_outcome(results.get(cid), request, seconds / max(len(ids), 1))
            for cid, request in zip(ids, requests, strict=True)
        ]

    async def _wait_for_batch(self, batch_id: str) -> Any:
        """Poll until the batch ends, backing off from `batch_poll_seconds` up to 60 s."""
        deadline = time.monotonic() + self.batch_timeout_seconds
        delay = self.batch_poll_seconds
        while True:
            batch = await self._call(lambda: self.client.messages.batches.retrieve(batch_id))
            if batch.processing_status == "ended":
                return batch
            if time.monotonic() + delay > deadline:
                await self._call(lambda: self.client.messages.batches.cancel(batch_id))
                return batch
            await self.sleep(delay)
            delay = min(delay * 1.5, 60.0)

    def _batch_outcome(
        self, result: Any, request: TriggerRequest, seconds: float
    ) -> TriggerOutcome:
        if result is None:
            return self._failed("no result for this request in the batch results")
        if result.type == "succeeded":
            return self.outcome(result.message, request, seconds=seconds, batch=True)
        if result.type == "errored":
            err = result.error.error
            return self._failed(
                redact(f"batch request errored: {err.type}: {err.message}", self._key)
            )
        return self._failed(f"batch request {result.type}")

    @staticmethod
    def _failed(message: str) -> TriggerOutcome:
        return TriggerOutcome(triggered=False, error=message)


class AnthropicTextModel(_AnthropicBase):
    """TextModel over the Messages API: plain text, or a pydantic object via structured output."""

    default_max_concurrency = 4
    default_timeout = TEXT_CALL_TIMEOUT

    def identity(self) -> dict[str, Any]:
        """Model, API version and endpoint (the request carries the rest)."""
        return {
            "backend": self.name,
            "model": self._model,
            "endpoint": self.endpoint(),
            "api_version": api_version(),
            "sampling": "api-default",
        }

    def _kwargs(self, request: TextRequest) -> dict[str, Any]:
        if request.temperature is not None and request.temperature != 1.0:
            warnings.warn(
                f"temperature={request.temperature} ignored: the Messages API no longer accepts "
                "sampling parameters",
                stacklevel=3,
            )
        kwargs: dict[str, Any] = {
            "model": self._model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": "user", "content": request.prompt}],
        }
        if request.system:
            kwargs["system"] = request.system
        return kwargs

    def _usage(self, message: Message) -> CallUsage:
        usage = usage_of(message)
        usage.cost_usd, _ = price(self._model, usage)
        return usage

    async def complete(self, request: TextRequest) -> TextResponse:
        """The model's text reply; BackendError (key redacted) when the call fails."""
        import anthropic

        kwargs = self._kwargs(request)
        try:
            message = await self._call(lambda: self.client.messages.create(**kwargs))
        except anthropic.AnthropicError as exc:
            raise BackendError(f"anthropic text call failed: {self._error_text(exc)}") from None
        except ValueError as exc:  # a 200 whose body is empty or not JSON (json.JSONDecodeError)
            raise BackendError(
                f"anthropic text call failed: the reply was not a JSON message ({type(exc).__name__})"
            ) from None
        text = "".join(b.text for b in message.content if b.type == "text")
        return TextResponse(text=text, usage=self._usage(message))

    async def complete_json(self, request: TextRequest, output_model: type[M]) -> TextResponse:
        """A structured reply: `parsed` holds the validated object as a dict. The request is
        `messages.parse`'s (the schema as `output_config.format`), but the reply is validated
        here, so one that does not match still states its paid usage (PaidReplyError)."""
        import anthropic

        kwargs = self._kwargs(request)
        schema = anthropic.transform_schema(output_model)
        kwargs["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        try:
            message = await self._call(lambda: self.client.messages.create(**kwargs))
        except anthropic.AnthropicError as exc:
            raise BackendError(
                f"anthropic structured call failed: {self._error_text(exc)}"
            ) from None
        except ValueError as exc:  # a 200 whose body is empty or not JSON (json.JSONDecodeError)
            raise BackendError(
                "anthropic structured call failed: the reply was not a JSON message "
                f"({type(exc).__name__})"
            ) from None
        usage = self._usage(message)
        text = "".join(b.text for b in message.content if b.type == "text")
        if not text:
            raise PaidReplyError(
                f"anthropic reply had no {output_model.__name__} object "
                f"(stop_reason={message.stop_reason})",
                usage,
            )
        try:
            parsed = output_model.model_validate_json(text)
        except ValueError as exc:  # pydantic validation of the reply
            raise PaidReplyError(
                f"anthropic reply does not match {output_model.__name__}: "
                f"{redact(reply_problem(exc), self._key)}",
                usage,
            ) from None
        return TextResponse(text=text, usage=usage, parsed=parsed.model_dump())

    async def complete_structured(self, request: TextRequest, output_model: type[M]) -> M:
        """The reply as an `output_model` instance (via `complete_json`)."""
        response = await self.complete_json(request, output_model)
        return output_model.model_validate(response.parsed)
