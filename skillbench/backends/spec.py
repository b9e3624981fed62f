"""A backend is one object: its `BackendSpec`, registered through the `skillbench.backends`
entry-point group (pyproject.toml) — the built-ins exactly as a plugin would.

Callers ask the spec what a backend can do (`spec.offline`, `spec.sessions`, `spec.judge`, …),
never its name. The parts are named as `"module:attribute"` strings and imported only when used,
so choosing `local` never imports the Anthropic SDK and vice versa (a part may also be the
callable itself: `registry.register_judge` registers a factory that way).
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from skillbench.errors import BackendError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from skillbench.schemas.prices import PriceTable

BACKEND_ENTRY_POINTS = "skillbench.backends"
BUILTIN_TARGETS: dict[str, str] = {
    "anthropic": "skillbench.backends.anthropic.spec:ANTHROPIC",
    "claude-code": "skillbench.backends.claude_cli.spec:CLAUDE_CODE",
    "codex": "skillbench.backends.codex.spec:CODEX_SPEC",
    "gemini": "skillbench.backends.gemini.spec:GEMINI_SPEC",
    "lexical": "skillbench.backends.offline.spec:LEXICAL",
    "local": "skillbench.backends.offline.spec:LOCAL",
    "opencode": "skillbench.backends.opencode.spec:OPENCODE_SPEC",
}
"""The built-ins' specs, as pyproject.toml registers them in `BACKEND_ENTRY_POINTS` (a test keeps
the two equal). Used when the installed metadata lacks one (a source checkout, an editable
install older than the checkout), so a built-in never depends on how skillbench was installed."""
FALLBACK_WORKERS = 8
"""Calls in flight when neither `--workers` nor the spec says (plugin and test backends)."""

# How a backend runs a behavior case (`BackendSpec.executor`), for the executors skillbench
# ships; `skillbench.behavior.executors` builds them. A plugin names its own factory instead.
CONVERSATION = "conversation"
"""One conversation with the backend's own text model, the SKILL.md in the system prompt."""
CLAUDE_SESSION = "claude-session"
"""An agentic Claude Code CLI session in an isolated project, the skill installed."""
RECORDED_SAMPLES = "recorded-samples"
"""No model: the recorded sample runs of the skill are replayed (`data/runs/<skill>/`)."""
AGENT_CLI_SESSION = "agent-cli-session"
"""An agentic session of another agent's CLI (Codex, Gemini CLI, opencode) in an isolated
project, the skill installed where that agent loads skills; the spec's `session_cli` names the
agent (`backends.agent_session.SessionCli`)."""
EXECUTOR_KINDS = (CONVERSATION, CLAUDE_SESSION, RECORDED_SAMPLES, AGENT_CLI_SESSION)
SESSION_EXECUTORS = (CLAUDE_SESSION, AGENT_CLI_SESSION)
"""The executor kinds whose behavior runs are whole agent sessions."""

# How a backend's calls are priced before they are made (`BackendSpec.estimator`), for the
# estimators skillbench ships; `skillbench.cost.estimate` builds them (the money room sits above
# the backends, so a spec names a kind, never a module there). A plugin names its own factory.
FREE = "free"
"""No model calls: every plan line costs $0."""
MESSAGES_API = "messages-api"
"""Messages API requests, counted token by token and priced from the price table."""
AGENT_SESSION = "agent-session"
"""Whole agent sessions, priced from the sessions recorded in the call cache."""
AGENT_REPLAY = "agent-replay"
"""Another agent's captured request, query swapped (`backends/replay/`): the request as sent,
counted by characters and priced from the price table, or "unknown" for an unpriced model."""
ESTIMATOR_KINDS = (FREE, MESSAGES_API, AGENT_SESSION, AGENT_REPLAY)

logger = logging.getLogger(__name__)

Part = str | Callable[..., Any]
"""A `"module:attribute"` string (imported when used) or the callable itself."""

_PART_NAMES = {
    "judge": "trigger judge",
    "text_model": "text model",
    "executor": "behavior executor",
    "estimator": "cost estimator",
    "beside_cache": "cache-side options",
    "session_cli": "behavior session CLI",
    "prices": "price table",
    "transcripts": "session-file importer",
}


