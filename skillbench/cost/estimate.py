"""Estimating calls, tokens and dollars before any call is made (`--dry-run`, `--max-cost`).

One `Estimator` per backend, found by name (`get_estimator`); a backend added later (the
replayed Claude Code request, "replay") plugs in with `register_estimator(name, factory)`.
An estimator answers, for calls the call cache does NOT already hold (the planner checks the
cache; hits are free):

- `trigger_calls(requests)`: the tokens of these routing calls, with the input split into
  uncached input, cache writes and cache reads (the first call with a given cacheable prefix
  writes it, later ones read it; a prefix shorter than the model's minimum is not cached);
- `text_call(request)`: one improver / grader call;
- `dollars(tokens, calls)`: USD from the dated price table, or "unknown" — never 0 for an
  unknown model.

Input tokens are counted with the Messages API's `count_tokens` when an API key is present
(`ApiTokenCounter`, the template counted once), else with a documented character estimate
(`CharTokenCounter`: `CHARS_PER_TOKEN` characters of the JSON the API receives per token, the
rule of thumb Claude Code itself uses for 200k-context models). Output tokens are the mean
that the call cache has recorded for that backend and model, else a stated default
(`DEFAULT_OUTPUT_TOKENS`). Claude Code sessions are estimated from the cached sessions' usage,
else from `CLAUDE_CODE_SESSION_DEFAULT` (derived from the measured size of the CLI's request).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from skillbench.backends.anthropic import prompt_cache, routing_prompt
from skillbench.backends.base import SkillEntry, TextRequest, TriggerRequest
from skillbench.backends.describe import describe, innermost, sent_body
from skillbench.backends.spec import AGENT_REPLAY, AGENT_SESSION, FREE, MESSAGES_API
from skillbench.cost.prices import dollars_or_unknown
from skillbench.errors import InputError
from skillbench.schemas.cost import Dollars, TokenCounts
from skillbench.schemas.prices import PriceTable, load_prices

if TYPE_CHECKING:
    from skillbench.backends.cache import CallCache

CHARS_PER_TOKEN = 4.0
"""Offline estimate: characters of the request JSON per token (Claude Code's own rule for
200k-context models; see docs/harnesses.md). Real counts differ by tokenizer; use an API key for
exact input counts."""

DEFAULT_OUTPUT_TOKENS = {"trigger": 60, "text": 400, "session": 300, "execute": 1500}
"""Stated defaults when the cache has seen no reply of the model: a routing reply is one short
sentence plus a `Skill` tool_use (~60 tokens); an improver / grader / comparator reply a
description of at most 1,024 characters or a short verdict with reasons (~400 tokens); a CLI
session's final text ~300; a behavior task's answer (one document or file) ~1,500."""

CACHE_KINDS = {"execute": "behavior-run"}
"""The call-cache `kind` under which answers of a purpose are stored, where they differ."""

CLAUDE_CODE_SESSION_DEFAULT = TokenCounts(
    input_tokens=50,
    cache_creation_input_tokens=20_000,
    cache_read_input_tokens=0,
    output_tokens=DEFAULT_OUTPUT_TOKENS["session"],
)
"""Stated per-session default for the claude-code route when the cache holds no session of the
model: Claude Code 2.1.197 sends 64–82k characters of tools and 5.7–26k of system prompt
(measured, docs/harnesses.md), ≈ 20,000 tokens at 4 characters per token, written to the prompt cache in
each session (every session runs in its own temporary project, so the prefix differs)."""

# Minimum cacheable prefix (tokens) per model family; below it the API silently skips caching.
# Source: Anthropic prompt-caching docs as summarised by LiteLLM's docs (2026-10-07).
MIN_CACHEABLE_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-opus-5", 512),
    ("claude-haiku-4-5", 4096),
    ("claude-opus-4-5", 4096),
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-7", 4096),
    ("claude-sonnet-4-6", 2048),
)
DEFAULT_MIN_CACHEABLE = 1024

TokenCounter = Callable[[Any, Sequence[dict[str, Any]], Sequence[dict[str, Any]]], int]
"""`counter(system, tools, messages)` → input tokens of a request with these parts."""


def char_tokens(value: Any) -> int:
    """Tokens of `value` by the offline character estimate (0 for nothing)."""
    if value is None or value == "" or value == [] or value == {}:
        return 0
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


class CharTokenCounter:
    """The offline estimate: characters of the JSON the API receives / `CHARS_PER_TOKEN`."""

    exact = False
    basis = f"character estimate ({CHARS_PER_TOKEN:g} characters per token)"

    def __call__(
        self, system: Any, tools: Sequence[dict[str, Any]], messages: Sequence[dict[str, Any]]
    ) -> int:
        return char_tokens(system) + char_tokens(list(tools)) + char_tokens(list(messages))


class ApiTokenCounter:
    """Exact input counts from the Messages API's free `count_tokens` endpoint (needs a key);
    falls back to the character estimate, with a note, when the call fails."""

    exact = True
    basis = "Messages API count_tokens"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: Any = None,
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._base_url = base_url
        self._http_client = http_client
        self._client: Any = None
        self.failure: str | None = None
        self._fallback = CharTokenCounter()

    def __call__(
        self, system: Any, tools: Sequence[dict[str, Any]], messages: Sequence[dict[str, Any]]
    ) -> int:
        if self.failure is None:
            try:
                return self._count(system, tools, messages)
            except Exception as exc:  # any failure: fall back, say so once
                from skillbench.backends.cache import scrub_secrets

                self.failure = scrub_secrets(f"{type(exc).__name__}: {exc}")[:200]
                self.exact = False
                self.basis = f"character estimate (count_tokens failed: {self.failure})"
        return self._fallback(system, tools, messages)

    def _count(
        self, system: Any, tools: Sequence[dict[str, Any]], messages: Sequence[dict[str, Any]]
    ) -> int:
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                api_key=self._api_key,
                base_url=self._base_url,
                http_client=self._http_client,
                max_retries=1,
                timeout=30.0,
            )
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = list(tools)
        result = self._client.messages.count_tokens(**kwargs)
        return int(result.input_tokens)


def default_counter(model: str | None, *, api_key: str | None = None) -> TokenCounter:
    """`ApiTokenCounter` when a key is present (argument or ANTHROPIC_API_KEY), else the
    character estimate."""
    key = api_key or os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if key and model:
        return ApiTokenCounter(model, api_key=key)
    return CharTokenCounter()


def counter_basis(counter: TokenCounter) -> str:
    """How a counter counts, for the estimate's `basis`."""
    return str(getattr(counter, "basis", type(counter).__name__))


