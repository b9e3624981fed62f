"""The per-case `environment` block of `evals/evals.json`: the world a hermetic run sees.

```json
"environment": {
  "network": "api-only",
  "fakes": {"gh": [{"match": "^pr create", "stdout": "https://github.com/o/r/pull/7"},
                   {"match": "^repo delete", "refuse": "destructive"}]},
  "mcp": {"linear": {"tools": [{"name": "create_issue", "responses": [{"result": {"id": "L-1"}}]}]}},
  "git": {"remotes": "local-bare"},
  "answers": [{"when": "which repo", "say": "the public one"}]
}
```

The block is optional and unknown to skill-creator, whose dialect models keep unknown keys.
A fake routes on a regex searched in its arguments joined by spaces; the first matching route
answers; an unmatched call is refused (exit 127), so no real binary runs behind a fake. A
scripted answer's `when` is a regex searched (any case) in the agent's question.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from skillbench.documents import validate_part

__all__ = [
    "NETWORK_MODES",
    "Answer",
    "Environment",
    "FakeReply",
    "McpServer",
    "McpTool",
    "Route",
    "ScriptedAnswer",
    "parse_environment",
]

NetworkMode = Literal["none", "api-only", "allow"]
NETWORK_MODES: tuple[str, ...] = ("none", "api-only", "allow")
#: The mode of a case with an environment block that names none.
DEFAULT_NETWORK: NetworkMode = "api-only"
_COMMAND = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
_SERVER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def _regex(value: str) -> str:
    """`value` when it compiles as a regular expression; ValueError saying why otherwise."""
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a regular expression: {exc}") from None
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FakeReply(_Strict):
    """One answer of a fake command."""

    stdout: str = ""
    stderr: str = ""
    exit: int = Field(default=0, ge=0, le=255)


class Route(FakeReply):
    """A regex over the arguments, and what the fake answers when it matches: its own reply,
    a list of `answers` (one per call, the last repeated), or a refusal (`refuse`: the reason;
    exit 126 unless `exit` says otherwise, logged as refused)."""

    match: str
    answers: list[FakeReply] | None = None
    refuse: str | None = None

    @field_validator("match")
    @classmethod
    def _compiles(cls, value: str) -> str:
        return _regex(value)


class McpTool(_Strict):
    """A tool of a fake MCP server: its answers, one per call (the last repeated)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str = ""
    responses: list[dict[str, Any]] = Field(default_factory=lambda: [{"result": {}}])


class McpServer(_Strict):
    """A fake stdio MCP server."""

    tools: list[McpTool]


class GitSpec(_Strict):
    """`remotes: local-bare` rewrites every remote URL to one local bare repository."""

    remotes: Literal["local-bare"] = "local-bare"
    repos: list[str] = Field(default_factory=list, description="URLs given a bare repository")
    name: str = "skillbench"
    email: str = "skillbench@example.invalid"


class ScriptedAnswer(_Strict):
    """An answer to an agent's question: `say` when the regex `when` is found in the question
    (any case): an `AskUserQuestion` question, or the reply a turn ended with."""

    when: str = Field(min_length=1)
    say: str = Field(min_length=1)

    @field_validator("when")
    @classmethod
    def _compiles(cls, value: str) -> str:
        return _regex(value)


Answer = ScriptedAnswer


class Environment(_Strict):
    """The world of one case's runs."""

    network: NetworkMode = DEFAULT_NETWORK
    fakes: dict[str, list[Route]] = Field(default_factory=dict)
    mcp: dict[str, McpServer] = Field(default_factory=dict)
    git: GitSpec | None = None
    answers: list[ScriptedAnswer] = Field(default_factory=list)

    @field_validator("fakes")
    @classmethod
    def _command_names(cls, value: dict[str, list[Route]]) -> dict[str, list[Route]]:
        for name in value:
            if not _COMMAND.match(name):
                raise ValueError(f"not a command name: {name!r}")
        return value

    @field_validator("mcp")
    @classmethod
    def _server_names(cls, value: dict[str, McpServer]) -> dict[str, McpServer]:
        for name in value:
            if not _SERVER.match(name):
                raise ValueError(f"not an MCP server name: {name!r}")
        return value

    def confined(self) -> bool:
        """True when the network is confined (a namespace: `none` or `api-only`)."""
        return self.network != "allow"


def parse_environment(
    raw: Any, *, path: str | Path | None = None, field: str = "environment"
) -> Environment:
    """Validate a raw `environment` block; InputError names the file and the JSON path."""
    return validate_part(Environment, raw, path=path, field=field, rule="environment")
