"""Backend specs: the built-ins' parts are real and live in `skillbench.backends` (no spec
names a higher layer), and the registry reads every backend fact from the spec."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends import registry
from skillbench.backends.cache import CallCache
from skillbench.backends.spec import (
    ESTIMATOR_KINDS,
    EXECUTOR_KINDS,
    BackendSpec,
    cli_packages,
    entry_point_specs,
    load_target,
    register_backend,
)
from skillbench.behavior.executor_choice import make_executor
from skillbench.behavior.executors import ClaudeCodeExecutor, TextModelExecutor
from skillbench.errors import BackendError, InputError

BUILTINS = {"local", "anthropic", "claude-code", "lexical"}


def string_parts(spec: BackendSpec) -> list[str]:
    parts = [spec.judge, spec.text_model, spec.beside_cache]
    parts += list(spec.harnesses.values())
    if spec.executor not in EXECUTOR_KINDS:
        parts.append(spec.executor)
    if spec.estimator not in ESTIMATOR_KINDS:
        parts.append(spec.estimator)
    return [p for p in parts if isinstance(p, str)]


def test_builtins_register_by_entry_point() -> None:
    assert {s.name for s in entry_point_specs()} >= BUILTINS


@pytest.mark.parametrize("spec", entry_point_specs(), ids=lambda s: s.name)
def test_every_named_part_exists_inside_backends(spec: BackendSpec) -> None:
    if spec.name not in BUILTINS:
        pytest.skip("a plugin's parts live in its own package")
    for target in string_parts(spec):
        assert target.startswith("skillbench.backends."), target  # never a higher layer
        assert callable(load_target(target, spec.name)), target
    assert spec.executor is None or spec.executor in EXECUTOR_KINDS
    assert (spec.default_harness in spec.harnesses) if spec.harnesses else True


def test_register_judge_overrides_a_builtin_until_unregistered() -> None:
    made: list[dict[str, Any]] = []
    registry.register_judge("lexical", lambda **options: made.append(options) or object())
    try:
        registry.get_judge("lexical", workers=3, model="m")
        assert made == [{"model": "m"}]  # a run-time factory gets no workers
        assert registry.default_workers("lexical") == registry.FALLBACK_WORKERS
    finally:
        registry.unregister("lexical")
    assert type(registry.get_judge("lexical")).__name__ == "LexicalJudge"


def test_beside_cache_comes_from_the_spec(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "c.sqlite")
    try:
        local = registry.beside_cache("local", {}, cache)
        assert local == {"embedding_store": tmp_path / "embeddings.sqlite"}
        replay = registry.beside_cache("anthropic", {"harness": "Replay"}, cache)
        assert replay["template_dir"] == tmp_path / "replay-templates"
        assert "template_dir" not in registry.beside_cache(
            "anthropic", {"harness": "minimal"}, cache
        )
        assert registry.beside_cache("lexical", {}, cache) == {}
    finally:
        cache.close()


def test_executor_kinds_and_a_plugin_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-for-test")
    fake = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(fake))
    assert isinstance(make_executor("anthropic"), TextModelExecutor)
    assert isinstance(make_executor("claude-code", workers=3), ClaudeCodeExecutor)
    with pytest.raises(BackendError, match="replays recorded sample runs"):
        make_executor("local")
    with pytest.raises(BackendError, match="has no executor"):
        make_executor("lexical")
    seen: dict[str, Any] = {}

    def factory(model: str | None, **options: Any) -> Any:
        seen.update(options, model=model)
        return make_executor("anthropic")

    spec = registry.backend_spec("lexical")
    register_backend(dataclasses.replace(spec, name="plug", executor=factory))
    try:
        make_executor("plug", model="m", timeout=5, workers=2)
    finally:
        registry.unregister("plug")
    assert seen == {"model": "m", "timeout": 5, "max_concurrency": 2, "max_copy": seen["max_copy"]}


def test_require_replay_reads_the_project_harness() -> None:
    registry.require_replay("anthropic", None, "--project")
    for backend, harness in (("anthropic", "minimal"), ("local", None), ("claude-code", None)):
        with pytest.raises(InputError, match=r"replay harness only, or to the replay of the codex"):
            registry.require_replay(backend, harness, "--project")


def test_require_replay_takes_the_agents_replays_not_a_session_harness() -> None:
    """--project / --as-user reach opencode, gemini and codex replays (issue 32 item 5), not
    Codex's session harness, whose sessions run in bare folders of their own."""
    for backend in ("opencode", "gemini", "codex"):
        registry.require_replay(backend, None, "--as-user")
    registry.require_replay("codex", "replay", "--project")
    with pytest.raises(InputError, match="--project: applies to") as raised:
        registry.require_replay("codex", "session", "--project")
    assert "harness 'session'" in str(raised.value)