def min_cacheable_tokens(model: str | None) -> int:
    """The model's minimum cacheable prefix length (tokens)."""
    name = (model or "").lower()
    for prefix, tokens in MIN_CACHEABLE_TOKENS:
        if name.startswith(prefix):
            return tokens
    return DEFAULT_MIN_CACHEABLE


def split_prefix_calls(
    prefixes: Sequence[str], prefix_tokens: int, rest_tokens: Sequence[int], model: str | None
) -> TokenCounts:
    """Tokens of calls sharing cacheable prefixes: per distinct prefix key, the first call
    writes the prefix to the prompt cache and later calls read it; `rest_tokens[i]` (the
    uncached part of call i) is plain input. A prefix below the model's minimum is never
    cached. Assumes calls with one prefix fall within the cache's 5-minute lifetime."""
    cacheable = prefix_tokens >= min_cacheable_tokens(model)
    seen: set[str] = set()
    counts = TokenCounts(input_tokens=sum(rest_tokens))
    writes = reads = plain = 0
    for key in prefixes:
        if not cacheable:
            plain += prefix_tokens
        elif key in seen:
            reads += prefix_tokens
        else:
            seen.add(key)
            writes += prefix_tokens
    counts.input_tokens += plain
    counts.cache_creation_input_tokens = writes
    counts.cache_read_input_tokens = reads
    return counts


def mean_usage(samples: Sequence[dict[str, Any]]) -> TokenCounts | None:
    """The mean of recorded usages (rounded up), or None without samples."""
    if not samples:
        return None

    def mean(name: str) -> int:
        return math.ceil(sum(int(s.get(name) or 0) for s in samples) / len(samples))

    return TokenCounts(
        input_tokens=mean("input_tokens"),
        cache_creation_input_tokens=mean("cache_creation_input_tokens"),
        cache_read_input_tokens=mean("cache_read_input_tokens"),
        output_tokens=mean("output_tokens"),
    )


# ---------------------------------------------------------------------------------------------
# The protocol and the built-in estimators


