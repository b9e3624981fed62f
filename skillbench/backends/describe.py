"""What reports need to know of a judge, asked in one place.

A judge declares what its reports need (`describe`): its harness, where its skill listing is
known from (`ListingSource`), how its runs are best sent (`batch`, `whole_waves`,
`self_limited`), its version and the Claude model whose listing budget applies. The question
packages read this `JudgeInfo` and never probe a judge's attributes themselves: a judge that
describes itself (`harness_info()`, `listing_info()`: the agent replays, the codex session) is
asked, and the cache, meter and placement wrappers are looked through here (`innermost`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from skillbench.backends.base import SkillEntry
from skillbench.schemas.trigger import HarnessInfo, ListingInfo

if TYPE_CHECKING:
    from skillbench.backends.user_config import UserConfig

ListingSource = Literal["captured", "agent", "rule", "full", "proxy", "none"]
"""Where the report's listing comes from: `captured` (Claude Code's own request, captured by
the replay: `captured_request`), `agent` (another agent's own request, read by the judge:
`agent_listing`), `rule` (the real Claude Code CLI: Claude Code's listing rule), `full` (the
minimal harness shows every description in full), `proxy` (an offline proxy), `none`."""

MINIMAL_NOTE = (
    "harness 'minimal': skillbench's imitation of Claude Code's routing prompt, NOT Claude Code's "
    "request (system prompt, tools, skill listing, thinking and limits differ); use the default "
    "replay harness for rates that mean Claude Code"
)
CACHE_BEFORE_QUERY_NOTE = (
    "--cache-before-query: one prompt-cache breakpoint added before the query, so the skill "
    "listing is read from the cache instead of rewritten for every query; the model saw Claude "
    "Code's own tokens, only the request's caching hint differs"
)


@dataclass(frozen=True)
class CapturedRequest:
    """Claude Code's captured request as a report reads it: the body, the settings the CLI ran
    with and the listing budget it logged."""

    body: dict[str, Any]
    settings: Mapping[str, str] = field(default_factory=dict)
    listing_budget: int | None = None


@dataclass(frozen=True)
class ClaudeCli:
    """The Claude Code CLI a judge runs or captures with: what its listing rules are read from
    (`anthropic.listing_calibration.rules_for_judge`)."""

    claude_bin: str
    cli_mode: str = "print"
    settings: Mapping[str, str] = field(default_factory=dict)
    template_dir: str | None = None  # the replay templates' folder (the rules are kept beside)


@dataclass(frozen=True)
class JudgeInfo:
    """A judge as its reports see it."""

    name: str
    model: str | None
    is_proxy: bool
    harness: HarnessInfo | None
    listing: ListingSource
    listing_model: str | None  # the Claude model whose listing budget applies (None: default)
    listing_env: Mapping[str, str]  # settings the judge's runs see (listing budget variables)
    agent_title: str | None  # another agent's title, when the judge replays its request
    batch: bool  # runs go as a Message Batch: awaited whole, no per-run timeout
    whole_waves: bool  # a whole wave goes to `judge_many` at once (batch or offline proxy)
    self_limited: bool  # the judge queues its own calls (a limiter): give it every run
    max_concurrency: int | None
    notes: tuple[str, ...]  # what a run should tell its reader (a forgotten batch id)
    escalated: int | None  # runs re-run through another backend (`--escalate`)
    replays_template: bool = False  # sends a captured template, query swapped (`sent_body`)
    claude_cli: ClaudeCli | None = None  # the Claude Code CLI it runs or captures with

    @property
    def harness_name(self) -> str | None:
        """The harness's name as reports and `--budget`'s refusal state it."""
        return self.harness.name if self.harness is not None else None

    @property
    def own_request(self) -> bool:
        """Whether the model was asked Claude Code's own request (replay, the real CLI)."""
        return self.harness is not None and self.harness.claude_code_request


