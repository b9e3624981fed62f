"""`ReplayJudge`: an agent's own captured request, query swapped, sent through its provider's
SDK; the outcome is the model's first move (`replay.move`).

A backend for one agent is a subclass naming its `Agent` (`agent = OPENCODE`), registered
through a `BackendSpec` (see `docs/agents.md`); Claude Code's (`anthropic.replay`) adds Message
Batches, prompt-cache priming and breakpoints, `--project` and `--cli-mode`. The base does the
rest for all: the identity and versions, the templates (captured once per skill set, stored
beside the call cache), the call cache's key (`request_fields`), the limiter and the whole-call
deadline (`deadline.within_deadline`: a neutral timeout, never one SDK's error), the outcome,
and what reports need (`harness_info`, `listing_info`). The call cache keys on the full
replayed request (path, kept headers and body as sent), so anything that changes what is sent —
the skill set, the CLI version, a setting, the day's date in the prompt — changes the key.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from importlib import metadata
from typing import Any, ClassVar, Literal

from skillbench.backends.base import CallUsage, SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.backends.deadline import within_deadline
from skillbench.backends.limiter import AdaptiveLimiter, RetryPolicy
from skillbench.backends.replay.agent import Agent
from skillbench.backends.replay.capture import cli_version
from skillbench.backends.replay.keys import request_hash
from skillbench.backends.replay.move import (
    DISABLED_SKILL,
    DRAIN_SECONDS,
    ERROR,
    OTHER_SKILL,
    OTHER_TOOL,
    TARGET,
    Move,
)
from skillbench.backends.replay.store import TemplateStore
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.backends.skill_install import CliSkill, cli_skills
from skillbench.errors import BackendError
from skillbench.limits import ROUTING_CALL_TIMEOUT
from skillbench.redaction import redact
from skillbench.schemas.trigger import HarnessInfo, ListingInfo

HARNESS = "agent-replay"
"""An agent's replay: not the anthropic backend's `replay`, whose reports read Claude Code's
listing by its own rules; reports ask these judges themselves (`harness_info`, `listing_info`)."""

SkillSet = tuple[SkillEntry, tuple[SkillEntry, ...]]


class ReplayJudge:
    """TriggerJudge replaying one agent's captured request (see the module docstring)."""

    agent: Agent
    """Whose request is replayed: a class attribute of each agent's judge (Claude Code's judge
    sets it per instance, with its project and CLI mode)."""
    name: str
    harness: ClassVar[str] = HARNESS
    listing_source: ClassVar[Literal["agent", "captured"]] = "agent"
    """Where reports read the listing: `agent`, from the judge (`listing_info`); `captured`,
    from the captured request by Claude Code's rules (`backends.describe`)."""
    failure_kind: ClassVar[str] = "api"
    """The `error_kind` of a call that failed (`session` for a judge running the CLI)."""
    serial_sends: ClassVar[bool] = False
    """Whether the client's request hook tells the limiter when each request is written."""
    is_proxy = False
    default_max_concurrency = 16
    default_timeout = ROUTING_CALL_TIMEOUT

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        binary: str | os.PathLike[str] | None = None,
        template_dir: str | os.PathLike[str] | None = None,
        max_concurrency: int | None = None,
        max_retries: int = 4,
        overload_retries: int | None = None,
        timeout: float | None = ROUTING_CALL_TIMEOUT,
        http_client: Any = None,
        stop_when_decided: bool = True,
        temperature: float | None = None,
        clock: Callable[[], datetime.date] = datetime.date.today,
        project: str | os.PathLike[str] | None = None,
        as_user: str | os.PathLike[str] | None = None,
    ) -> None:
        """`project` (`--project DIR`): capture as the CLI runs in that project; `as_user`
        (`--as-user [HOME]`): with that HOME's instruction files and skills (`context`)."""
        agent = self.agent
        if temperature is not None:
            raise BackendError(f"the {agent.name} replay sends the agent's own sampling settings")
        if project is not None or as_user is not None:
            from skillbench.backends.replay.context import read_project, read_user

            agent = self.agent = agent.with_views(
                read_project(project, agent) if project is not None else None,
                read_user(as_user, agent) if as_user is not None else None,
            )
        self.name = agent.name
        self.model: str | None = model or agent.default_model
        self._model = self.model
        self.binary = agent.locate(binary)  # the CLI first: without it nothing can run
        self._key = agent.api_key(api_key)
        self._base_url = base_url
        self._cli_version: str | None = None
        self.store = TemplateStore(template_dir, agent)
        self.settings = agent.settings()
        #: Today's date for the replayed request (local time, as the CLI's own date).
        self.clock = clock
        self.max_concurrency = max_concurrency or self.default_max_concurrency
        retries = {} if overload_retries is None else {"overload_retries": overload_retries}
        self.limiter = AdaptiveLimiter(
            self.max_concurrency,
            policy=RetryPolicy(max_retries=max_retries, **retries),
            serial_sends=self.serial_sends,
        )
        self.sleep = asyncio.sleep  # patched by tests to keep backoff instant
        self._timeout = timeout
        self._http_client = http_client
        self.stop_when_decided = stop_when_decided
        self.drain_seconds = DRAIN_SECONDS
        self._client: Any = None
        self._capture_lock: asyncio.Lock | None = None
        self.templates_used: dict[str, ReplayTemplate] = {}
        self._by_skill_set: dict[SkillSet, ReplayTemplate] = {}
        self._skill_sets: dict[SkillSet, tuple[CliSkill, ...]] = {}

    # -- identity -------------------------------------------------------------------------------

    def cli_version(self) -> str:
        """The capturing CLI's version (asked once)."""
        if self._cli_version is None:
            self._cli_version = cli_version(self.agent, self.binary)
        return self._cli_version

    def endpoint(self) -> str:
        """Where requests go, without credentials."""
        return self.agent.endpoint(self._base_url)

    def identity(self) -> dict[str, Any]:
        """Backend, harness, model, endpoint, CLI version and settings; the `--project` and
        `--as-user` views' keys when given."""
        found: dict[str, Any] = {
            "backend": self.name,
            "harness": self.harness,
            "model": self._model,
            "endpoint": self.endpoint(),
            "cli_version": self.cli_version(),
            "settings": dict(sorted(self.settings.items())),
            "outcome": "first-turn",
        }
        return {**found, **self.views()}

    def views(self) -> dict[str, str]:
        """The `--project` and `--as-user` views' keys (none without the options)."""
        found: dict[str, str] = {}
        if self.agent.project_view is not None:
            found["project_key"] = self.agent.project_view.key()
        if self.agent.user_view is not None:
            found["as_user_key"] = self.agent.user_view.key()
        return found

    def harness_label(self) -> str:
        """How outcomes and versions name the harness (`opencode agent-replay`)."""
        return f"{self.name} {self.harness}"

    def versions(self) -> dict[str, str]:
        """Harness, SDK, CLI and endpoint, for the report."""
        try:
            sdk = metadata.version(self.agent.sdk)
        except metadata.PackageNotFoundError:
            sdk = "not installed"
        return {
            "harness": self.harness_label(),
            self.agent.sdk: sdk,
            self.name: self.cli_version(),
            "endpoint": self.endpoint(),
            **self.view_labels(),
        }

    def view_labels(self) -> dict[str, str]:
        """For the report: the `--project` view (what it brought, and what the capture's copy
        left out or could not reproduce) and the `--as-user` view (what was taken from HOME,
        what was left out)."""
        labels: dict[str, str] = {}
        project, user = self.agent.project_view, self.agent.user_view
        differs = sorted({d for t in self.templates_used.values() for d in t.project_differs})
        if project is not None:
            labels["project"] = project.label(self.agent)
        if user is not None:
            labels["as_user"] = user.label()
        if differs and labels:
            labels["capture_differs"] = "; ".join(differs)
        return labels

    # -- templates ------------------------------------------------------------------------------

    async def template(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> ReplayTemplate:
        """The captured request for this skill set (captured once, then stored; a skill set
        already seen by this judge is answered without a lock or a thread hop)."""
        known = self._by_skill_set.get((target, catalog))
        if known is not None:
            return known
        if self._capture_lock is None:
            self._capture_lock = asyncio.Lock()
        version = self.cli_version()
        async with self._capture_lock:
            template = await asyncio.to_thread(
                self.store.get,
                self.binary,
                target,
                catalog,
                model=str(self._model),
                cli_version=version,
                settings=self.settings,
            )
        self.templates_used[template.key] = template
        self._by_skill_set[(target, catalog)] = template
        return template

    def template_for(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> ReplayTemplate:
        """Blocking form of `template` (reports written after a run)."""
        template = self.store.get(
            self.binary,
            target,
            catalog,
            model=str(self._model),
            cli_version=self.cli_version(),
            settings=self.settings,
        )
        self.templates_used[template.key] = template
        return template

    def known_template(
        self, target: SkillEntry, catalog: tuple[SkillEntry, ...]
    ) -> ReplayTemplate | None:
        """The template if this judge has it or it is stored (never captured)."""
        known = self._by_skill_set.get((target, catalog))
        if known is not None:
            return known
        return self.store.lookup(
            target,
            catalog,
            model=str(self._model),
            cli_version=self.cli_version(),
            settings=self.settings,
        )

    def request_body(self, template: ReplayTemplate, query: str) -> dict[str, Any]:
        """The body sent for `query` today (`clock`)."""
        return template.body_for(self.agent, query, self.clock())

    def sent_fields(self, template: ReplayTemplate, request: TriggerRequest) -> dict[str, Any]:
        """What identifies the request sent for `request` in the cache key: its hash as sent
        (path, kept headers, body)."""
        body = self.request_body(template, request.query)
        return {"request": request_hash(template.path, template.headers, body)}

    def request_fields(self, request: TriggerRequest) -> dict[str, Any] | None:
        """The cache key: the request as sent (`sent_fields`), the run index and the seed; None
        while the template is not captured."""
        template = self.known_template(request.target, request.catalog)
        if template is None:
            return None
        return {
            **self.sent_fields(template, request),
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

    # -- judging --------------------------------------------------------------------------------

    def http_client(self) -> Any:
        """The HTTP client the SDK client is built on (None: the SDK's own)."""
        return self._http_client

    @property
    def client(self) -> Any:
        """The provider SDK's client, created on first use (its own retries off)."""
        if self._client is None:
            self._client = self.agent.client(
                api_key=self._key,
                base_url=self._base_url,
                timeout=self._timeout,
                http_client=self.http_client(),
            )
        return self._client

    def _cli_skills(self, request: TriggerRequest) -> tuple[CliSkill, ...]:
        """The skill set as the CLI resolves skill calls (folder names, frontmatter names,
        disabled skills), read once per skill set."""
        key = (request.target, request.catalog)
        found = self._skill_sets.get(key)
        if found is None:
            found = self._skill_sets[key] = tuple(cli_skills(request.target, request.catalog))
        return found

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """One replayed call; failures become outcomes with `error` set (never a miss)."""
        start = time.perf_counter()
        try:
            template = await self.template(request.target, request.catalog)
        except BackendError as exc:
            return TriggerOutcome(
                triggered=False, error=f"capture: {exc}", detail={"error_kind": "capture"}
            )
        try:
            move = await self.send(template, request)
        except Exception as exc:  # SDK errors and transport failures alike
            return TriggerOutcome(
                triggered=False,
                error=redact(self.agent.describe_failure(exc), [self._key]),
                duration_seconds=time.perf_counter() - start,
                detail={"error_kind": self.failure_kind, "template": template.key},
            )
        return self.outcome(move, template, time.perf_counter() - start)

    async def send(self, template: ReplayTemplate, request: TriggerRequest) -> Move:
        """Send the request for `request` and read the reply's first move (`Agent.first_move`),
        within the limiter and the call's deadline (`limited`)."""
        body = self.request_body(template, request.query)
        skills = self._cli_skills(request)

        def call(deadline: float | None) -> Awaitable[Move]:
            return self.agent.first_move(
                self.client,
                template.path,
                template.headers,
                body,
                target=request.target.name,
                skills=skills,
                stop_when_decided=self.stop_when_decided,
                deadline=deadline,
                drain_seconds=self.drain_seconds,
            )

        return await self.limited(call)

    async def limited(
        self,
        call: Callable[[float | None], Awaitable[Move]],
        failed: Callable[[], None] | None = None,
    ) -> Move:
        """One call through the limiter (slot freed while waiting out a `retry-after` or a
        backoff), `call(deadline)` given the loop time the whole call, retries included, must
        end by (None: no timeout); past it `deadline.CallTimedOut`, a neutral error (never an
        SDK's). `failed()` is called when an attempt fails."""
        self.limiter.sleep = self.sleep
        timeout = self._timeout
        loop = asyncio.get_running_loop()
        deadline: float | None = None

        async def attempt() -> Move:
            nonlocal deadline
            try:
                if timeout is None:
                    return await call(None)
                deadline = deadline or loop.time() + timeout
                move: Move = await within_deadline(call(deadline), deadline, timeout)
                return move
            except BaseException:
                if failed is not None:
                    failed()
                raise

        return await self.limiter.run(attempt, self.agent.classify_failure)

    def outcome(
        self, move: Move, template: ReplayTemplate, seconds: float, *, batch: bool = False
    ) -> TriggerOutcome:
        """The TriggerOutcome of one first move (priced from the agent's table)."""
        usage = CallUsage.from_wire(move.usage)
        usage.cost_usd, cost_note = self.agent.price(str(self._model), usage, batch=batch)
        detail: dict[str, Any] = {
            "harness": self.harness_label(),
            "outcome": move.kind,
            "stop_reason": move.stop_reason,
            "template": template.key,
        }
        if move.closed_early:
            detail["stream_closed_when_decided"] = True
        if move.output_estimated:
            detail["output_tokens_estimated"] = "characters received / 4 (stream closed early)"
        if move.text:
            detail["text"] = move.text
        if cost_note:
            detail["cost_note"] = cost_note
        if move.kind == ERROR:
            return TriggerOutcome.broken(
                move.error_kind,
                move.stop_reason,
                usage=usage,
                duration_seconds=seconds,
                detail=detail,
            )
        if move.kind == OTHER_TOOL:
            detail["undecided_tool"] = move.tool
            if move.tool_input is not None:
                detail["tool_input"] = move.tool_input
        if move.kind == DISABLED_SKILL:  # the CLI refuses the call: the skill never runs
            detail["disabled_skill"] = move.fired
        return TriggerOutcome(
            triggered=move.kind == TARGET,
            fired=move.fired if move.kind in (TARGET, OTHER_SKILL) else None,
            usage=usage,
            duration_seconds=seconds,
            detail=detail,
            undecided=move.tool if move.kind == OTHER_TOOL else None,
        )

    # -- what reports need -------------------------------------------------------------------------

    def harness_info(self) -> HarnessInfo:
        """For the report: the agent's own request, not Claude Code's."""
        return HarnessInfo(
            name=f"{self.name} replay",
            claude_code_request=False,
            note=f"{self.agent.title}'s own first request, captured once per skill set and "
            f"replayed through the {self.agent.sdk} SDK with the query swapped",
        )

    def listing_info(
        self, target: SkillEntry, catalog: tuple[SkillEntry, ...]
    ) -> tuple[ListingInfo | None, str | None]:
        """How the target was listed in the agent's captured request (full, truncated, name
        only, absent); (None, why) when the request could not be captured or its listing is
        not the template's to say (`listing_source` `captured`)."""
        try:
            template = self.template_for(target, catalog)
        except BackendError as exc:
            why = f"LISTING: unknown: {self.agent.title}'s request could not be captured ({exc})"
            return None, redact(why)
        if not template.listing:
            return None, f"LISTING: read from {self.agent.title}'s request by its own rules"
        view = template.view()
        seen = view.visibility(target.name, target.description)
        shown = view.shown.get(target.name)
        return (
            ListingInfo(
                target="truncated" if seen == "shortened" else seen,
                budget_chars=view.budget,
                budget_source="captured" if view.budget is not None else None,
                listing_chars=view.chars,
                listed_full=sum(1 for d in view.shown.values() if d is not None),
                listed_name_only=sum(1 for d in view.shown.values() if d is None),
                source="captured-request",
                shown=None if shown is None else f"{target.name}: {shown}",
            ),
            None,
        )

    async def aclose(self) -> None:
        """Close the SDK client."""
        client, self._client = self._client, None
        if client is not None:
            closer = getattr(client, "close", None) or getattr(client, "aclose", None)
            if closer is not None:
                result = closer()
                if asyncio.iscoroutine(result):
                    await result