@dataclass(frozen=True)
class BackendSpec:
    """What one backend is and can do.

    `judge` and `text_model` are factories (None: the backend cannot). `estimator` is one of
    `ESTIMATOR_KINDS` or a factory `(model=, cache=, **options) → Estimator`.
    `harnesses` maps a trigger harness name to its judge factory (the `anthropic` backend's
    `replay` and `minimal`); `judge` is then the default harness's. `executor` is one of
    `EXECUTOR_KINDS` or a factory `(model, *, max_concurrency, timeout, max_copy) → Executor`.
    """

    name: str
    summary: str
    judge: Part | None = None
    text_model: Part | None = None
    executor: Part | None = None
    estimator: Part | None = None
    harnesses: dict[str, Part] = field(default_factory=dict)
    default_harness: str | None = None
    project_harness: str | None = None
    """The harness that can take a project's view (`--project`; None: none can)."""
    harness_label: str | None = None
    """How the report header names the way it judges, when its judge does not say."""
    default_workers: int = FALLBACK_WORKERS
    workers_option: str | None = "max_concurrency"
    """The keyword its judge and executor take `--workers` by (None: they take none)."""
    key_variable: str | None = None
    """The environment variable holding the API key it needs (None: none needed)."""
    cli: str | None = None
    """The executable it runs (None: no CLI), or only some of its harnesses run (`cli_harnesses`);
    `cli_install` says how to get it."""
    cli_install: str | None = None
    cli_package: str | None = None
    """The pinned npm package that provides `cli` (what the GitHub Action installs)."""
    cli_harnesses: tuple[str, ...] | None = None
    """The trigger harnesses that run `cli` (None: every call runs it, behavior runs too)."""
    cli_mode_harness: str | None = None
    """The harness whose capture drives the CLI either interactively (a pty) or in print mode
    (`--cli-mode`, the judge's `cli_mode` keyword); None: no harness takes a CLI mode."""
    cli_modes: bool = False
    """A backend without harnesses whose judge runs the CLI either interactively (a pty) or in
    print mode (`--cli-mode`, the judge's `cli_mode` keyword): the claude-code backend."""
    extra: str | None = None
    """The skillbench extra its parts import (`pip install 'skillbench[<extra>]'`; None: the
    core has all it needs)."""
    offline: bool = False
    """Makes no model calls: free, nothing to cache, its grader is a proxy, not a model."""
    sessions: bool = False
    """Each call is a whole agent session (a CLI process), not one API request."""
    model_param: str = "model"
    """The keyword its judge takes the model name by."""
    beside_cache: Part | None = None
    """`(options, cache_path) → options`: what it keeps beside the call cache in use (replay
    templates, an embedding store), added to its judge's options."""
    skill_limits: SkillLimits | None = None
    """The agent's own limits on a skill's frontmatter (the validator's `--profile <name>`;
    None: no profile of its own)."""
    session_cli: Part | None = None
    """The agent CLI its behavior sessions run (`executor = agent-cli-session`): a
    `backends.agent_session.SessionCli`."""
    skill_keys: SkillKeys | None = None
    """The frontmatter keys the agent reads beyond the open standard's, and the checks of their
    values (the validator's `--profile <name>` knows them; None: the standard's keys only)."""
    default_profile: bool = False
    """Its profile is the validator's default `--profile` (one backend declares it; none: the
    open standard's, `agentskills`)."""
    agent: str | None = None
    """The agent whose own first request the backend replays (`--agent <agent>`, a column of
    `skillbench agents`; the anthropic backend replays claude-code's). None: no agent's."""
    agent_aliases: tuple[str, ...] = ()
    """Other names `--agent` takes for `agent` (besides the backends' aliases)."""
    reference_for: str | None = None
    """The backend this one is the reference for: `skillbench agreement`'s default pair is that
    backend (A, the stand-in) against this one (B)."""
    escalation: bool = False
    """`--escalate` re-runs undecided runs (another tool first) through this backend."""
    prices: str | PriceTable | None = None
    """Prices of the models it runs that the shipped table lacks: a `"module:attribute"` naming
    a `schemas.prices.PriceTable` (imported when a call is priced) or the table itself. Laid over
    the shipped table, under the user's `$SKILLBENCH_PRICES`: estimates, each call's cost and
    `--max-cost` all read them."""
    cli_make_target: str | None = None
    """The Makefile target that installs `cli_package` under a clone's `.tools/` (`agents`:
    `python -m skillbench.backends.packages agents` lists that target's packages)."""
    transcripts: Part | None = None
    """The importer of the agent's own session files (`field import <agent>`, also under its
    `agent_aliases`): a `"module:attribute"` naming a `skillbench.field.importers.Importer`."""
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """A spec that could never work is refused when it is made (a plugin's mistake is
        named at once, not at the first call)."""
        if self.harnesses and self.default_harness not in self.harnesses:
            raise ValueError(f"backend {self.name!r}: default_harness must be one of its harnesses")
        if self.project_harness is not None and self.project_harness not in self.harnesses:
            raise ValueError(f"backend {self.name!r}: project_harness must be one of its harnesses")
        if self.cli_harnesses is not None and not set(self.cli_harnesses) <= set(self.harnesses):
            raise ValueError(f"backend {self.name!r}: cli_harnesses must be among its harnesses")
        if self.cli_mode_harness is not None and self.cli_mode_harness not in self.harnesses:
            raise ValueError(
                f"backend {self.name!r}: cli_mode_harness must be one of its harnesses"
            )
        if self.cli_modes and self.harnesses:
            raise ValueError(
                f"backend {self.name!r}: a backend with harnesses names its cli_mode_harness"
            )
        if (self.cli_package or self.cli_harnesses is not None) and self.cli is None:
            raise ValueError(f"backend {self.name!r}: cli_package and cli_harnesses need a cli")
        if self.executor == AGENT_CLI_SESSION and self.session_cli is None:
            raise ValueError(
                f"backend {self.name!r}: an agent-cli-session executor needs session_cli"
            )
        if self.cli_make_target is not None and not self.cli_package:
            raise ValueError(f"backend {self.name!r}: cli_make_target needs a cli_package")
        if self.agent_aliases and self.agent is None:
            raise ValueError(f"backend {self.name!r}: agent_aliases need an agent")
        if self.default_profile and self.skill_keys is None and self.skill_limits is None:
            raise ValueError(
                f"backend {self.name!r}: default_profile needs a profile "
                "(skill_keys or skill_limits)"
            )
        for part, kinds in (("executor", EXECUTOR_KINDS), ("estimator", ESTIMATOR_KINDS)):
            value = getattr(self, part)
            if isinstance(value, str) and value not in kinds and ":" not in value:
                raise ValueError(
                    f"backend {self.name!r}: {part} {value!r} is neither one of "
                    f"{', '.join(kinds)} nor a 'module:attribute' factory"
                )

    @property
    def behavior_sessions(self) -> bool:
        """Whether its behavior runs are whole agent sessions (its `sessions`, or an executor
        of `SESSION_EXECUTORS`): real commands, files and network unless a case's
        `environment` confines them."""
        return self.sessions or self.executor in SESSION_EXECUTORS

    def needs_cli(self, harness: str | None = None, *, behavior: bool = False) -> bool:
        """Whether a run needs `cli` installed, even with every call cached: every run when
        `cli_harnesses` is None, else only trigger runs on one of those harnesses (`harness`,
        else the default one)."""
        if self.cli is None:
            return False
        if self.cli_harnesses is None:
            return True
        return not behavior and (harness or self.default_harness) in self.cli_harnesses

    def takes_cli_mode(self, harness: str | None = None) -> bool:
        """Whether its judge takes `cli_mode` (`--cli-mode`): on its `cli_mode_harness`
        (`harness`, resolved, else the default one), or, without harnesses, when `cli_modes`."""
        if self.harnesses:
            chosen = harness or self.default_harness
            return self.cli_mode_harness is not None and chosen == self.cli_mode_harness
        return self.cli_modes

    def load(self, part: str) -> Any:
        """The object behind one of the parts (`judge`, `harness:replay`, …), imported when it
        is a `"module:attribute"` string; BackendError naming the backend when it has none or it
        cannot be imported."""
        if part.startswith("harness:"):
            target = self.harnesses.get(part.removeprefix("harness:"))
        else:
            target = getattr(self, part, None)
        if not target:
            raise BackendError(f"backend {self.name!r} has no {_PART_NAMES.get(part, part)}")
        return load_target(target, self.name) if isinstance(target, str) else target