@runtime_checkable
class Estimator(Protocol):
    """Estimates the calls of one backend and model that the call cache cannot answer."""

    backend: str
    model: str | None

    def price_known(self) -> bool:
        """Whether dollars can be stated (the model has a price, or the backend is free)."""
        ...

    def basis(self) -> str:
        """How the estimate is made (counter, output source), one line."""
        ...

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        """Tokens of these routing calls together (prompt-cache split included)."""
        ...

    def text_call(self, request: TextRequest) -> TokenCounts:
        """Tokens of one text call."""
        ...

    def dollars(self, tokens: TokenCounts, calls: int) -> Dollars:
        """USD for `calls` calls using `tokens` in all, or "unknown"."""
        ...


class _Priced:
    """Shared pricing and output-token lookups for the API-like estimators."""

    backend = ""
    model: str | None = None
    prices: PriceTable
    cache: CallCache | None = None
    batch = False

    def price_known(self) -> bool:
        return bool(self.model) and self.prices.lookup(self.model or "") is not None

    def dollars(self, tokens: TokenCounts, calls: int) -> Dollars:
        return dollars_or_unknown(self.prices, self.model, tokens, batch=self.batch)

    def output_tokens(self, kind: str) -> tuple[int, str]:
        """Mean output tokens the cache recorded for this backend, model and kind, else the
        stated default; and where the figure comes from."""
        samples = (
            self.cache.usage_samples(self.backend, self.model, CACHE_KINDS.get(kind, kind))
            if self.cache is not None
            else []
        )
        mean = mean_usage(samples)
        if mean is not None and mean.output_tokens > 0:
            return mean.output_tokens, f"output {kind}: mean of {len(samples)} cached replies"
        default = DEFAULT_OUTPUT_TOKENS.get(kind, DEFAULT_OUTPUT_TOKENS["text"])
        return default, f"output {kind}: stated default {default} tokens"


class _MessagesApi(_Priced):
    """An estimator of Messages API calls: input counted by `counter`, the source of every
    output figure used kept in `_notes` (for `basis`)."""

    counter: TokenCounter
    _notes: list[str]

    def noted_output(self, kind: str) -> int:
        """`output_tokens(kind)`, its source noted."""
        output, note = self.output_tokens(kind)
        if note not in self._notes:
            self._notes.append(note)
        return output

    def text_call(self, request: TextRequest) -> TokenCounts:
        messages = [{"role": "user", "content": request.prompt}]
        tokens = self.counter(request.system or None, [], messages)
        output = self.noted_output(request.purpose)
        return TokenCounts(input_tokens=tokens, output_tokens=min(output, request.max_tokens))


class LocalEstimator:
    """The offline embedding router: calls are counted, and cost nothing."""

    def __init__(self, model: str | None = None, *, backend: str, **_: Any) -> None:
        self.backend = backend
        self.model = model

    def price_known(self) -> bool:
        return True

    def basis(self) -> str:
        return "offline proxy: no tokens, no cost"

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        return TokenCounts()

    def text_call(self, request: TextRequest) -> TokenCounts:
        return TokenCounts()

    def dollars(self, tokens: TokenCounts, calls: int) -> Dollars:
        return 0.0


