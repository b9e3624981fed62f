"""Backends by name, each one `BackendSpec` (`backends/spec.py`) registered through the
`skillbench.backends` entry-point group: `local` (default, offline), `anthropic`, `claude-code`,
`lexical` (a second offline proxy), and any plugin's.

The name comes from the argument, else `$SKILLBENCH_BACKEND`, else `local`; aliases come from
the specs. Everything this module does for a backend it reads from its spec (judge and text
model factories, trigger harnesses, default workers, the model keyword, what lives beside the
cache): it compares no backend name. Backend modules are imported only when asked for, so
choosing `local` never imports the Anthropic SDK and vice versa. Tests may add fake backends with
`register_judge` / `register_text_model` (a run-time spec).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.backends.base import TextModel, TriggerJudge
from skillbench.backends.spec import (
    AGENT_REPLAY,
    FALLBACK_WORKERS,
    BackendSpec,
    alias_table,
    all_specs,
    declared_prices,
    register_backend,
    registered_spec,
    skipped_backends,
    unregister_backend,
)
from skillbench.errors import BackendError, InputError
from skillbench.schemas.prices import add_price_source

if TYPE_CHECKING:
    from skillbench.backends.cache import CachingJudge, CachingTextModel, CallCache

BACKEND_ENV = "SKILLBENCH_BACKEND"
DEFAULT_BACKEND = "local"

# The prices the backends declare (`BackendSpec.prices`) reach every priced call and estimate:
# whatever prices a call was built through this registry.
add_price_source(declared_prices)

JudgeFactory = Callable[..., TriggerJudge]
TextModelFactory = Callable[..., TextModel]


def available_backends() -> list[str]:
    """Every name `resolve_backend_name` accepts (entry points and run-time registrations)."""
    return sorted(all_specs())


def _normal(name: str) -> str:
    normal = name.strip().lower()
    return alias_table().get(normal, normal)


def resolve_backend_name(name: str | None) -> str:
    """The backend to use: `name`, else `$SKILLBENCH_BACKEND`, else `local`.

    An unknown name raises InputError listing the choices.
    """
    source = "--backend"
    chosen = name
    if not chosen:
        chosen = os.environ.get(BACKEND_ENV) or None
        source = f"${BACKEND_ENV}"
    if not chosen:
        return DEFAULT_BACKEND
    normal = _normal(chosen)
    if normal not in all_specs():
        if normal in (skipped := skipped_backends()):
            raise BackendError(skipped[normal])
        choices = ", ".join(available_backends())
        raise InputError(f"unknown backend {chosen!r}; choose one of: {choices}", path=source)
    return normal


def backend_spec(name: str | None = None) -> BackendSpec:
    """The spec of the named backend (see `resolve_backend_name`): what callers ask instead of
    comparing names."""
    return all_specs()[resolve_backend_name(name)]


def known_spec(name: str | None) -> BackendSpec | None:
    """The spec of a backend name read from a stored file (a report, a summary): None when no
    backend of that name is installed here (never an error, never `$SKILLBENCH_BACKEND`)."""
    return all_specs().get(_normal(name)) if name else None


def _specs_for_help() -> list[BackendSpec]:
    """The specs, for help texts: none when a plugin is broken (building the parser must not
    fail; the command itself then names the plugin, exit 2)."""
    try:
        return list(all_specs().values())
    except BackendError:
        return []


def backend_choices() -> str:
    """The `--backend` help: every backend, the default first, and the variable."""
    others = sorted(s.name for s in _specs_for_help() if s.name != DEFAULT_BACKEND)
    return f"{', '.join([f'{DEFAULT_BACKEND} (default)', *others])}; or ${BACKEND_ENV}"


def backends_where(test: Callable[[BackendSpec], bool]) -> list[str]:
    """The backends whose spec passes `test`, by name: what help texts and messages list as
    able to do something (never an error: a broken plugin is left out)."""
    return sorted(s.name for s in _specs_for_help() if test(s))


def agent_choices() -> str:
    """The `--agent` help's list: every agent the specs declare, with the backend replaying it
    when that backend has another name."""
    by_agent = {s.agent: s.name for s in _specs_for_help() if s.agent is not None}
    return ", ".join(
        agent if backend == agent else f"{agent} (replayed by the {backend} backend)"
        for agent, backend in sorted(by_agent.items())
    )


def workers_help() -> str:
    """The `--workers` help: each backend's default, from the specs."""
    defaults = ", ".join(f"{s.name} {s.default_workers}" for s in _specs_for_help())
    return f"calls in flight (default per backend: {defaults or 'its own'})"