class SkillLimits(NamedTuple):
    """What one agent requires of a skill's frontmatter before it lists the skill (the
    validator's `--profile <backend>`; see docs/validation.md for the source of each: measured
    on the pinned CLI, or read)."""

    agent: str
    max_name: int | None
    max_description: int | None
    name_matches_folder: bool
    single_line_description: bool
    enforced: bool
    """True: the agent refuses a skill past a limit (AGENT_LIMIT, an error); False: the limits
    are documented, but the pinned CLI listed such skills anyway (AGENT_DOCUMENTED_LIMIT, a
    warning: a later version may enforce them)."""
    note: str = ""
    """What is known of the pinned CLI's own behaviour, added to a documented limit's finding."""


SkillCheckResult = bool | str | list[str] | None
"""Falsy: passes; True: one finding with the check's message; a string or list: one finding
each (the validator's rule results)."""


class SkillCheck(NamedTuple):
    """One check of a frontmatter value as an agent reads it: a row the validator adds to its
    rules for that agent's profile (`SkillKeys.checks`)."""

    code: str
    level: str
    """`error` or `warning`."""
    check: Callable[[Mapping[str, Any]], SkillCheckResult]
    """Given the frontmatter mapping."""
    message: str


class SkillKeys(NamedTuple):
    """The frontmatter keys an agent reads beyond the open standard's, as one version of it
    reads them (the validator's `--profile <backend>`; see docs/validation.md)."""

    agent: str
    """How findings name the agent (`Claude Code`)."""
    version: str
    """The agent's version the keys and checks were read from."""
    keys: tuple[str, ...]
    checks: str | None = None
    """`"module:attribute"` of its `SkillCheck` rows (imported when a skill is validated)."""


