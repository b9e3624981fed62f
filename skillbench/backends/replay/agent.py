"""What the replay needs to know about one agent CLI (`Agent`), and what the model sees of the
skills in its request (`Listing`).

Every agent whose first request skillbench replays is one `Agent` subclass: Claude Code
(`anthropic.capture.ClaudeCodeAgent`), opencode, Gemini CLI and Codex CLI (each in its own
sub-package, `<agent>/agent.py`). The replay family does the rest once for all of them
(`docs/agents.md`): the throwaway project and isolated HOME, the loopback capture server, the
capture run, normalising and storing the template (`replay.capture`, `replay.store`), the
sentinel and day swap (`replay.template`), the call cache key, the limiter and the outcome
(`replay.judge`).

An agent supplies, in this order of a template's life: where its CLI is (`locate`) and which
version it is (`version_call`); how to start one capture run (`capture_call`, `capture_env`,
`prepare`); what the capture server answers (`capture_reply`) and which request is its own
(`is_agent_request`); how the request is kept (`normalise`), how the query and the day are
swapped in (`swap_query`, `dated`, `swap_day`) and what it lists (`listing`); then, per replayed
call, the provider's SDK client (`client`), how its stream opens (`open_stream`) and folds into the
first move (`fold`), how the limiter treats an SDK failure (`classify_failure`) and what a call
costs (`price`). Agents register by name as their class is defined (`Agent.named`), so a stored
template finds its agent's rules.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import os
import shutil
from collections.abc import AsyncIterable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.base import CallUsage, SkillEntry, public_endpoint
from skillbench.backends.limiter import Failure
from skillbench.backends.replay.capture_server import CaptureServer
from skillbench.backends.replay.keys import common_fields, short_key
from skillbench.backends.replay.move import DRAIN_SECONDS, Fold, Move, read_first_move
from skillbench.backends.replay.run import run_until_captured
from skillbench.backends.skill_install import CliSkill
from skillbench.backends.spec import cli_install_hint
from skillbench.errors import BackendError

if TYPE_CHECKING:
    from skillbench.backends.replay.context import ProjectView, UserView

#: The query the capture sends; replaced by each eval query (Claude Code has its own).
SENTINEL = "SKILLBENCH_AGENT_SENTINEL_QUERY_5c1e"
#: Where the throwaway capture folder is said to be in every stored template (ditto).
STABLE_ROOT = "/tmp/skillbench-agent"


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


@dataclass(frozen=True)
class CaptureSite:
    """The throwaway folders of one capture: `root` (normalised away in the template), the
    project the CLI runs in and its isolated HOME, both inside `root`."""

    root: Path

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"


@dataclass(frozen=True)
class CaptureRun:
    """One capture run of an agent's CLI (`Agent.run_capture`): the executable, the model, the
    throwaway folders, the CLI's environment, the capture server and how long it may take."""

    binary: Path
    model: str
    site: CaptureSite
    env: dict[str, str]
    server: CaptureServer
    timeout: float


_AGENTS: dict[str, type[Agent]] = {}
_DEFAULTS: dict[str, Agent] = {}


