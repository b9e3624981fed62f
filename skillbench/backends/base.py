"""Protocols at the extension points, and the plain data that crosses them.

A backend is chosen by name (`local`, `anthropic`, `claude-code`). The trigger eval only sees a
`TriggerJudge`; the improvement loop a `TextModel`; behavior evals an `Executor` and a `TextModel`.
Every call goes through the SQLite call cache (`skillbench.backends.cache`), keyed by
`cache_key()` of what the backend sends: a judge's `request_fields(request)` when it has one
(the local, lexical and minimal-harness judges send each skill's name and description, the replay
harness its captured template), else `TriggerRequest.cache_fields()` (everything, the skill
folder's content hash included: the claude-code backend installs whole folders).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

from skillbench.errors import BackendError
from skillbench.schemas.cost import TOKEN_KINDS, TokenCounts


@dataclass(frozen=True)
class SkillEntry:
    """A skill as the model sees it before it fires: name and description (and, for the CLI
    harness, the body that gets installed as `.claude/skills/<name>/SKILL.md`).

    `folder`, when known, is the skill's folder on disk: the CLI harness installs it whole
    (full frontmatter, scripts, references) with only the description replaced.
    `content_hash` (`skillbench.skill.Skill.content_hash`) stands for the folder's content in
    cache keys; the folder's path never enters one."""

    name: str
    description: str
    body: str = ""
    folder: str | None = None
    content_hash: str | None = None
    root: str | None = None
    """The library `folder` was loaded from (its SKILL.md may link anywhere inside it: see
    `skillbench.skill.link_root`); None: the default root. Never in a cache key."""

    def cache_fields(self) -> dict[str, Any]:
        """What about the entry determines an answer (no path; unset extras left out, so keys
        of entries built without a folder are unchanged)."""
        fields: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "body": self.body,
        }
        if self.content_hash is not None:
            fields["content_hash"] = self.content_hash
        return fields

    def listing_fields(self) -> dict[str, Any]:
        """What a skill listing shows of the entry: its name and description (what the local,
        lexical and minimal-harness judges send; their keys ignore the body and the folder)."""
        return {"name": self.name, "description": self.description}


@dataclass(frozen=True)
class TriggerRequest:
    """One run of one query: does the model pick `target` among `target` + `catalog`?"""

    target: SkillEntry
    catalog: tuple[SkillEntry, ...]
    query: str
    run_index: int
    seed: int = 0

    def cache_fields(self) -> dict[str, Any]:
        """Everything about the request that may determine the answer (the run index included,
        so repeated runs are resampled rather than replayed): the key of a judge without its
        own `request_fields`."""
        return trigger_fields(self, SkillEntry.cache_fields)


EntryFields = Callable[[SkillEntry], dict[str, Any]]
_catalog_digests: dict[tuple[int, EntryFields], tuple[tuple[SkillEntry, ...], str]] = {}


def catalog_digest(catalog: tuple[SkillEntry, ...], entry_fields: EntryFields) -> str:
    """SHA-256 of `entry_fields` of every catalog entry, computed once per catalog tuple (every
    run of an eval shares one), so a key costs the same with 20,000 catalog skills as with 2."""
    memo = _catalog_digests.get((id(catalog), entry_fields))
    if memo is not None and memo[0] is catalog:
        return memo[1]
    blob = json.dumps(
        [entry_fields(s) for s in catalog], sort_keys=True, ensure_ascii=False
    ).encode("utf-8")
    digest = hashlib.sha256(blob).hexdigest()
    if len(_catalog_digests) >= 64:
        _catalog_digests.clear()
    _catalog_digests[(id(catalog), entry_fields)] = (catalog, digest)
    return digest


def trigger_fields(request: TriggerRequest, entry_fields: EntryFields) -> dict[str, Any]:
    """The key fields of a trigger request whose skills are sent as `entry_fields`: the target,
    the catalog (as one digest), the query, the run index and the seed."""
    return {
        "target": entry_fields(request.target),
        "catalog": catalog_digest(request.catalog, entry_fields),
        "query": request.query,
        "run_index": request.run_index,
        "seed": request.seed,
    }