class AnthropicEstimator(_MessagesApi):
    """The current Messages API harness (`routing_prompt`): the template (tools + system) is
    counted once per distinct skill listing, each query separately; prompt caching per run."""

    def __init__(
        self,
        model: str | None = None,
        *,
        backend: str,
        cache: CallCache | None = None,
        counter: TokenCounter | None = None,
        prices: PriceTable | None = None,
        batch: bool = False,
        max_tokens: int = 1024,
        per_query_shuffle: bool = False,
        **_: Any,
    ) -> None:
        from skillbench.backends.anthropic.sdk import DEFAULT_MODEL

        self.backend = backend
        self.model = model or DEFAULT_MODEL
        self.cache = cache
        self.counter = counter or default_counter(self.model)
        self.prices = prices or load_prices()
        self.batch = batch
        self.max_tokens = max_tokens
        self.per_query_shuffle = per_query_shuffle
        self._template_tokens: dict[str, int] = {}
        self._notes: list[str] = []

    def basis(self) -> str:
        return "; ".join([f"input: {counter_basis(self.counter)}", *self._notes])

    def _prefix_tokens(self, params: dict[str, Any]) -> int:
        """Tokens of tools + system, counted once per distinct content (listing order aside)."""
        tools = params["tools"]
        # the listing order (shuffled per run) changes no count: key on the sorted lines
        canonical = sorted(
            "\n".join(sorted(json.dumps(t, sort_keys=True).split("\\n"))) for t in tools
        )
        digest = hashlib.sha256(json.dumps(canonical).encode()).hexdigest()
        if digest not in self._template_tokens:
            probe = [{"role": "user", "content": "."}]
            total = self.counter(params["system"], tools, probe)
            self._template_tokens[digest] = max(0, total - char_tokens(probe))
        return self._template_tokens[digest]

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        if not requests:
            return TokenCounts()
        keys: list[str] = []
        rest: list[int] = []
        prefix = 0
        for request in requests:
            params = routing_prompt.routing_params(
                request,
                model=self.model or "",
                max_tokens=self.max_tokens,
                per_query_shuffle=self.per_query_shuffle,
            )
            prefix = self._prefix_tokens(params)
            keys.append(json.dumps([params["tools"], params["system"]], sort_keys=True))
            rest.append(char_tokens(params["messages"]))
        counts = split_prefix_calls(keys, prefix, rest, self.model)
        counts.output_tokens = self.noted_output("trigger") * len(requests)
        return counts


class ReplayEstimator(_MessagesApi):
    """A captured request template (`system`, `tools`, `messages`) replayed with only the query
    swapped, estimated from the template's own prompt-cache breakpoints (`prompt_cache.layout`,
    the query's place found by `query_marker`): the prefix up to the last breakpoint before the
    query is written by the first call and read by the rest; the part from there to a breakpoint
    on (or after) the query's block is written once per distinct query and read when the same
    query runs again; what follows the last breakpoint is plain input. A prefix shorter than the
    model's minimum is not cached. The template is counted once (at most three counts).

    The shared prefix is remembered by content across calls (and, through `prefix_seen`, across
    templates: candidate descriptions of one skill share Claude Code's tools and system prompt);
    per-query prefixes only within one `trigger_calls` (a later round of an improvement loop has
    a new description, so its listing is written again)."""

    def __init__(
        self,
        template: dict[str, Any],
        model: str,
        counter: TokenCounter | None = None,
        *,
        query_marker: str = "",
        backend: str = "replay",
        cache: CallCache | None = None,
        prices: PriceTable | None = None,
        prefix_seen: set[str] | None = None,
    ) -> None:
        for part in ("system", "tools", "messages"):
            if part not in template:
                raise InputError(f"the request template has no {part!r}", field=part)
        self.backend = backend
        self.model = model
        self.cache = cache
        self.counter = counter or default_counter(model)
        self.prices = prices or load_prices()
        self.layout = prompt_cache.layout(template, query_marker)
        body = prompt_cache.swap_text(template, query_marker, "") if query_marker else template
        body = prompt_cache.without_breakpoints(body)  # hints, not tokens
        self.shared_tokens = self._count(body, self.layout.shared)
        self.whole_tokens = self._count(body, None)
        self.cached_tokens = (
            self._count(body, self.layout.last) if self.layout.query_cached else self.shared_tokens
        )
        shared = (
            [] if self.layout.shared is None else prompt_cache.prefix(template, self.layout.shared)
        )
        blob = json.dumps([model, shared], sort_keys=True, ensure_ascii=False)
        self.shared_key = hashlib.sha256(blob.encode("utf-8")).hexdigest()
        self.prefix_seen = prefix_seen if prefix_seen is not None else set()
        self._notes: list[str] = []

    def _count(self, body: dict[str, Any], end: int | None) -> int:
        """Input tokens of the request cut after slot `end` (the whole request for None)."""
        part = body if end is None else prompt_cache.prefix(body, end)
        messages = part.get("messages") or []
        if messages:
            return self.counter(part.get("system"), part.get("tools") or [], messages)
        probe = [{"role": "user", "content": "."}]
        total = self.counter(part.get("system"), part.get("tools") or [], probe)
        return max(0, total - char_tokens(probe))

    def basis(self) -> str:
        return "; ".join([f"template counted once by {counter_basis(self.counter)}", *self._notes])

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        minimum = min_cacheable_tokens(self.model)
        shared_cached = self.layout.shared is not None and self.shared_tokens >= minimum
        shared = self.shared_key
        seen = self.prefix_seen  # shared prefixes written so far, by content
        queries: set[str] = set()  # per-query prefixes written in this call
        counts = TokenCounts()
        for request in requests:
            query = char_tokens(request.query)
            whole = self.whole_tokens + query
            if self.layout.query_cached:
                upto = self.cached_tokens + query
                cacheable, written_before = upto >= minimum, request.query in queries
            else:
                upto, cacheable, written_before = self.shared_tokens, shared_cached, shared in seen
            if cacheable and written_before:
                read = upto
            else:
                read = self.shared_tokens if shared_cached and shared in seen else 0
            written = upto - read if cacheable and not written_before else 0
            counts.cache_read_input_tokens += read
            counts.cache_creation_input_tokens += written
            counts.input_tokens += whole - read - written
            if shared_cached:
                seen.add(shared)
            if cacheable and self.layout.query_cached:
                queries.add(request.query)
        counts.output_tokens = self.noted_output("trigger") * len(requests)
        return counts