def default_workers(name: str | None = None) -> int:
    """The default `--workers` of the named backend (its spec's `default_workers`)."""
    return backend_spec(name).default_workers


def _runtime_spec(name: str) -> BackendSpec:
    """The run-time spec `register_judge` / `register_text_model` extend: the one registered
    before, else a bare one (its factories get no `workers`)."""
    found = registered_spec(name)
    if found is not None:
        return found
    return BackendSpec(
        name=name,
        summary="registered at run time",
        default_workers=FALLBACK_WORKERS,
        workers_option=None,
    )


def register_judge(name: str, factory: JudgeFactory) -> None:
    """Make `get_judge(name)` call `factory(model=..., **options)` (tests, notebooks): a
    run-time spec, which wins over an installed backend of that name until `unregister`."""
    key = name.strip().lower()
    register_backend(dataclasses.replace(_runtime_spec(key), judge=factory))


def register_text_model(name: str, factory: TextModelFactory) -> None:
    """Make `get_text_model(name)` call `factory(model=..., **options)`."""
    key = name.strip().lower()
    register_backend(dataclasses.replace(_runtime_spec(key), text_model=factory))


def unregister(name: str) -> None:
    """Forget a backend registered at run time (an installed one of that name comes back)."""
    unregister_backend(name.strip().lower())


def resolve_harness(harness: str | None, backend: str | None = None) -> str:
    """The trigger harness of `backend` (None: of the backend that has harnesses — the
    anthropic backend): `harness`, else its default; InputError naming `--harness` for an
    unknown one."""
    spec = backend_spec(backend) if backend is not None else _harness_spec()
    chosen = (harness or spec.default_harness or "").strip().lower()
    if chosen not in spec.harnesses:
        choices = ", ".join(spec.harnesses) or f"none (backend {spec.name!r} has no harnesses)"
        raise InputError(f"unknown harness {harness!r}; choose one of: {choices}", path="--harness")
    return chosen


def harness_names() -> tuple[str, ...]:
    """Every trigger harness any backend has (the `--harness` choices), in spec order."""
    names = [h for spec in _specs_for_help() for h in spec.harnesses]
    return tuple(dict.fromkeys(names))


def _harness_spec() -> BackendSpec:
    for spec in all_specs().values():
        if spec.harnesses:
            return spec
    raise BackendError("no installed backend has trigger harnesses")


def require_replay(backend: str | None, harness: str | None, option: str) -> None:
    """InputError naming `option` unless `backend` captures a request it replays, what
    `--project` and `--as-user` need: the harness of its spec's `project_harness` (the anthropic
    backend's replay harness), or, for a backend replaying another agent's captured request
    (`estimator` agent-replay: opencode, gemini, codex), its default harness (codex's `replay`,
    not its `session`)."""
    spec = backend_spec(backend)
    if _takes_views(spec, harness):
        return
    specs = sorted(all_specs().values(), key=lambda s: s.name)
    harnesses = [
        f"the {s.name} backend's {s.project_harness} harness" for s in specs if s.project_harness
    ]
    agents = [
        s.name + (f" ({s.default_harness} harness)" if s.harnesses else "")
        for s in specs
        if not s.project_harness and _replays_agent(s)
    ]
    able = " or ".join(harnesses) or "no installed backend"
    if agents:
        able += f" only, or to the replay of the {', '.join(agents)} backends"
    else:
        able += " only"
    raise InputError(
        f"applies to {able} (the backend is {spec.name!r}"
        + (f", harness {harness!r})" if harness else ")"),
        path=option,
    )