def listing_request_fields(request: TriggerRequest) -> dict[str, Any]:
    """The key fields of a judge that sends each skill's name and description only."""
    return trigger_fields(request, SkillEntry.listing_fields)


class CallUsage(TokenCounts):
    """Usage of one model call (or CLI session): the token counts and what it cost in USD.

    The one token type (`schemas.cost.TokenCounts`) lives below the backends, which produce it;
    this adds only the call's dollars (priced by `schemas.prices`, or stated by the CLI)."""

    cost_usd: float = 0.0

    def __init__(
        self,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_input_tokens: int = 0,
        cache_creation_input_tokens: int = 0,
        cost_usd: float = 0.0,
    ) -> None:
        """Positional in the API's order (input, output, cache reads, cache writes), as before."""
        super().__init__(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_read_input_tokens=cache_read_input_tokens,
            cache_creation_input_tokens=cache_creation_input_tokens,
            cost_usd=cost_usd,
        )

    def add(self, other: CallUsage) -> None:
        """Accumulate another call's usage into this one."""
        for kind in TOKEN_KINDS:
            setattr(self, kind, getattr(self, kind) + getattr(other, kind))
        self.cost_usd += other.cost_usd

    def __sub__(self, other: TokenCounts) -> CallUsage:
        """What `self` holds beyond `other`, dollars included."""
        return CallUsage(
            **(self.tokens - other.tokens).model_dump(),
            cost_usd=self.cost_usd - getattr(other, "cost_usd", 0.0),
        )


_ZERO_USAGE: tuple[dict[str, Any], dict[str, Any]] | None = None


def _usage_dump(usage: CallUsage) -> dict[str, Any]:
    """`usage.model_dump()`; for the zero usage of a free call (every proxy run: 90,000 in a
    library of 10,000 skills) a copy of the one dump made before, the same dict."""
    global _ZERO_USAGE
    if _ZERO_USAGE is None:
        zero = CallUsage()
        _ZERO_USAGE = (dict(zero.__dict__), zero.model_dump())
    fields, dump = _ZERO_USAGE
    if (
        type(usage) is CallUsage
        and not usage.__pydantic_extra__
        and len(usage.__dict__) == len(fields)
        and all(
            type(value := usage.__dict__.get(name)) is type(zero) and value == zero
            for name, zero in fields.items()
        )
    ):
        return dict(dump)
    return usage.model_dump()


@dataclass
class TriggerOutcome:
    """What happened in one run.

    `error` is set when the run did not complete (timeout, crash, API error): such a run is
    never "not triggered". `fired` names the skill that fired (the target, another catalog
    skill, or None when no skill fired). `undecided` names the tool the model called first when
    it was not `Skill` (replay harness): such a run is neither a trigger nor a miss.
    """

    triggered: bool
    fired: str | None = None
    error: str | None = None
    undecided: str | None = None
    usage: CallUsage = field(default_factory=CallUsage)
    duration_seconds: float = 0.0
    cached: bool = False
    detail: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def broken(
        cls,
        kind: str | None,
        stop_reason: object,
        *,
        usage: CallUsage,
        duration_seconds: float,
        detail: dict[str, Any],
    ) -> TriggerOutcome:
        """A run whose answer was broken (empty, cut at max_tokens, refused, …): an error of
        kind `kind` (also `detail["error_kind"]`), never a miss."""
        detail["error_kind"] = kind
        return cls(
            triggered=False,
            error=f"{kind}: broken answer (stop_reason={stop_reason})",
            usage=usage,
            duration_seconds=duration_seconds,
            detail=detail,
        )

    def to_cache(self) -> dict[str, Any]:
        """Serialisable form for the call cache (errors are never cached). Built field by field:
        `asdict` deep-copied the usage model only to have it replaced (a third of a cached
        offline call's time)."""
        return {
            "triggered": self.triggered,
            "fired": self.fired,
            "error": self.error,
            "undecided": self.undecided,
            "usage": _usage_dump(self.usage),
            "duration_seconds": self.duration_seconds,
            "detail": copy.deepcopy(self.detail),
        }

    @classmethod
    def from_cache(cls, data: dict[str, Any]) -> TriggerOutcome:
        """Rebuild from the call cache, marking the outcome as a cache hit."""
        usage = CallUsage(**data.get("usage", {}))
        return cls(
            triggered=bool(data["triggered"]),
            fired=data.get("fired"),
            error=data.get("error"),
            undecided=data.get("undecided"),
            usage=usage,
            duration_seconds=float(data.get("duration_seconds", 0.0)),
            cached=True,
            detail=dict(data.get("detail", {})),
        )