def agent_skill_limits() -> dict[str, SkillLimits]:
    """Every backend whose agent has limits of its own on a skill (`BackendSpec.skill_limits`),
    by backend name, sorted: the validator's agent profiles."""
    specs = all_specs()
    found: dict[str, SkillLimits] = {}
    for name in sorted(specs):
        limits = specs[name].skill_limits
        if limits is not None:
            found[name] = limits
    return found


OPEN_STANDARD = "agentskills"
"""The validator's profile of the open standard (agentskills.io), which no backend declares."""


def skill_profiles() -> dict[str, BackendSpec]:
    """Every backend whose agent has a validator profile of its own (`skill_keys` or
    `skill_limits`), by backend name, sorted: the validator's `--profile` choices after the
    open standard's."""
    specs = all_specs()
    return {
        name: specs[name]
        for name in sorted(specs)
        if specs[name].skill_keys is not None or specs[name].skill_limits is not None
    }


def default_skill_profile() -> str:
    """The validator's default profile: the backend's whose spec says `default_profile` (the
    first by name if several do), else the open standard's."""
    chosen = [name for name, spec in skill_profiles().items() if spec.default_profile]
    return chosen[0] if chosen else OPEN_STANDARD


def declared_prices() -> list[Any]:
    """The price tables the backends declare (`BackendSpec.prices`), by backend name; one that
    cannot be loaded is skipped with a warning (pricing must not fail a run)."""
    found: list[Any] = []
    specs = all_specs()
    for name in sorted(specs):
        if specs[name].prices is None:
            continue
        try:
            found.append(specs[name].load("prices"))
        except BackendError as exc:
            logger.warning("%s; its prices are not used", exc)
    return found


def cli_packages(make_target: str) -> list[str]:
    """The pinned npm packages a Makefile target installs (`BackendSpec.cli_make_target`), each
    once, by backend name."""
    specs = all_specs()
    found = [
        str(specs[name].cli_package)
        for name in sorted(specs)
        if specs[name].cli_make_target == make_target
    ]
    return list(dict.fromkeys(found))


def cli_install_hint(
    package: str, binary: str, bin_variable: str, make_target: str, *, working_dir: bool = False
) -> str:
    """How to get a missing agent CLI, for every agent in the same order: npm first (what a pip
    user has), `make <target>` for a clone of skillbench, then the variable naming a binary.
    `working_dir`: the backend also finds `.tools/node_modules/.bin/` of the working folder."""
    local = (
        f" or `npm install --prefix .tools {package}` in the working folder" if working_dir else ""
    )
    return (
        f"install the pinned CLI with npm: `npm install -g {package}` (puts `{binary}` on "
        f"PATH){local}; in a clone of skillbench, `make {make_target}`; or set {bin_variable} "
        f"to a `{binary}` executable"
    )


