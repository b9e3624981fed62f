"""`AgentReplayJudge`: an agent's own captured request, query swapped, sent through its provider's
SDK; the outcome is the model's first move (`Agent.first_move`).

A backend for one agent is a subclass naming its `Agent` (`agent = OpencodeAgent()`), registered
through a `BackendSpec` (see `docs/agents.md`). The call cache keys on the full replayed request
(path, kept headers and body as sent: `request_fields`), so anything that changes what is sent
— the skill set, the CLI version, a setting, the day's date in the prompt — changes the key.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

from skillbench.backends.agents.agent import ERROR, OTHER_SKILL, OTHER_TOOL, TARGET, Agent, Move
from skillbench.backends.agents.capture import (
    AgentTemplate,
    AgentTemplateStore,
    cli_version,
    request_hash,
)
from skillbench.backends.base import SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.backends.deadline import within_deadline
from skillbench.backends.limiter import AdaptiveLimiter, RetryPolicy
from skillbench.backends.skill_install import CliSkill, cli_skills
from skillbench.errors import BackendError
from skillbench.limits import ROUTING_CALL_TIMEOUT
from skillbench.redaction import redact
from skillbench.schemas.trigger import HarnessInfo, ListingInfo

HARNESS = "agent-replay"
"""Not the anthropic backend's `replay`: reports ask the judge itself (`harness_info`,
`listing_info`), never read its request as Claude Code's."""