def _replays_agent(spec: BackendSpec) -> bool:
    """Whether the backend replays another agent's captured request (`agent` declared, the
    agent-replay estimate)."""
    return spec.agent is not None and spec.estimator == AGENT_REPLAY


def _takes_views(spec: BackendSpec, harness: str | None) -> bool:
    if spec.project_harness is not None:
        return resolve_harness(harness, spec.name) == spec.project_harness
    if not _replays_agent(spec):
        return False
    return not spec.harnesses or resolve_harness(harness, spec.name) == spec.default_harness


def takes_cli_mode(backend: str | None, harness: str | None = None) -> bool:
    """Whether `backend` (on `harness`, else its default one) takes `--cli-mode`
    (`BackendSpec.takes_cli_mode`); InputError naming `--harness` for an unknown harness."""
    spec = backend_spec(backend)
    return spec.takes_cli_mode(resolve_harness(harness, spec.name) if spec.harnesses else None)


def require_cli_mode(backend: str | None, harness: str | None, option: str) -> None:
    """InputError naming `option` unless `backend` (on `harness`) takes a CLI mode: the
    backends that run Claude Code's CLI (`takes_cli_mode`), named from their specs."""
    if takes_cli_mode(backend, harness):
        return
    able = [
        f"--backend {s.name}" + (f" (its {s.cli_mode_harness} harness)" if s.harnesses else "")
        for s in all_specs().values()
        if s.cli_modes or s.cli_mode_harness
    ]
    raise InputError(
        f"applies to {' and '.join(able) or 'no installed backend'} only (the backend is "
        f"{backend_spec(backend).name!r}" + (f", harness {harness!r})" if harness else ")"),
        path=option,
    )


def harness_options(
    harness: str | None = None, *, cache_before_query: bool = False
) -> dict[str, Any]:
    """The anthropic trigger judge's options for a harness name and the replay harness's
    `cache_before_query` (empty for the defaults)."""
    options: dict[str, Any] = {"harness": harness} if harness else {}
    if cache_before_query:
        options["cache_before_query"] = True
    return options


def _construct(
    factory: Callable[..., Any], model: str | None, options: dict[str, Any], model_param: str
) -> Any:
    if model is not None:
        options = {**options, model_param: model}
    return factory(**options)


def get_judge(
    name: str | None = None,
    *,
    model: str | None = None,
    workers: int | None = None,
    **options: Any,
) -> TriggerJudge:
    """A TriggerJudge for the named backend (see `resolve_backend_name`).

    `workers` becomes the judge's `spec.workers_option` (`max_concurrency`: calls in flight;
    the local backend's onnxruntime threads); a `register_judge` factory does not get it. The
    `harness` option picks one of the spec's harnesses (ignored by a backend without any)."""
    spec = backend_spec(name)
    if workers is not None and spec.workers_option:
        options = {**options, spec.workers_option: workers}
    harness = options.pop("harness", None)
    if spec.harnesses:
        factory = spec.load(f"harness:{resolve_harness(harness, spec.name)}")
    else:
        factory = spec.load("judge")
    judge: TriggerJudge = _construct(factory, model, options, spec.model_param)
    from skillbench.backends.placement import place_judge

    return place_judge(judge, spec.sessions)  # on a cluster under --cluster


def get_text_model(
    name: str | None = None, *, model: str | None = None, **options: Any
) -> TextModel:
    """A TextModel for the named backend (see `resolve_backend_name`)."""
    spec = backend_spec(name)
    text_model: TextModel = _construct(spec.load("text_model"), model, options, "model")
    return text_model


def open_cache(path: str | Path | None = None, *, enabled: bool = True) -> CallCache | None:
    """The call cache at `path` (its default location when None), or None for `--no-cache`."""
    from skillbench.backends.cache import CallCache

    return CallCache(path) if enabled else None