def test_a_plugin_estimator_factory_is_used_and_an_unknown_kind_refused() -> None:
    from skillbench.backends.spec import register_backend, unregister_backend
    from skillbench.cost.estimate import LocalEstimator, get_estimator

    made: list[str | None] = []

    def factory(model: str | None = None, **_: object) -> LocalEstimator:
        made.append(model)
        return LocalEstimator(backend="priced-toy")

    register_backend(BackendSpec(name="priced-toy", summary="t", estimator=factory))
    try:
        assert isinstance(get_estimator("priced-toy", model="m"), LocalEstimator)
        assert made == ["m"]
    finally:
        unregister_backend("priced-toy")
    with pytest.raises(ValueError, match="estimator 'cheap'"):
        BackendSpec(name="bad", summary="t", estimator="cheap")


def test_every_cli_the_builtins_run_is_pinned_as_the_makefile_installs_it() -> None:
    """The GitHub Action installs `cli_package` (npm) for a backend that runs a CLI: the same
    pinned version `make claude` / `make agents` put under .tools/ (`make agents` reads its list
    from the specs: tests/backends/test_packages.py)."""
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text(encoding="utf-8")
    values = dict(
        (name.strip(), value.strip())
        for name, _, value in (line.partition(":=") for line in makefile.splitlines())
        if value
    )
    from skillbench.backends.claude_cli.tested import CLAUDE_PIN  # the Makefile reads it

    with_cli = [s for s in entry_point_specs() if s.cli]
    assert {s.name for s in with_cli} >= {"anthropic", "claude-code", "codex", "gemini"}
    for spec in with_cli:
        assert spec.cli_make_target in ("claude", "agents"), spec.name
    assert cli_packages("claude") == [f"@anthropic-ai/claude-code@{CLAUDE_PIN}"]
    assert "tested.py" in values["TESTED_CLAUDE"]  # the Makefile's CLAUDE_VERSION is read there


def test_needs_cli_follows_the_harness_and_behavior() -> None:
    anthropic = registry.backend_spec("anthropic")
    assert anthropic.needs_cli() and anthropic.needs_cli("replay")
    assert not anthropic.needs_cli("minimal") and not anthropic.needs_cli(behavior=True)
    assert registry.backend_spec("claude-code").needs_cli(behavior=True)
    assert not registry.backend_spec("local").needs_cli()


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"cli": "x", "cli_harnesses": ("nope",)}, "cli_harnesses must be among its harnesses"),
        ({"cli_package": "x@1"}, "cli_package and cli_harnesses need a cli"),
    ],
)
def test_a_cli_the_spec_cannot_describe_is_refused(fields: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        BackendSpec(name="broken", summary="", **fields)


def test_a_backend_extra_is_one_pyproject_declares() -> None:
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    extras = {s.name: s.extra for s in entry_point_specs() if s.extra}
    assert extras == {"local": "local", "codex": "agents", "gemini": "agents"}
    assert set(extras.values()) <= set(declared["optional-dependencies"])
