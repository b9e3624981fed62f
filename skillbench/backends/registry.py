"""Backends by name: `local` (default, offline), `anthropic`, `claude-code`, `lexical` (a second
offline proxy, trigger judging only).

The `anthropic` trigger judge has two harnesses (the `harness` option): `replay` (the default:
Claude Code's own captured request, query swapped; needs the `claude` CLI once per skill set) and
`minimal` (skillbench's imitation of Claude Code's routing prompt; not Claude Code's request).

The name comes from the argument, else `$SKILLBENCH_BACKEND`, else `local`. Backend modules are
imported only when asked for, so choosing `local` never imports the Anthropic SDK and vice versa.
Tests may add fake backends with `register_judge` / `register_text_model`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillbench.backends.base import TextModel, TriggerJudge
from skillbench.backends.spec import BackendSpec, all_specs
from skillbench.errors import BackendError, InputError

if TYPE_CHECKING:
    from skillbench.backends.cache import CachingJudge, CachingTextModel, CallCache

BACKEND_ENV = "SKILLBENCH_BACKEND"
DEFAULT_BACKEND = "local"
DEFAULT_WORKERS: dict[str, int] = {"local": 1, "anthropic": 16, "claude-code": 4}
"""Calls in flight when `--workers` is not given: local = onnxruntime threads (one leaves a core
for the rest), anthropic = HTTP calls (the limiter adapts down on persistent 429s), claude-code
= CLI processes (each a Node process of a few hundred MB)."""
FALLBACK_WORKERS = 8  # registered (test / plugin) backends

JudgeFactory = Callable[..., TriggerJudge]
TextModelFactory = Callable[..., TextModel]

# name → (module, judge class, text-model class); the classes are looked up lazily.
_BUILTIN: dict[str, tuple[str, str, str]] = {
    "local": ("skillbench.backends.offline.local", "LocalJudge", "LocalTextModel"),
    "anthropic": ("skillbench.backends.anthropic.sdk", "AnthropicJudge", "AnthropicTextModel"),
    "claude-code": (
        "skillbench.backends.claude_cli.session",
        "ClaudeCodeJudge",
        "ClaudeCodeTextModel",
    ),
    "lexical": ("skillbench.backends.offline.lexical", "LexicalJudge", "LexicalTextModel"),
}
#: Trigger harnesses of the anthropic backend → (module, judge class).
HARNESSES: dict[str, tuple[str, str]] = {
    "replay": ("skillbench.backends.anthropic.replay", "ReplayJudge"),
    "minimal": ("skillbench.backends.anthropic.sdk", "AnthropicJudge"),
}
DEFAULT_HARNESS = "replay"
_ALIASES = {"claude_code": "claude-code", "claudecode": "claude-code", "api": "anthropic"}

_judges: dict[str, JudgeFactory] = {}
_text_models: dict[str, TextModelFactory] = {}


def available_backends() -> list[str]:
    """Every name `resolve_backend_name` accepts (built-in and registered)."""
    return sorted(set(_BUILTIN) | set(_judges) | set(_text_models) | set(all_specs()))


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
    normal = chosen.strip().lower()
    normal = _ALIASES.get(normal, normal)
    if normal not in available_backends():
        choices = ", ".join(available_backends())
        raise InputError(f"unknown backend {chosen!r}; choose one of: {choices}", path=source)
    return normal


def backend_spec(name: str | None = None) -> BackendSpec:
    """The spec of the named backend (see `resolve_backend_name`): what callers ask instead of
    comparing names. A backend registered only by `register_judge` gets a plain spec."""
    backend = resolve_backend_name(name)
    spec = all_specs().get(backend)
    return spec if spec is not None else BackendSpec(name=backend, summary="registered at run time")


#: `--agent claude-code`: Claude Code's own request, replayed by the anthropic backend.
CLAUDE_CODE_AGENT = "claude-code"


def agent_backend(agent: str) -> str:
    """The backend replaying `agent`'s own request: `claude-code` → the anthropic backend (its
    replay harness), any other agent → the backend of that name whose judge replays an agent
    (`agents.judge.AgentReplayJudge`). InputError naming `--agent` otherwise."""
    name = agent.strip().lower()
    if name in (CLAUDE_CODE_AGENT, "claude_code", "claude"):
        return "anthropic"
    if name not in agent_names():
        choices = ", ".join(agent_names())
        raise InputError(f"unknown agent {agent!r}; choose one of: {choices}", path="--agent")
    return name


def agent_names() -> list[str]:
    """`claude-code`, then every backend whose judge replays an agent (its class names one)."""
    replaying = sorted(
        name
        for name, spec in all_specs().items()
        if spec.judge and getattr(_load_quietly(spec), "agent", None) is not None
    )
    return [CLAUDE_CODE_AGENT, *replaying]


def _load_quietly(spec: BackendSpec) -> Any:
    """A spec's judge factory, or None when it cannot be loaded."""
    try:
        return spec.load("judge")
    except BackendError:
        return None


def default_workers(name: str | None = None) -> int:
    """The default `--workers` of the named backend (see `DEFAULT_WORKERS`)."""
    backend = resolve_backend_name(name)
    if backend in DEFAULT_WORKERS:
        return DEFAULT_WORKERS[backend]
    spec = all_specs().get(backend)
    return spec.default_workers if spec is not None else FALLBACK_WORKERS