@runtime_checkable
class TriggerJudge(Protocol):
    """Decides, for one run of one query, which skill (if any) the model invokes."""

    name: str
    model: str | None
    is_proxy: bool

    def identity(self) -> dict[str, Any]:
        """Backend name, model and settings that change answers (part of every cache key)."""
        ...

    def versions(self) -> dict[str, str]:
        """Versions of the harness (SDK, CLI, embedding model) for the report."""
        ...

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """Run the request once. Must not raise for model-side failures: return an outcome
        with `error` set instead."""
        ...

    async def aclose(self) -> None:
        """Release clients, processes and temporary folders."""
        ...


@dataclass(frozen=True)
class TextRequest:
    """A prompt for a text model (improver, grader, comparator, analyzer)."""

    prompt: str
    system: str = ""
    max_tokens: int = 2048
    temperature: float | None = None
    purpose: str = "text"
    run_index: int = 0
    repeat: int = 0
    """Which repeated asking of the same request this is (`grade --repeats`): 0 is the first
    and is keyed without it, so caches written before repeats existed stay valid."""

    def cache_fields(self) -> dict[str, Any]:
        """Everything that determines the answer (`repeat` only when it is not 0)."""
        fields = asdict(self)
        if not self.repeat:
            del fields["repeat"]
        return fields


@dataclass
class TextResponse:
    """A text model's reply."""

    text: str
    usage: CallUsage = field(default_factory=CallUsage)
    cached: bool = False
    parsed: dict[str, Any] | None = None


@runtime_checkable
class TextModel(Protocol):
    """Answers prompts with text, or with an object matching a JSON schema."""

    name: str
    model: str | None

    def identity(self) -> dict[str, Any]:
        """Backend name, model and answer-changing settings (part of every cache key)."""
        ...

    async def complete(self, request: TextRequest) -> TextResponse:
        """Return the model's text reply. Raises BackendError when the call cannot be made."""
        ...

    async def aclose(self) -> None:
        """Release clients."""
        ...


class PaidReplyError(BackendError):
    """A call was made (and paid) but its reply was unusable: `usage` is what it cost, so a
    meter counts the call although no response came back."""

    def __init__(self, message: str, usage: CallUsage) -> None:
        super().__init__(message)
        self.usage = usage


def reply_problem(exc: Exception) -> str:
    """What was wrong with a structured reply, in one line: `not valid JSON: <why>` or the first
    field that failed (`judgements.0.score: Input should be …`); the reply itself left out."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    if first["type"] == "json_invalid":
        return f"not valid JSON: {(first.get('ctx') or {}).get('error') or first['msg']}"
    where = ".".join(str(p) for p in first["loc"]) or "<root>"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first['msg']}{more}"


def cache_key(identity: dict[str, Any], fields: dict[str, Any]) -> str:
    """A stable SHA-256 over the backend identity and the request fields."""
    blob = json.dumps({"identity": identity, "request": fields}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def public_endpoint(url: str | None) -> str | None:
    """A base URL without credentials, query or fragment, for cache identities and reports.

    Answers from a local mock or proxy must never be served later as the real API's: the
    endpoint is part of every API backend's identity, hence of every cache key.
    """
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"


async def judge_all(judge: Any, requests: Sequence[TriggerRequest]) -> list[TriggerOutcome]:
    """Every request's outcome: through the judge's `judge_many` when it has one (one embedding
    batch, one Message Batch), else one `judge` call after another. Wrappers (cache, meter)
    pass their misses on with this, so they never probe the judge they wrap."""
    if not requests:
        return []
    many = getattr(judge, "judge_many", None)
    if many is not None:
        return list(await many(list(requests)))
    return [await judge.judge(request) for request in requests]