def cached_judge(
    name: str | None,
    *,
    model: str | None = None,
    cache: CallCache | None,
    workers: int | None = None,
    **options: Any,
) -> CachingJudge:
    """The named backend's TriggerJudge behind the call cache (`cache=None`: counted only)."""
    from skillbench.backends.cache import CachingJudge

    options = beside_cache(name, options, cache)
    return CachingJudge(get_judge(name, model=model, workers=workers, **options), cache)


def beside_cache(
    name: str | None, options: dict[str, Any], cache: CallCache | None
) -> dict[str, Any]:
    """`options`, plus what the backend keeps beside the call cache in use (`--cache`), never
    in the working directory (its spec's `beside_cache`: the replay harness's templates and
    batch ledgers, the local backend's embedding store); nothing with `--no-cache`."""
    if cache is None:
        return options
    spec = backend_spec(name)
    if spec.beside_cache is None:
        return options
    if spec.harnesses and "harness" in options:
        options = {**options, "harness": resolve_harness(options["harness"], spec.name)}
    hook: Callable[[dict[str, Any], Path], dict[str, Any]] = spec.load("beside_cache")
    return hook(options, cache.path)


def cached_text_model(
    name: str | None, *, model: str | None = None, cache: CallCache | None, **options: Any
) -> CachingTextModel:
    """The named backend's TextModel behind the call cache (`cache=None`: counted only)."""
    from skillbench.backends.cache import CachingTextModel

    return CachingTextModel(get_text_model(name, model=model, **options), cache)


def agent_backend(agent: str) -> str:
    """The backend replaying `agent`'s own request: the one whose spec declares that agent
    (`BackendSpec.agent`, or one of its `agent_aliases`; a backend alias is read as its name:
    `claude_code` is `claude-code`, replayed by the anthropic backend). InputError naming
    `--agent` otherwise."""
    name = _normal(agent)
    for spec in sorted(all_specs().values(), key=lambda s: s.name):
        if spec.agent is not None and name in (spec.agent, *spec.agent_aliases):
            return spec.name
    choices = ", ".join(agent_names())
    raise InputError(f"unknown agent {agent!r}; choose one of: {choices}", path="--agent")


def agent_of(backend: str) -> Any:
    """The `Agent` whose request the backend replays (its judge class's `agent`), or None."""
    spec = all_specs().get(backend.strip().lower())
    return getattr(_load_quietly(spec), "agent", None) if spec is not None and spec.judge else None


def agent_names() -> list[str]:
    """Every agent a backend replays (`BackendSpec.agent`), sorted: `skillbench agents`' default
    and the `--agent` choices (read from the specs: no backend module is imported)."""
    return sorted({spec.agent for spec in _specs_for_help() if spec.agent is not None})


def reference_pair() -> tuple[str, str]:
    """`skillbench agreement`'s default pair (A, B): the backend another declares itself the
    reference for (`BackendSpec.reference_for`: the anthropic replay) and that reference (the
    real Claude Code CLI). BackendError when no installed backend declares one."""
    specs = all_specs()
    for spec in sorted(specs.values(), key=lambda s: s.name):
        stand_in = _normal(spec.reference_for) if spec.reference_for is not None else None
        if stand_in in specs:
            return str(stand_in), spec.name
    raise BackendError("no installed backend is the reference of another (name --backend-a/-b)")


def escalation_backend() -> str:
    """Where `--escalate` re-runs undecided runs: the backend declaring `escalation` (the real
    Claude Code CLI); InputError naming `--escalate` when none is installed."""
    for spec in sorted(all_specs().values(), key=lambda s: s.name):
        if spec.escalation:
            return spec.name
    raise InputError("no installed backend takes escalated runs", path="--escalate")


def escalation_name() -> str:
    """The escalation backend's name for help texts and notes (`--escalate`), never an error."""
    named = sorted(s.name for s in _specs_for_help() if s.escalation)
    return named[0] if named else "escalation"


def _load_quietly(spec: BackendSpec) -> Any:
    """A spec's judge factory, or None when it cannot be loaded."""
    try:
        return spec.load("judge")
    except BackendError:
        return None