class AgentReplayJudge:
    """TriggerJudge replaying one agent's captured request (see the module docstring)."""

    agent: ClassVar[Agent]
    harness = HARNESS
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
        timeout: float | None = ROUTING_CALL_TIMEOUT,
        http_client: Any = None,
        stop_when_decided: bool = True,
        temperature: float | None = None,
        clock: Callable[[], datetime.date] = datetime.date.today,
    ) -> None:
        agent = self.agent
        if temperature is not None:
            raise BackendError(f"the {agent.name} replay sends the agent's own sampling settings")
        self.name = agent.name
        self.model: str | None = model or agent.default_model
        self._model = self.model
        self.binary = agent.locate(binary)  # the CLI first: without it nothing can run
        self._key = api_key or os.environ.get(agent.key_variable, "")
        if not self._key:
            raise BackendError(f"the {agent.name} backend needs {agent.key_variable} set")
        self._base_url = base_url
        self._cli_version: str | None = None
        self.store = AgentTemplateStore(agent, template_dir)
        self.settings = agent.settings()
        self.clock = clock
        self.max_concurrency = max_concurrency or self.default_max_concurrency
        self.limiter = AdaptiveLimiter(
            self.max_concurrency, policy=RetryPolicy(max_retries=max_retries)
        )
        self._timeout = timeout
        self._http_client = http_client
        self.stop_when_decided = stop_when_decided
        self._client: Any = None
        self._capture_lock: asyncio.Lock | None = None
        self.templates_used: dict[str, AgentTemplate] = {}
        self._by_skill_set: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], AgentTemplate] = {}
        self._skill_sets: dict[tuple[SkillEntry, tuple[SkillEntry, ...]], tuple[CliSkill, ...]] = {}

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
        """Backend, harness, model, endpoint, CLI version and settings."""
        return {
            "backend": self.name,
            "harness": HARNESS,
            "model": self._model,
            "endpoint": self.endpoint(),
            "cli_version": self.cli_version(),
            "settings": dict(sorted(self.settings.items())),
            "outcome": "first-turn",
        }

    def versions(self) -> dict[str, str]:
        """Harness, SDK, CLI and endpoint, for the report."""
        try:
            sdk = metadata.version(self.agent.sdk)
        except metadata.PackageNotFoundError:
            sdk = "not installed"
        return {
            "harness": f"{self.name} {HARNESS}",
            self.agent.sdk: sdk,
            self.name: self.cli_version(),
            "endpoint": self.endpoint(),
        }

    # -- templates ------------------------------------------------------------------------------

    async def template(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> AgentTemplate:
        """The captured request for this skill set (captured once, then stored)."""
        known = self._by_skill_set.get((target, catalog))
        if known is not None:
            return known
        if self._capture_lock is None:
            self._capture_lock = asyncio.Lock()
        version = self.cli_version()
        async with self._capture_lock:
            template = await asyncio.to_thread(
                self.store.agent_get,
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

    def template_for(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> AgentTemplate:
        """Blocking form of `template` (reports written after a run)."""
        template = self.store.agent_get(
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
    ) -> AgentTemplate | None:
        """The template if this judge has it or it is stored (never captured)."""
        known = self._by_skill_set.get((target, catalog))
        if known is not None:
            return known
        return self.store.agent_lookup(
            target,
            catalog,
            model=str(self._model),
            cli_version=self.cli_version(),
            settings=self.settings,
        )

    def request_body(self, template: AgentTemplate, query: str) -> dict[str, Any]:
        """The body sent for `query` today."""
        return template.body_for(self.agent, query, self.clock())

    def request_fields(self, request: TriggerRequest) -> dict[str, Any] | None:
        """The cache key: the full replayed request (path, headers, body as sent), the run
        index and the seed; None while the template is not captured."""
        template = self.known_template(request.target, request.catalog)
        if template is None:
            return None
        body = self.request_body(template, request.query)
        return {
            "request": request_hash(template.path, template.headers, body),
            "run_index": request.run_index,
            "seed": request.seed,
        }

    async def prepare_keys(self, requests: Sequence[TriggerRequest]) -> None:
        """Capture (or load) the template of every skill set among `requests`."""
        for skill_set in dict.fromkeys((r.target, r.catalog) for r in requests):
            try:
                await self.template(*skill_set)
            except BackendError:
                continue

    # -- judging --------------------------------------------------------------------------------

    @property
    def client(self) -> Any:
        """The provider SDK's client, created on first use (its own retries off)."""
        if self._client is None:
            self._client = self.agent.client(
                api_key=self._key,
                base_url=self._base_url,
                timeout=self._timeout,
                http_client=self._http_client,
            )
        return self._client

    def _cli_skills(self, request: TriggerRequest) -> tuple[CliSkill, ...]:
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
        body = self.request_body(template, request.query)
        skills = self._cli_skills(request)
        timeout = self._timeout
        loop = asyncio.get_running_loop()
        deadline: float | None = None

        async def attempt() -> Move:
            nonlocal deadline
            call = self.agent.first_move(
                self.client,
                template.path,
                template.headers,
                body,
                target=request.target.name,
                skills=skills,
                stop_when_decided=self.stop_when_decided,
            )
            if timeout is None:
                return await call
            deadline = deadline or loop.time() + timeout
            move: Move = await within_deadline(call, deadline, timeout)
            return move

        try:
            move = await self.limiter.run(attempt, self.agent.classify_failure)
        except Exception as exc:  # SDK errors and transport failures alike
            message = f"{type(exc).__name__}: {exc}"
            return TriggerOutcome(
                triggered=False,
                error=redact(message, [self._key]),
                duration_seconds=time.perf_counter() - start,
                detail={"error_kind": "api", "template": template.key},
            )
        return self.outcome(move, template, time.perf_counter() - start)

    def outcome(self, move: Move, template: AgentTemplate, seconds: float) -> TriggerOutcome:
        """The TriggerOutcome of one first move."""
        usage = move.usage
        usage.cost_usd, cost_note = self.agent.price(str(self._model), usage)
        detail: dict[str, Any] = {
            "harness": f"{self.name} {HARNESS}",
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
            detail["error_kind"] = move.error_kind
            return TriggerOutcome(
                triggered=False,
                error=f"{move.error_kind}: broken answer (stop_reason={move.stop_reason})",
                usage=usage,
                duration_seconds=seconds,
                detail=detail,
            )
        if move.kind == OTHER_TOOL:
            detail["undecided_tool"] = move.tool
        return TriggerOutcome(
            triggered=move.kind == TARGET,
            fired=move.fired if move.kind in (TARGET, OTHER_SKILL) else None,
            usage=usage,
            duration_seconds=seconds,
            detail=detail,
            undecided=move.tool if move.kind == OTHER_TOOL else None,
        )

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
        only, absent); (None, why) when the request could not be captured."""
        try:
            template = self.template_for(target, catalog)
        except BackendError as exc:
            why = f"LISTING: unknown: {self.agent.title}'s request could not be captured ({exc})"
            return None, redact(why)
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


def beside_cache(options: dict[str, Any], cache_path: Path) -> dict[str, Any]:
    """An agent backend's `BackendSpec.beside_cache`: its templates under `replay-templates/`
    beside the call cache in use (as Claude Code's), unless `template_dir` is given."""
    if "template_dir" in options:
        return options
    from skillbench.backends.anthropic.capture import templates_dir

    return {**options, "template_dir": templates_dir(cache_path)}
