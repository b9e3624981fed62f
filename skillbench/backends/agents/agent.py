"""What skillbench needs to know about one agent CLI to replay its first request (`Agent`), and
the plain data its replay produces (`Move`, `Listing`).

An agent plugs in by subclassing `Agent` (one sub-package per agent: `backends/opencode/`,
`backends/gemini/`, `backends/codex/`) and naming a judge class built on
`agents.judge.AgentReplayJudge` in its `BackendSpec` (see `docs/agents.md`). The shared ground
does the rest: the throwaway project and isolated HOME, the loopback capture server, the capture
run, normalising and storing the template, the sentinel swap, the call cache key (the full
replayed request), the limiter and the outcome.
"""

from __future__ import annotations

import datetime
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.base import CallUsage
from skillbench.backends.limiter import Failure
from skillbench.backends.skill_install import CliSkill
from skillbench.backends.spec import cli_install_hint
from skillbench.errors import BackendError

#: The query the capture sends; replaced by each eval query.
SENTINEL = "SKILLBENCH_AGENT_SENTINEL_QUERY_5c1e"
#: Where the throwaway capture folder is said to be in every stored template.
STABLE_ROOT = "/tmp/skillbench-agent"

#: First moves (`Move.kind`), as for the Claude replay (`anthropic.first_turn`).
TARGET = "target"
OTHER_SKILL = "other-skill"
OTHER_TOOL = "other-tool"
TEXT = "text"
ERROR = "error"
MOVES = (TARGET, OTHER_SKILL, OTHER_TOOL, TEXT, ERROR)


@dataclass
class Move:
    """The model's first move in one replayed reply.

    `kind`: `target` (the agent's skill mechanism invoked for the target), `other-skill` (for
    another skill, named in `fired`), `other-tool` (another tool first, named in `tool`:
    undecided, never a miss), `text` (an answer without a tool: no trigger), `error` (a broken
    answer; `error_kind` says which: `empty`, `max_tokens`, `refusal`, `malformed_tool_call`,
    `incomplete`, …)."""

    kind: str
    fired: str | None = None
    tool: str | None = None
    error_kind: str | None = None
    stop_reason: str | None = None
    text: str = ""
    usage: CallUsage = field(default_factory=CallUsage)
    closed_early: bool = False
    output_estimated: bool = False


@dataclass(frozen=True)
class Listing:
    """What the model sees of the skills in the captured request.

    `shown` maps every listed skill to the description as the agent listed it (None: listed by
    name only); a skill installed but absent from the listing is `absent`. `chars` is the
    listing's size in characters; `budget` the agent's own limit when it has one."""

    shown: dict[str, str | None]
    chars: int = 0
    budget: int | None = None

    def visibility(self, name: str, description: str) -> str:
        """`full`, `shortened` (listed with a cut description), `name-only` or `absent`."""
        if name not in self.shown:
            return "absent"
        seen = self.shown[name]
        if seen is None:
            return "name-only"
        return "full" if seen.strip() == description.strip() else "shortened"

    def as_dict(self) -> dict[str, Any]:
        """Plain form (stored in the template)."""
        return {"shown": dict(self.shown), "chars": self.chars, "budget": self.budget}