def register_judge(name: str, factory: JudgeFactory) -> None:
    """Make `get_judge(name)` call `factory(model=..., **options)` (tests, plugins)."""
    _judges[name.strip().lower()] = factory


def register_text_model(name: str, factory: TextModelFactory) -> None:
    """Make `get_text_model(name)` call `factory(model=..., **options)`."""
    _text_models[name.strip().lower()] = factory


def unregister(name: str) -> None:
    """Forget a registered (non built-in) backend."""
    _judges.pop(name, None)
    _text_models.pop(name, None)


def _builtin_class(name: str, index: int) -> Callable[..., Any]:
    module_name = _BUILTIN[name][0]
    class_name = _BUILTIN[name][index]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendError(f"backend {name!r} cannot be loaded: {exc}") from None
    factory = getattr(module, class_name, None)
    if factory is None:
        raise BackendError(f"backend {name!r} does not provide {class_name} yet")
    result: Callable[..., Any] = factory
    return result


def resolve_harness(harness: str | None) -> str:
    """The anthropic backend's trigger harness: `harness`, else `replay`; InputError naming
    `--harness` for an unknown one."""
    chosen = (harness or DEFAULT_HARNESS).strip().lower()
    if chosen not in HARNESSES:
        raise InputError(
            f"unknown harness {harness!r}; choose one of: {', '.join(HARNESSES)}", path="--harness"
        )
    return chosen


def require_replay(backend: str | None, harness: str | None, option: str) -> None:
    """InputError naming `option` unless `backend` is the anthropic backend on the replay
    harness (what `--project` needs: a captured request to take the project's view)."""
    name = resolve_backend_name(backend)
    if name != "anthropic" or resolve_harness(harness) != "replay":
        raise InputError(
            f"applies to the anthropic backend's replay harness only (the backend is {name!r})",
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


def _harness_class(harness: str | None) -> Callable[..., Any]:
    module_name, class_name = HARNESSES[resolve_harness(harness)]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendError(f"anthropic harness cannot be loaded: {exc}") from None
    result: Callable[..., Any] = getattr(module, class_name)
    return result


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

    `workers` becomes a built-in backend's `max_concurrency` (calls in flight; the local
    backend's onnxruntime threads); registered backends do not get it."""
    backend = resolve_backend_name(name)
    spec = all_specs().get(backend)
    plugin = spec is not None and bool(spec.judge) and backend not in _BUILTIN
    if workers is not None and (backend in _BUILTIN or plugin) and backend not in _judges:
        options = {**options, "max_concurrency": workers}
    model_param = "model"
    harness = options.pop("harness", None)
    if backend in _judges:
        factory: Callable[..., Any] = _judges[backend]
    elif backend == "anthropic":
        factory = _harness_class(harness)
    elif backend in _BUILTIN:
        factory = _builtin_class(backend, 1)
        if backend == "local":
            model_param = "model_name"  # LocalJudge(model_name=None, ...)
    elif plugin and spec is not None:  # a backend known by its spec only (the agents)
        factory = spec.load("judge")
        model_param = spec.model_param
    else:
        raise BackendError(f"backend {backend!r} has no trigger judge")
    judge: TriggerJudge = _construct(factory, model, options, model_param)
    return judge


def get_text_model(
    name: str | None = None, *, model: str | None = None, **options: Any
) -> TextModel:
    """A TextModel for the named backend (see `resolve_backend_name`)."""
    backend = resolve_backend_name(name)
    if backend in _text_models:
        factory: Callable[..., Any] = _text_models[backend]
    elif backend in _BUILTIN:
        factory = _builtin_class(backend, 2)
    else:
        raise BackendError(f"backend {backend!r} has no text model")
    text_model: TextModel = _construct(factory, model, options, "model")
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
    """`options`, plus what lives beside the call cache in use (`--cache`), never in the
    working directory: the replay harness's templates and batch ledgers, the local backend's
    embedding store (unless given; nothing with `--no-cache`)."""
    if cache is None:
        return options
    backend = resolve_backend_name(name)
    if backend in _judges:
        return options
    if backend == "local" and "embedding_store" not in options:
        from skillbench.backends.offline.embedding_store import STORE_NAME

        return {**options, "embedding_store": cache.path.parent / STORE_NAME}
    if "template_dir" in options:
        return options
    if backend not in _BUILTIN:  # a spec's judge that keeps templates (the agent backends)
        spec = all_specs().get(backend)
        factory = spec.load("judge") if spec is not None and spec.judge else None
        if getattr(factory, "templates_beside_cache", False):
            from skillbench.backends.anthropic.capture import templates_dir

            return {**options, "template_dir": templates_dir(cache.path)}
        return options
    if backend != "anthropic":
        return options
    if resolve_harness(options.get("harness")) != "replay":
        return options
    from skillbench.backends.anthropic.capture import templates_dir

    return {**options, "template_dir": templates_dir(cache.path)}


def cached_text_model(
    name: str | None, *, model: str | None = None, cache: CallCache | None, **options: Any
) -> CachingTextModel:
    """The named backend's TextModel behind the call cache (`cache=None`: counted only)."""
    from skillbench.backends.cache import CachingTextModel

    return CachingTextModel(get_text_model(name, model=model, **options), cache)