TemplateSource = Callable[[SkillEntry, tuple[SkillEntry, ...]], dict[str, Any]]
"""`source(target, catalog)` → the request body sent for that skill set, `QUERY_MARKER` where
the query goes."""

QUERY_MARKER = "<skillbench-estimate-query>"
"""Stands for the query in a template handed to `ReplayEstimator` (counted as empty)."""


class TemplateEstimator(_MessagesApi):
    """For a judge that replays one captured template per skill set (the replay harness): the
    requests are grouped by (target, catalog) and each group is estimated by a
    `ReplayEstimator` over its template, counted once. `source` may capture a template (a local
    CLI run against a loopback capture server: no model call)."""

    def __init__(
        self,
        source: TemplateSource,
        model: str,
        counter: TokenCounter | None = None,
        *,
        backend: str,
        cache: CallCache | None = None,
        prices: PriceTable | None = None,
        fallback: Estimator | None = None,
        breakpoints: str | None = None,
        batch: bool = False,
    ) -> None:
        self.source = source
        self.batch = batch
        self.breakpoints = breakpoints
        self.fallback = fallback
        self.failure: str | None = None
        self.backend = backend
        self.model = model
        self.cache = cache
        self.counter = counter or default_counter(model)
        self.prices = prices or load_prices()
        self._estimators: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], ReplayEstimator] = {}
        self._prefix_seen: set[str] = set()  # shared prefixes (tools + system) across templates
        self._notes: list[str] = []  # its own text calls' output sources

    def _for(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> ReplayEstimator:
        key = (target, catalog)
        if key not in self._estimators:
            self._estimators[key] = ReplayEstimator(
                self.source(target, catalog),
                self.model or "",
                self.counter,
                query_marker=QUERY_MARKER,
                prefix_seen=self._prefix_seen,
                backend=self.backend,
                cache=self.cache,
                prices=self.prices,
            )
        return self._estimators[key]

    def basis(self) -> str:
        notes = {n for est in [self, *self._estimators.values()] for n in est._notes}
        if self.failure is not None and self.fallback is not None:
            return f"no captured template ({self.failure}); {self.fallback.basis()}"
        return "; ".join(
            [
                f"{len(self._estimators)} captured template(s), each counted once by "
                f"{counter_basis(self.counter)}",
                *([f"cache breakpoints: {self.breakpoints}"] if self.breakpoints else []),
                *sorted(notes),
            ]
        )

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        groups: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], list[TriggerRequest]] = {}
        for request in requests:
            groups.setdefault((request.target, request.catalog), []).append(request)
        total = TokenCounts()
        for (target, catalog), members in groups.items():
            try:
                estimator: Estimator = self._for(target, catalog)
            except Exception as exc:  # capture impossible here: estimate the plain harness
                if self.fallback is None:
                    raise
                self.failure = f"{type(exc).__name__}: {exc}"[:200]
                estimator = self.fallback
            total = total + estimator.trigger_calls(members)
        return total