def innermost(judge: object) -> Any:
    """The judge under any wrappers (cache, meter, placement), followed through ``inner``."""
    while getattr(judge, "inner", None) is not None:
        judge = judge.inner  # type: ignore[attr-defined]
    return judge


def describe(judge: object) -> JudgeInfo:
    """What `judge` (wrappers looked through) declares for its reports."""
    inner = innermost(judge)
    is_proxy = bool(getattr(inner, "is_proxy", False))
    harness = _harness(inner, is_proxy)
    reported = getattr(inner, "reported_models", None) or [None]
    model = getattr(inner, "model", None)
    agent = getattr(inner, "agent", None)
    # the wrappers and the judge itself both take a whole wave
    many = callable(getattr(judge, "judge_many", None)) and callable(
        getattr(inner, "judge_many", None)
    )
    batch = bool(getattr(inner, "batch", False))
    workers = getattr(inner, "max_concurrency", None)
    escalated = getattr(judge, "escalated", None)
    listing = _listing_source(inner, is_proxy)
    return JudgeInfo(
        name=str(getattr(judge, "name", type(judge).__name__)),
        model=getattr(judge, "model", None),
        is_proxy=is_proxy,
        harness=harness,
        listing=listing,
        listing_model=None if is_proxy else (model or reported[0]),
        listing_env=dict(getattr(inner, "extra_env", None) or {}),
        agent_title=getattr(agent, "title", None) if listing == "agent" else None,
        batch=batch,
        whole_waves=many and (is_proxy or batch),
        self_limited=getattr(inner, "limiter", None) is not None,
        max_concurrency=(
            workers
            if isinstance(workers, int) and not isinstance(workers, bool) and workers > 0
            else None
        ),
        notes=tuple(getattr(inner, "notes", None) or ()),
        escalated=escalated if isinstance(escalated, int) else None,
        replays_template=callable(getattr(inner, "template_for", None)),
        claude_cli=_claude_cli(inner, is_proxy),
    )


def _claude_cli(inner: Any, is_proxy: bool) -> ClaudeCli | None:
    """The Claude Code CLI of a judge whose listing is Claude Code's (replay, claude-code)."""
    claude_bin = getattr(inner, "claude_bin", None)
    if claude_bin is None or _listing_source(inner, is_proxy) not in ("captured", "rule"):
        return None
    settings = getattr(inner, "settings", None)
    own = getattr(inner, "request_settings", None)
    if not isinstance(settings, Mapping):
        settings = own() if callable(own) else {}
    store = getattr(inner, "store", None)
    folder = getattr(store, "folder", None) if store is not None else None
    return ClaudeCli(
        claude_bin=str(claude_bin),
        cli_mode=str(getattr(inner, "cli_mode", None) or "print"),
        settings=dict(settings),
        template_dir=str(folder) if folder is not None else None,
    )


def _harness(inner: Any, is_proxy: bool) -> HarnessInfo | None:
    """Whether the model was asked Claude Code's own request (replay, claude-code) or not; a
    judge that describes itself (`harness_info()`) is asked."""
    own = getattr(inner, "harness_info", None)
    if callable(own):
        described: HarnessInfo | None = own()
        return described
    harness = getattr(inner, "harness", None)
    name = str(getattr(inner, "name", ""))
    if harness == "replay":
        extra = bool(getattr(inner, "cache_before_query", False))
        return replay_harness(extra, str(getattr(inner, "cli_mode", "print")))
    if harness == "minimal":
        return HarnessInfo(name="minimal", claude_code_request=False, note=MINIMAL_NOTE)
    if _runs_sessions(inner):  # the real CLI: Claude Code's own request, by construction
        return HarnessInfo(
            name=name, claude_code_request=True, cli_mode=getattr(inner, "cli_mode", "print")
        )
    if is_proxy:
        return HarnessInfo(name=name or "proxy", claude_code_request=False)
    return None


