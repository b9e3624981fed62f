"""One captured request, normalised, with the sentinel where the query goes: the template every
agent's replay stores (`ReplayTemplate`) and turns into each query's body (`body_for`).

One model for every agent: the common fields, `listing` (what the model sees of the skills, for
the agents whose listing the template holds) and Claude Code's own (`project_differs`,
`listing_budget`, `listing_chars`, `cli_mode`). Files written before the model was shared load
unchanged: Claude Code's had no `agent` (it is the default) nor `listing`, the other agents'
none of Claude Code's fields.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, overload

from pydantic import BaseModel, Field, PrivateAttr

from skillbench.backends.replay.agent import Agent, Listing

DEFAULT_AGENT = "claude-code"
"""The agent of a template that names none: Claude Code's were stored before the field."""


def _format_of(data: dict[str, Any]) -> int:
    return Agent.named(str(data.get("agent") or DEFAULT_AGENT)).template_format


class ReplayTemplate(BaseModel):
    """One agent's captured request, normalised, with the sentinel where the query goes."""

    agent: str = Field(default=DEFAULT_AGENT, description="the agent that sent it (`Agent.name`)")
    format: int = Field(
        default_factory=_format_of, description="the agent's template format when captured"
    )
    key: str
    model: str
    cli_version: str
    path: str = Field(description="request path the CLI used, e.g. /v1/messages?beta=true")
    headers: dict[str, str] = Field(description="the agent's kept headers only")
    body: dict[str, Any]
    settings: dict[str, str] = Field(default_factory=dict)
    skills: list[str] = Field(default_factory=list, description="skill folders installed")
    listing: dict[str, Any] = Field(
        default_factory=dict,
        description="what the model sees of the skills (`Listing`); empty when the agent's "
        "listing is read from the body by its own rules (Claude Code)",
    )
    project_differs: list[str] = Field(
        default_factory=list,
        description="what of the --project view could not be reproduced (git status / git log)",
    )
    listing_budget: int | None = Field(
        default=None,
        description="the skill listing budget the CLI itself logged (Claude Code, only when "
        "the listing exceeded it; None when everything fit)",
    )
    listing_chars: int | None = Field(
        default=None, description="the listing's size by the CLI's own count, when it logged it"
    )
    cli_mode: str = Field(
        default="print",
        description="how the CLI ran for the capture: `print` (`claude -p`) or `interactive` "
        "(in a pty, as users type into it)",
    )

    _sentinel_at: list[tuple[str | int, ...]] | None = PrivateAttr(default=None)
    _derived_at: list[tuple[str | int, ...]] | None = PrivateAttr(default=None)

    def owner(self) -> Agent:
        """The agent whose rules this template is read by (`Agent.named`)."""
        return Agent.named(self.agent)

    def view(self) -> Listing:
        """The listing as captured."""
        data = self.listing or {}
        return Listing(
            shown=dict(data.get("shown") or {}),
            chars=int(data.get("chars") or 0),
            budget=data.get("budget"),
        )

    def content_hash(self) -> str:
        """SHA-256 of the headers and body (Claude Code's cache fields: `request_fields`)."""
        blob = json.dumps({"h": self.headers, "b": self.body}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def betas(self) -> list[str]:
        """The `anthropic-beta` flags of a Messages API agent's kept headers (`beta_flags`)."""
        return beta_flags(self.headers)

    def sentinel_count(self) -> int:
        """How many times the body holds the sentinel (1 for a well-formed capture)."""
        return json.dumps(self.body, ensure_ascii=False).count(self.owner().sentinel)

    @overload
    def body_for(self, query: str, today: datetime.date | None = None, /) -> dict[str, Any]: ...

    @overload
    def body_for(
        self, agent: Agent, query: str, today: datetime.date | None = None, /
    ) -> dict[str, Any]: ...

    def body_for(self, *given: Any) -> dict[str, Any]:
        """The body the agent would send for `query` on `today`: the string holding the
        sentinel with `query` in its place (`Agent.swap_query`; only string values are touched,
        so quotes or backslashes in the query cannot break the document) and what the CLI
        derives from the query or the day set for them (`Agent.swap_derived`: the date texts
        when `today` is given, Claude Code's billing suffix always). The agent's rules are
        `agent`'s when given first, else the template's own (`owner`).

        Only the containers on the way to the edited strings are copied; the rest (tools,
        system prompt: ~100 kB) is shared with the template, so the result is read-only below
        its top level."""
        agent, query, today = _arguments(self, given)
        if self._sentinel_at is None:
            self._sentinel_at = _paths_where(self.body, lambda text: agent.sentinel in text)
        if self._derived_at is None:
            self._derived_at = _paths_where(self.body, agent.derived)
        root = dict(self.body)
        for path in self._sentinel_at:
            _edit(root, path, lambda text: agent.swap_query(text, query))
        for path in self._derived_at:
            _edit(root, path, lambda text: agent.swap_derived(text, query, today))
        return root

    def forget_paths(self) -> None:
        """Find the sentinel and the derived texts again (after the body was replaced)."""
        self._sentinel_at = None
        self._derived_at = None


def beta_flags(headers: Mapping[str, str]) -> list[str]:
    """The `anthropic-beta` flags of captured headers, in the CLI's order."""
    raw = headers.get("anthropic-beta", "")
    return [flag.strip() for flag in raw.split(",") if flag.strip()]


def _arguments(
    template: ReplayTemplate, given: tuple[Any, ...]
) -> tuple[Agent, str, datetime.date | None]:
    """(agent, query, today) of `body_for`'s two forms."""
    if given and isinstance(given[0], Agent):
        agent, rest = given[0], given[1:]
    else:
        agent, rest = template.owner(), given
    if not 1 <= len(rest) <= 2 or not isinstance(rest[0], str):
        raise TypeError("body_for([agent,] query[, today])")
    today = rest[1] if len(rest) == 2 else None
    return agent, rest[0], today


def _paths_where(value: Any, test: Callable[[str], bool]) -> list[tuple[str | int, ...]]:
    """The paths (keys and indices) to every string of `value` that passes `test`."""
    found: list[tuple[str | int, ...]] = []

    def walk(item: Any, path: tuple[str | int, ...]) -> None:
        if isinstance(item, str):
            if test(item):
                found.append(path)
        elif isinstance(item, list):
            for index, child in enumerate(item):
                walk(child, (*path, index))
        elif isinstance(item, dict):
            for key, child in item.items():
                walk(child, (*path, key))

    walk(value, ())
    return found


def _edit(root: dict[str, Any], path: tuple[str | int, ...], change: Callable[[str], str]) -> None:
    """Apply `change` to the string at `path` of `root`, copying the containers on the way
    (so whatever `root` shares with a template stays untouched)."""
    node: Any = root
    for step in path[:-1]:
        child = node[step]
        node[step] = child = list(child) if isinstance(child, list) else dict(child)
        node = child
    node[path[-1]] = change(node[path[-1]])