def for_judge(judge: Any, estimator: Estimator, *, cache: CallCache | None = None) -> Estimator:
    """The estimator to use for `judge` (under any cache wrappers): a `TemplateEstimator` when
    the judge replays captured templates (it has `template_for(target, catalog)` returning an
    object with `body_for(query)`, and maybe `request_body(template, query)` for the body as
    sent), else `estimator` unchanged; the batch discount of `estimator` carries over."""
    info = describe(judge)
    if isinstance(estimator, AgentReplayEstimator):  # counts the agent's own request itself
        return estimator.attach(innermost(judge))
    if not info.replays_template or not estimator.model:
        return estimator

    def source(target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> dict[str, Any]:
        return sent_body(judge, target, catalog, QUERY_MARKER)

    counter = getattr(estimator, "counter", None)
    extra = info.harness is not None and bool(info.harness.cache_before_query)
    return TemplateEstimator(
        source,
        estimator.model,
        counter,
        backend=estimator.backend,
        cache=cache,
        fallback=estimator,
        breakpoints="Claude Code's + 1 before the query" if extra else "Claude Code's own",
        batch=bool(getattr(estimator, "batch", False)),
    )


class ClaudeCodeEstimator(_Priced):
    """The real CLI: one session per call, estimated from the cache's recorded sessions of this
    model (their usage and the CLI's own cost), else from `CLAUDE_CODE_SESSION_DEFAULT`."""

    reports_cost = True  # the CLI states each session's cost (`total_cost_usd`)

    def __init__(
        self,
        model: str | None = None,
        *,
        backend: str,
        cache: CallCache | None = None,
        prices: PriceTable | None = None,
        kind: str = "trigger",
        **_: Any,
    ) -> None:
        self.backend = backend
        self.model = model
        self.cache = cache
        self.prices = prices or load_prices()
        self.kind = kind
        samples = cache.usage_samples(backend, model, kind) if cache is not None else []
        self.samples = len(samples)
        self.per_session = mean_usage(samples) or CLAUDE_CODE_SESSION_DEFAULT
        costs = [float(s.get("cost_usd") or 0.0) for s in samples]
        self.session_cost = sum(costs) / len(costs) if costs and all(costs) else None

    def price_known(self) -> bool:
        return self.session_cost is not None or super().price_known()

    def basis(self) -> str:
        if self.samples:
            return f"per session: mean of {self.samples} cached {self.kind} sessions of this model"
        return (
            "per session: stated default (≈20,000 prompt tokens written to the cache, "
            f"{CLAUDE_CODE_SESSION_DEFAULT.output_tokens} output; no cached session of this model)"
        )

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        return self.per_session * len(requests)

    def text_call(self, request: TextRequest) -> TokenCounts:
        return self.per_session.model_copy()

    def dollars(self, tokens: TokenCounts, calls: int) -> Dollars:
        if self.session_cost is not None:
            return round(self.session_cost * calls, 6)
        return dollars_or_unknown(self.prices, self.model, tokens)


class AgentReplayEstimator(_MessagesApi):
    """A backend replaying another agent's captured request (`backends/replay/`). Each call is
    the request its judge sends: the captured template with the query (and the day) swapped
    (`judge.request_body`), counted once per skill set with an empty query, plus the query;
    tokens by the character estimate (each agent's own tokenizer is not at hand offline). The
    prompt cache is not modelled: every input token is priced as uncached input. Dollars come
    from the price table when the model has a price (opencode on a Claude model), else
    "unknown", never a guess. The judge (for its templates; a capture is a local CLI run, no
    model call) comes from `for_judge` (`attach`)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        backend: str,
        cache: CallCache | None = None,
        prices: PriceTable | None = None,
        **_: Any,
    ) -> None:
        from skillbench.backends.registry import agent_of

        agent = agent_of(backend)
        self.backend = backend
        self.model = model or getattr(agent, "default_model", None)
        self.cache = cache
        self.counter = CharTokenCounter()
        self.prices = prices or load_prices()
        self.judge: Any = None
        self._empty: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], int] = {}
        self._notes: list[str] = []

    def attach(self, judge: Any) -> AgentReplayEstimator:
        """Count the requests of `judge` (a `replay.judge.ReplayJudge`, cache wrappers removed)."""
        self.judge = judge
        return self

    def basis(self) -> str:
        return "; ".join(
            [
                f"the {self.backend} request as sent ({len(self._empty)} captured template(s)), "
                f"{counter_basis(self.counter)}; no prompt-cache discount",
                *self._notes,
            ]
        )

    def _template_chars(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> int:
        key = (target, catalog)
        if key not in self._empty:
            template = self.judge.template_for(target, catalog)
            body = self.judge.request_body(template, "")
            self._empty[key] = len(json.dumps(body, ensure_ascii=False))
        return self._empty[key]

    def text_call(self, request: TextRequest) -> TokenCounts:
        """A behavior run (`execute`) is a whole session of the agent's CLI: the mean usage of
        the sessions of this backend and model in the cache when it holds some (as the
        claude-code estimate), else the prompt counted as one request (a session's system
        prompt and tool turns are not known before one ran: said in the basis)."""
        if request.purpose == "execute":
            samples = (
                self.cache.usage_samples(self.backend, self.model, CACHE_KINDS["execute"])
                if self.cache is not None
                else []
            )
            mean = mean_usage(samples)
            if mean is not None:
                self._note(f"per {self.backend} session: mean of {len(samples)} cached sessions")
                return mean
            self._note(
                f"per {self.backend} session: the prompt only (no cached session of this model; "
                "its system prompt and tool turns not counted: an underestimate)"
            )
        return super().text_call(request)

    def _note(self, note: str) -> None:
        if note not in self._notes:
            self._notes.append(note)

    def trigger_calls(self, requests: Sequence[TriggerRequest]) -> TokenCounts:
        if not requests:
            return TokenCounts()
        if self.judge is None:
            raise InputError(
                f"the {self.backend} backend's request cannot be counted without its judge "
                "(its CLI: make agents)",
                path="--backend",
            )
        chars = 0
        for request in requests:
            query = json.dumps(request.query, ensure_ascii=False)[1:-1]  # as escaped in JSON
            chars += self._template_chars(request.target, request.catalog) + len(query)
        output = self.noted_output("trigger") * len(requests)
        return TokenCounts(input_tokens=math.ceil(chars / CHARS_PER_TOKEN), output_tokens=output)


# ---------------------------------------------------------------------------------------------
# Registry

EstimatorFactory = Callable[..., Estimator]

_KINDS: dict[str, EstimatorFactory] = {
    FREE: LocalEstimator,
    MESSAGES_API: AnthropicEstimator,
    AGENT_SESSION: ClaudeCodeEstimator,
    AGENT_REPLAY: AgentReplayEstimator,
}
"""The estimator of each `BackendSpec.estimator` kind skillbench ships."""
_registered: dict[str, EstimatorFactory] = {}


def register_estimator(backend_name: str, factory: EstimatorFactory) -> None:
    """Make `get_estimator(backend_name, ...)` call `factory(model=..., cache=..., **options)`."""
    _registered[backend_name.strip().lower()] = factory


def unregister_estimator(backend_name: str) -> None:
    """Forget a registered estimator."""
    _registered.pop(backend_name.strip().lower(), None)


def get_estimator(
    backend: str, *, model: str | None = None, cache: CallCache | None = None, **options: Any
) -> Estimator:
    """The estimator of a backend: one registered here (tests) first, else the one its spec
    names (a kind in `_KINDS`, or a plugin's factory); InputError naming --backend when there
    is none."""
    from skillbench.backends.registry import known_spec

    name = backend.strip().lower()
    factory = _registered.get(name)
    if factory is None:
        spec = known_spec(name)
        part = spec.estimator if spec is not None else None
        factory = _KINDS.get(part) if isinstance(part, str) else None
        if factory is not None:  # one estimator per kind, for every backend: it is told which
            options = {**options, "backend": spec.name if spec is not None else name}
        if factory is None and part is not None:
            factory = spec.load("estimator") if spec is not None else None
    if factory is None:
        raise InputError(
            f"no cost estimator for backend {backend!r} (register one with "
            "skillbench.cost.estimate.register_estimator)",
            path="--backend",
        )
    return factory(model=model, cache=cache, **options)


@dataclass
class Planned:
    """Calls of one (backend, model, purpose) line in a plan: made, served by the cache."""

    estimator: Estimator
    purpose: str
    calls: int = 0
    cache_hits: int = 0
    tokens: TokenCounts | None = None

    def add(self, tokens: TokenCounts, calls: int, hits: int = 0) -> None:
        """Fold in `calls` calls using `tokens` and `hits` free cache hits."""
        self.calls += calls
        self.cache_hits += hits
        self.tokens = tokens if self.tokens is None else self.tokens + tokens