def replay_harness(
    cache_before_query: bool, cli_mode: str, as_user: UserConfig | None = None
) -> HarnessInfo:
    """The `replay` harness: Claude Code's own request (captured with `cli_mode`, and in the
    user's configuration with `--as-user`), with the breakpoint `--cache-before-query` adds
    when on."""
    return HarnessInfo(
        name="replay",
        claude_code_request=True,
        note=CACHE_BEFORE_QUERY_NOTE if cache_before_query else None,
        cache_before_query=cache_before_query or None,
        cli_mode=cli_mode,
        as_user=as_user.summary() if as_user is not None else None,
        as_user_taken=as_user.lines() if as_user is not None else None,
    )


def _listing_source(inner: Any, is_proxy: bool) -> ListingSource:
    """Where the judge's listing is known from (see `ListingSource`): what the judge declares
    (`listing_source`: the replay family), else found from what it has."""
    declared = getattr(inner, "listing_source", None)
    if isinstance(declared, str) and declared in get_args(ListingSource):
        return cast(ListingSource, declared)
    if callable(getattr(inner, "listing_info", None)):
        return "agent"
    harness = getattr(inner, "harness", None)
    if harness == "replay":
        return "captured"
    if _runs_sessions(inner):
        return "rule"
    if harness == "minimal":
        return "full"
    return "proxy" if is_proxy else "none"


def _runs_sessions(inner: object) -> bool:
    """Whether the judge's backend runs whole sessions of the real CLI (its spec's `sessions`)."""
    from skillbench.backends.spec import all_specs

    spec = all_specs().get(str(getattr(inner, "name", "")))
    return spec is not None and spec.sessions


def captured_request(
    judge: object, target: SkillEntry, catalog: tuple[SkillEntry, ...]
) -> CapturedRequest:
    """Claude Code's request the replay judge sends for this skill set, captured if need be
    (raises what the capture raised)."""
    template = innermost(judge).template_for(target, catalog)
    return _as_captured(template)


def stored_request(
    judge: object, target: SkillEntry, catalog: tuple[SkillEntry, ...]
) -> CapturedRequest | None:
    """The replay judge's stored request for this skill set, None when none is stored (never
    captures)."""
    known = getattr(innermost(judge), "known_template", None)
    if describe(judge).listing != "captured" or not callable(known):
        return None
    template = known(target, catalog)
    return _as_captured(template) if template is not None else None


def _as_captured(template: Any) -> CapturedRequest:
    return CapturedRequest(
        body=template.body,
        settings=dict(getattr(template, "settings", None) or {}),
        listing_budget=getattr(template, "listing_budget", None),
    )


def sent_body(
    judge: object, target: SkillEntry, catalog: tuple[SkillEntry, ...], query: str
) -> dict[str, Any]:
    """The body a template-replaying judge sends for `query` (captured if need be): as sent,
    with the breakpoints the judge adds (`request_body`), else the template's own."""
    inner = innermost(judge)
    template = inner.template_for(target, catalog)
    request_body = getattr(inner, "request_body", None)
    if callable(request_body):
        sent: dict[str, Any] = request_body(template, query)
        return sent
    body: dict[str, Any] = template.body_for(query)
    return body


def agent_listing(
    judge: object, target: SkillEntry, catalog: tuple[SkillEntry, ...]
) -> tuple[ListingInfo | None, str | None]:
    """How an agent judge's own captured request listed the target; (None, why) when it could
    not be captured."""
    found: tuple[ListingInfo | None, str | None] = innermost(judge).listing_info(target, catalog)
    return found


def agent_view(judge: object, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> Any:
    """The listing an agent judge's captured request holds (`replay.agent.Listing`); raises
    what the capture raised."""
    return innermost(judge).template_for(target, catalog).view()


def warm_up(judge: object) -> None:
    """Whatever the judge prepares before its timed runs (e.g. the SDK import)."""
    prepare = getattr(innermost(judge), "warm_up", None)
    if callable(prepare):
        prepare()