def npm_agent_spec(name: str, package: str, **fields: Any) -> BackendSpec:
    """The spec of an agent whose CLI is an npm package `make agents` installs and whose own
    first request is replayed by the replay family (`backends/replay/`): the agent, CLI and
    `--agent` name `name`; its templates beside the call cache; the captured request as sent
    counted by the estimator; its behavior runs whole sessions of that CLI
    (`backends/<name>/behavior.py`); the install hint naming `package`. `fields` gives the rest
    (judge, key variable, summary, limits, …) and may override any of these."""
    variable = f"SKILLBENCH_{name.upper()}_BIN"
    declared: dict[str, Any] = {
        "name": name,
        "agent": name,
        "cli": name,
        "cli_package": package,
        "cli_make_target": "agents",
        "cli_install": cli_install_hint(package, name, variable, "agents", working_dir=True),
        "beside_cache": "skillbench.backends.replay.store:beside_cache",
        "estimator": AGENT_REPLAY,
        "executor": AGENT_CLI_SESSION,
        "default_workers": 16,
        **fields,
    }
    return BackendSpec(**declared)


def load_target(target: str, backend: str) -> Any:
    """Import `"module:attribute"`; BackendError naming `backend` when it cannot be loaded."""
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendError(f"backend {backend!r} cannot be loaded: {exc}") from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise BackendError(f"backend {backend!r}: {module_name} has no {attribute}") from None


_registered: dict[str, BackendSpec] = {}
_skipped: dict[str, str] = {}  # entry point name → why it was skipped (filled with the specs)


def _load_spec(name: str, target: str, load: Callable[[], Any]) -> BackendSpec | str:
    """The spec behind one entry point, or the one line saying why it cannot be used."""
    where = f"backend entry point {name!r} ({target})"
    try:
        spec = load()
    except Exception as exc:  # a broken plugin: one clear line, not a traceback
        return f"{where} cannot be loaded: {type(exc).__name__}: {exc}"
    if not isinstance(spec, BackendSpec):
        return f"{where} is not a BackendSpec"
    return spec


@functools.cache
def entry_point_specs() -> tuple[BackendSpec, ...]:
    """The specs registered through the `skillbench.backends` entry points (built-ins too); a
    built-in the installed metadata lacks (or names wrongly) comes from `BUILTIN_TARGETS`. An
    entry point that cannot be loaded is skipped with a warning (`skipped_backends` says why);
    only choosing that backend is an error. Cached: `entry_point_specs.cache_clear()` after
    installing a plugin in a running process."""
    from importlib.metadata import entry_points

    _skipped.clear()
    found: dict[str, BackendSpec] = {}
    for point in sorted(entry_points(group=BACKEND_ENTRY_POINTS), key=lambda p: p.name):
        spec = _load_spec(point.name, point.value, point.load)
        if isinstance(spec, str):
            _skipped[point.name] = spec
        else:
            found[spec.name] = spec
    for name, target in BUILTIN_TARGETS.items():
        if name not in found:
            spec = _load_spec(name, target, functools.partial(load_target, target, name))
            if isinstance(spec, str):
                _skipped.setdefault(name, spec)
            else:
                _skipped.pop(name, None)
                found[name] = spec
    for why in (_skipped[name] for name in sorted(_skipped)):
        logger.warning("%s; skipped (choosing it is an error)", why)
    return tuple(sorted(found.values(), key=lambda s: s.name))


def skipped_backends() -> dict[str, str]:
    """Backend entry points that could not be loaded, by name: why (one line each)."""
    entry_point_specs()
    return dict(_skipped)


def register_backend(spec: BackendSpec) -> BackendSpec:
    """Register a spec at run time (tests, notebooks); it wins over an entry point's."""
    _registered[spec.name] = spec
    return spec


def unregister_backend(name: str) -> None:
    """Forget a spec registered at run time."""
    _registered.pop(name, None)


def registered_spec(name: str) -> BackendSpec | None:
    """The spec registered at run time under `name`, if any."""
    return _registered.get(name)


def all_specs() -> dict[str, BackendSpec]:
    """Every backend by name: entry points, then run-time registrations."""
    specs = {spec.name: spec for spec in entry_point_specs()}
    specs.update(_registered)
    return specs


def alias_table() -> dict[str, str]:
    """Alias → backend name, from the specs."""
    return {alias: spec.name for spec in all_specs().values() for alias in spec.aliases}