class Agent:
    """One agent CLI, as the replay needs it. Subclasses set the class attributes and override
    the methods marked *agent*; the defaults fit an agent whose request holds plain strings."""

    name: ClassVar[str]
    """The agent's name (`claude-code`, `opencode`, `gemini`, `codex`), stored in its templates."""
    title: ClassVar[str]
    """How reports and messages name the agent (`opencode 1.18.33`)."""
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
    base_url_variable: ClassVar[str]
    """The environment variable naming the provider's base URL (as the provider's SDK reads it)."""
    default_endpoint: ClassVar[str]
    """The provider's public API, when neither a base URL nor the variable says otherwise."""
    sdk: ClassVar[str]
    """The Python distribution of the provider's SDK (for `versions` and the install hint)."""
    kept_headers: ClassVar[tuple[str, ...]] = ()
    """Request headers kept in the template (never a key or a session id)."""
    request_settings: ClassVar[tuple[str, ...]] = ()
    """Environment variables passed to the capture that change the request (in the key)."""
    skill_tool: ClassVar[str | None] = None
    """The tool the model invokes a skill with (None: no skill tool, as Codex)."""
    sentinel: ClassVar[str] = SENTINEL
    """The query the capture sends (in every stored template: never changed for an agent)."""
    stable_root: ClassVar[str] = STABLE_ROOT
    """What the throwaway folder is written as in the stored template (ditto)."""
    template_format: ClassVar[int] = 1
    """The agent's template format (part of its template key: bumped, every template of the
    agent is captured again)."""

    # what the CLI reads of the user's project and HOME (`--project`, `--as-user`: `context`)
    project_instructions: ClassVar[tuple[str, ...]] = ()
    """Instruction files the CLI reads at a project's top, relative to it (every one found is
    copied: the CLI applies its own precedence)."""
    project_skill_dirs: ClassVar[tuple[str, ...]] = ()
    """The project's skill folders the CLI lists (relative to the project)."""
    config_files: ClassVar[tuple[str, ...]] = ()
    """The project's configuration files, copied as `sanitise_config` keeps them."""
    code_paths: ClassVar[tuple[tuple[str, str], ...]] = ()
    """(path, why) of what in a project holds code the CLI loads at start: removed from the
    copy."""
    user_instructions: ClassVar[tuple[str, ...]] = ()
    """User-level instruction files, relative to HOME."""
    user_skill_dirs: ClassVar[tuple[str, ...]] = ()
    """User-level skill folders, relative to HOME."""
    user_skill_skip: ClassVar[tuple[str, ...]] = ()
    """Folders of `user_skill_dirs` never taken (the CLI's own, e.g. Codex's `.system`)."""
    user_left_out: ClassVar[tuple[tuple[str, str], ...]] = ()
    """(path relative to HOME, why) of what changes the request but is never copied."""
    reads_above: ClassVar[bool] = False
    """Whether the CLI reads instruction and configuration files above a project outside git
    (opencode walks up to `/`)."""
    lists_tree: ClassVar[bool] = False
    """Whether the request lists the project's files (Gemini's directory tree)."""

    project_view: ProjectView | None = None
    """`--project`: the capture's project is a copy of this view (`context.lay_project`)."""
    user_view: UserView | None = None
    """`--as-user`: the capture's HOME holds this view's files (`context.lay_user`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            _AGENTS[cls.name] = cls
            _DEFAULTS.pop(cls.name, None)

    @staticmethod
    def named(name: str) -> Agent:
        """The agent `name` (its class with default settings): the rules a stored template of
        that agent is read by. BackendError when no such agent is loaded."""
        if name not in _DEFAULTS:
            found = _AGENTS.get(name)
            if found is None:
                raise BackendError(f"no replay agent named {name!r} is loaded")
            _DEFAULTS[name] = found()
        return _DEFAULTS[name]

    def with_views(self, project: ProjectView | None, user: UserView | None) -> Agent:
        """A copy of this agent whose captures see `project` and `user` (`--project`,
        `--as-user`)."""
        agent = copy.copy(self)
        agent.project_view = project
        agent.user_view = user
        return agent

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

    def version_env(self, home: Path) -> dict[str, str]:
        """*agent* what the version call's environment adds to PATH, LANG, TMPDIR and the
        throwaway `home` (no key, no config)."""
        return {"XDG_CONFIG_HOME": str(home / ".config")}

    def parse_version(self, output: str) -> str | None:
        """*agent* the version in what `version_call` printed (None: none found): its last
        word when that is a number, else its first."""
        words = output.split()
        if not words:
            return None
        return words[-1] if words[-1][:1].isdigit() else words[0]

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

    def lay_out(
        self, site: CaptureSite, target: SkillEntry, catalog: Sequence[SkillEntry]
    ) -> list[str]:
        """*agent* make the capture's project and HOME: empty folders, or copies of the
        `project_view` and the `user_view` (`context`) with their skills of the names under test
        removed. Returns what of the user's view the copy leaves out or could not reproduce."""
        from skillbench.backends.replay.context import lay_project, lay_user, replace_clashes
        from skillbench.backends.skill_install import cli_name

        differs: list[str] = []
        if self.project_view is not None:
            differs += lay_project(self, self.project_view, site.project)
        site.project.mkdir(exist_ok=True)
        site.home.mkdir(exist_ok=True)
        if self.user_view is not None:
            differs += lay_user(self.user_view, site.home)
        if self.project_view is not None or self.user_view is not None:
            names = list(dict.fromkeys(cli_name(s) for s in (target, *catalog)))
            home = site.home if self.user_view is not None else None
            differs += replace_clashes(self, site.project, home, names)
        return differs

    def project_instruction_names(self, root: Path) -> list[str]:
        """*agent* the instruction files the CLI reads in the project `root` (relative paths;
        `project_instructions`, plus what the project's configuration names)."""
        return list(self.project_instructions)

    def project_files(self, root: Path) -> list[str]:
        """What the CLI reads from the project `root` at start, found there (relative paths):
        its instruction files, each project skill's SKILL.md, its configuration files."""
        from skillbench.backends.replay.context import skill_files

        found = [rel for rel in self.project_instruction_names(root) if (root / rel).is_file()]
        found += skill_files(root, self.project_skill_dirs)
        found += [rel for rel in self.config_files if (root / rel).is_file()]
        return list(dict.fromkeys(found))

    def sanitise_config(self, rel: str, text: str) -> tuple[str | None, list[str]]:
        """*agent* a configuration file of the project as the copy keeps it (None: left out)
        and one note per thing left out (by default the whole file)."""
        return None, [f"{rel}: left out (the agent's configuration, which can run commands)"]

    def user_files(self, home: Path) -> list[tuple[Path, str]]:
        """What `--as-user` copies from `home` into the isolated HOME: (the file read, its path
        in the isolated HOME) for each user-level instruction file and each user skill's
        SKILL.md (`user_instructions`, `user_skill_dirs`); never a configuration or a
        credential."""
        from skillbench.backends.replay.context import skill_files

        found = [rel for rel in self.user_instructions if (home / rel).is_file()]
        found += skill_files(home, self.user_skill_dirs, skip=self.user_skill_skip)
        return [(home / rel, rel) for rel in dict.fromkeys(found)]

    def project_catalog(self, catalog: Sequence[SkillEntry]) -> Sequence[SkillEntry]:
        """The catalog skills installed in the capture's project: all of them (an agent whose
        HOME already holds some, `--as-user`, leaves those out)."""
        return catalog

    def prepare(self, project: Path, home: Path, base_url: str, model: str) -> None:
        """*agent* write config files the capture needs, the skills installed (Codex:
        `config.toml`); none by default."""

    def settings(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The `request_settings` set in `environ` (default: the process environment)."""
        source = os.environ if environ is None else environ
        return {name: source[name] for name in self.request_settings if name in source}

    def run_capture(self, run: CaptureRun) -> tuple[int | None, str]:
        """*agent* run the CLI once with the sentinel until its own request is in (exit code,
        the tail of what it wrote)."""
        call = self.capture_call(run.binary, run.model, self.sentinel)
        return run_until_captured(self, call, run.site.project, run.env, run.server, run.timeout)

    def captured(self, site: CaptureSite) -> dict[str, Any]:
        """*agent* template fields read from the capture's folder after the run (Claude Code:
        the listing budget its debug log names); none by default."""
        return {}

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

    def template_key(
        self,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
    ) -> str:
        """The store key: the agent's template format, the skill set's content, the model, the
        CLI version and the settings, with the agent's own fields (`key_fields`)."""
        common = common_fields(self.template_format, target, catalog, model, cli_version, settings)
        return short_key(self.key_fields(common))

    def key_fields(self, common: dict[str, Any]) -> dict[str, Any]:
        """*agent* the template key's fields: `common`, the agent's name and its skills folder,
        and the `--project` and `--as-user` views' keys when given (Claude Code's key, older
        than the family, adds its project and CLI mode instead)."""
        fields = {**common, "agent": self.name, "skills_dir": self.skills_dir}
        if self.project_view is not None:
            fields["project"] = self.project_view.key()
        if self.user_view is not None:
            fields["as_user"] = self.user_view.key()
        return fields

    def normalise(self, body: dict[str, Any], root: str) -> dict[str, Any]:
        """The body as kept: the throwaway folder `root` written as `stable_root`; agents drop
        or fix their ids and session fields on top (override and call this)."""
        result: dict[str, Any] = _replace_everywhere(body, root, self.stable_root)
        return result

    def swap_query(self, text: str, query: str) -> str:
        """The string holding the sentinel, with the query in its place."""
        return text.replace(self.sentinel, query)

    def dated(self, text: str) -> bool:
        """*agent* whether a string holds a date the CLI derives from the day."""
        return False

    def swap_day(self, text: str, today: datetime.date) -> str:
        """*agent* `text` with the CLI's date texts set to `today`."""
        return text

    def derived(self, text: str) -> bool:
        """Whether a string holds what the CLI derives from the day or the query (`dated`;
        Claude Code adds its billing header)."""
        return self.dated(text)

    def swap_derived(self, text: str, query: str, today: datetime.date | None) -> str:
        """A `derived` string as the CLI writes it for `query` on `today` (None: the day as
        captured)."""
        return text if today is None else self.swap_day(text, today)

    def listing(self, body: dict[str, Any]) -> Listing | None:
        """*agent* the skill listing as the model sees it in the captured request (None: read
        elsewhere, by the agent's own rules)."""
        raise NotImplementedError

    # -- the replay ----------------------------------------------------------------------------

    def api_key(self, given: str | None) -> str:
        """The key the replay sends with: `given`, else `$<key_variable>`; BackendError
        naming the variable when there is none."""
        key = given or os.environ.get(self.key_variable, "")
        if not key:
            raise BackendError(f"the {self.name} backend needs {self.key_variable} set")
        return key

    def client(
        self, *, api_key: str, base_url: str | None, timeout: float | None, http_client: Any
    ) -> Any:
        """*agent* the provider SDK's async client (its own retries off: the limiter retries)."""
        raise NotImplementedError

    @staticmethod
    def sdk_options(timeout: float | None, http_client: Any) -> dict[str, Any]:
        """The options every provider SDK's client is built with here: its own retries off
        (the limiter retries), the call's `timeout`, `http_client` when one is given."""
        options: dict[str, Any] = {"max_retries": 0, "timeout": timeout}
        if http_client is not None:
            options["http_client"] = http_client
        return options

    def provider_url(self, base_url: str | None) -> str | None:
        """The provider's base URL: `base_url`, else `$<base_url_variable>` (None: the SDK's
        default)."""
        return base_url or os.environ.get(self.base_url_variable) or None

    def endpoint(self, base_url: str | None) -> str:
        """Where requests go, without credentials (part of the cache identity)."""
        url = self.provider_url(base_url) or self.default_endpoint
        return public_endpoint(url) or self.default_endpoint

    def fold(self, target: str, skills: Sequence[CliSkill], body: dict[str, Any]) -> Fold:
        """*agent* a fold of the reply to `body` into its first move for skill `target`."""
        raise NotImplementedError

    async def open_stream(
        self, client: Any, path: str, headers: Mapping[str, str], body: dict[str, Any]
    ) -> AsyncIterable[Any]:
        """*agent* send `body` through the SDK, streamed; the stream of its events."""
        raise NotImplementedError

    def as_event(self, event: Any) -> Any:
        """*agent* what the fold reads of one stream event (the event itself by default)."""
        return event

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
        deadline: float | None = None,
        drain_seconds: float = DRAIN_SECONDS,
    ) -> Move:
        """Send `body` (`open_stream`) and fold the reply into its first move for skill
        `target` (`follow`); SDK exceptions propagate (the limiter retries them)."""
        fold = self.fold(target, skills, body)
        stream = await self.open_stream(client, path, headers, body)
        return await self.follow(
            stream,
            fold,
            stop_when_decided=stop_when_decided,
            deadline=deadline,
            drain_seconds=drain_seconds,
        )

    async def follow(
        self,
        stream: AsyncIterable[Any],
        fold: Fold,
        *,
        stop_when_decided: bool,
        deadline: float | None = None,
        drain_seconds: float = DRAIN_SECONDS,
        began: Callable[[bool], None] | None = None,
    ) -> Move:
        """Read `stream` into `fold` as far as its first move (`move.read_first_move`), close
        it, and settle the move. Once the move is decided nothing undoes it: a failing close
        is then ignored."""
        try:
            await read_first_move(
                stream,
                fold,
                self.as_event,
                stop_when_decided=stop_when_decided,
                drain_seconds=drain_seconds,
                deadline=deadline,
                began=began,
            )
        finally:
            if fold.decided:
                with contextlib.suppress(Exception):
                    await _close(stream)
            else:
                await _close(stream)
        return fold.finish()

    def classify_failure(self, exc: BaseException) -> Failure | None:
        """*agent* how the limiter treats an SDK exception (None: not an API failure)."""
        return None

    def describe_failure(self, exc: BaseException) -> str:
        """*agent* a failed call as its outcome's error (redacted by the judge)."""
        return f"{type(exc).__name__}: {exc}"

    def price(
        self, model: str, usage: CallUsage, *, batch: bool = False
    ) -> tuple[float, str | None]:
        """Dollars of one call from the price table (`$SKILLBENCH_PRICES` included, as the
        estimate reads it, so a user-set price is metered against `--max-cost` too), and a note
        when the model has no price."""
        from skillbench.schemas.prices import load_prices

        dollars = load_prices().dollars(model, usage)
        if dollars is None:
            return 0.0, f"no price known for {self.name} model {model!r}"
        return float(dollars), None


_PASSED = frozenset({"PATH", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ", "SHELL", "USER"})


async def _close(stream: Any) -> None:
    """Close an SDK stream (`close` or `aclose`, awaited when it is a coroutine)."""
    closer = getattr(stream, "close", None) or getattr(stream, "aclose", None)
    if closer is not None:
        result = closer()
        if hasattr(result, "__await__"):
            await result


def _replace_everywhere(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new) if old in value else value
    if isinstance(value, list):
        return [_replace_everywhere(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: _replace_everywhere(item, old, new) for key, item in value.items()}
    return value