class Agent:
    """One agent CLI, as the replay needs it. Subclasses set the class attributes and override
    the methods marked *agent*; the defaults fit an agent whose request holds plain strings."""

    name: ClassVar[str]
    """The backend name (`opencode`, `gemini`, `codex`)."""
    title: ClassVar[str]
    """How reports name the agent (`opencode 1.18.33`)."""
    binary: ClassVar[str]
    """The executable under `.tools/node_modules/.bin/` (or on PATH)."""
    package: ClassVar[str]
    """The pinned npm package (`opencode-ai@1.18.33`): what `make agents` installs."""
    bin_variable: ClassVar[str]
    """The environment variable that names the executable (`SKILLBENCH_OPENCODE_BIN`)."""
    skills_dir: ClassVar[str] = ".agents/skills"
    """Where the capture installs the skill set, relative to the throwaway project."""
    default_model: ClassVar[str]
    key_variable: ClassVar[str]
    """The API key the replay sends with."""
    sdk: ClassVar[str]
    """The Python distribution of the provider's SDK (for `versions` and the install hint)."""
    kept_headers: ClassVar[tuple[str, ...]] = ()
    """Request headers kept in the template (never a key or a session id)."""
    request_settings: ClassVar[tuple[str, ...]] = ()
    """Environment variables passed to the capture that change the request (in the key)."""
    skill_tool: ClassVar[str | None] = None
    """The tool the model invokes a skill with (None: no skill tool, as Codex)."""

    # -- the CLI -------------------------------------------------------------------------------

    def locate(self, binary: str | os.PathLike[str] | None = None) -> Path:
        """The executable: `binary`, else `$<bin_variable>` (a named one is the only one tried),
        else `.tools/node_modules/.bin/` of the working directory or the checkout, else PATH;
        BackendError naming `make agents` otherwise."""
        named = binary or os.environ.get(self.bin_variable)
        candidates: list[str | os.PathLike[str] | None] = [named]
        if not named:  # a named binary is the only one tried
            checkout = Path(__file__).resolve().parents[3]
            for base in (Path.cwd(), checkout):
                candidates.append(base / ".tools" / "node_modules" / ".bin" / self.binary)
            candidates.append(shutil.which(self.binary))
        for candidate in candidates:
            if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
                return Path(candidate).absolute()
        raise BackendError(f"no {self.binary} CLI found: {self.install_hint()}")

    def install_hint(self) -> str:
        """What to run when the CLI is missing."""
        return cli_install_hint(
            self.package, self.binary, self.bin_variable, "agents", working_dir=True
        )

    def version_call(self, binary: Path) -> tuple[str, ...]:
        """*agent* argv printing the CLI's version."""
        return (str(binary), "--version")

    def capture_call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        """*agent* how to start one non-interactive run with `prompt` (on stdin: never argv)."""
        raise NotImplementedError

    def capture_env(self, home: Path, base_url: str, settings: Mapping[str, str]) -> dict[str, str]:
        """*agent* the CLI's environment: isolated `home`, a dummy key, `base_url` (the capture
        server) and `settings`; nothing that could reach another host. Agents start from
        `base_env`."""
        raise NotImplementedError

    @staticmethod
    def base_env(home: Path, source: Mapping[str, str] | None = None) -> dict[str, str]:
        """The caller's PATH, locale, terminal and temp folder only (no key, no proxy, no
        config variable), HOME and the XDG folders inside the isolated `home`."""
        environ = os.environ if source is None else source
        env = {k: v for k, v in environ.items() if k in _PASSED or k.startswith("LC_")}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            XDG_STATE_HOME=str(home / ".local" / "state"),
            XDG_CACHE_HOME=str(home / ".cache"),
        )
        return env

    def prepare(self, project: Path, home: Path, base_url: str, model: str) -> None:
        """*agent* write config files the capture needs (Codex: `config.toml`); none by
        default."""

    def settings(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The `request_settings` set in `environ` (default: the process environment)."""
        source = os.environ if environ is None else environ
        return {name: source[name] for name in self.request_settings if name in source}

    # -- the capture server --------------------------------------------------------------------

    def capture_reply(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """*agent* what the loopback server answers (status, content type, bytes): enough of the
        provider's API for the CLI to finish its run."""
        raise NotImplementedError

    def is_agent_request(self, path: str, body: dict[str, Any]) -> bool:
        """*agent* whether a captured request is the agent's own (the template), not a
        preliminary one (a title generator, a router)."""
        raise NotImplementedError

    # -- the template --------------------------------------------------------------------------

    def normalise(self, body: dict[str, Any], root: str) -> dict[str, Any]:
        """The body as kept: the throwaway folder `root` written as `STABLE_ROOT`; agents drop
        or fix their ids and session fields on top (override and call this)."""
        return _replace_everywhere(body, root, STABLE_ROOT)

    def swap_query(self, text: str, query: str) -> str:
        """The string holding the sentinel, with the query in its place."""
        return text.replace(SENTINEL, query)

    def dated(self, text: str) -> bool:
        """*agent* whether a string holds a date the CLI derives from the day."""
        return False

    def swap_day(self, text: str, today: datetime.date) -> str:
        """*agent* `text` with the CLI's date texts set to `today`."""
        return text

    def listing(self, body: dict[str, Any]) -> Listing:
        """*agent* the skill listing as the model sees it in the captured request."""
        raise NotImplementedError

    # -- the replay ----------------------------------------------------------------------------

    def client(
        self, *, api_key: str, base_url: str | None, timeout: float | None, http_client: Any
    ) -> Any:
        """*agent* the provider SDK's async client."""
        raise NotImplementedError

    def endpoint(self, base_url: str | None) -> str:
        """*agent* where requests go, without credentials (part of the cache identity)."""
        raise NotImplementedError

    async def first_move(
        self,
        client: Any,
        path: str,
        headers: Mapping[str, str],
        body: dict[str, Any],
        *,
        target: str,
        skills: Sequence[CliSkill],
        stop_when_decided: bool,
    ) -> Move:
        """*agent* send `body` through the SDK (streamed) and fold the reply into its first move
        for skill `target`; SDK exceptions propagate (the limiter retries them)."""
        raise NotImplementedError

    def classify_failure(self, exc: BaseException) -> Failure | None:
        """*agent* how the limiter treats an SDK exception (None: not an API failure)."""
        return None

    def price(self, model: str, usage: CallUsage) -> tuple[float, str | None]:
        """Dollars of one call from the price table (`$SKILLBENCH_PRICES` included, as the
        estimate reads it, so a user-set price is metered against `--max-cost` too), and a note
        when the model has no price."""
        from skillbench.schemas.prices import load_prices

        dollars = load_prices().dollars(model, usage)
        if dollars is None:
            return 0.0, f"no price known for {self.name} model {model!r}"
        return float(dollars), None


_PASSED = frozenset({"PATH", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ", "SHELL", "USER"})


def _replace_everywhere(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new) if old in value else value
    if isinstance(value, list):
        return [_replace_everywhere(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: _replace_everywhere(item, old, new) for key, item in value.items()}
    return value
