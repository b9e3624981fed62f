"""Backend registry: name resolution, lazy imports, registered fakes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends import registry
from skillbench.backends.base import TriggerOutcome, TriggerRequest
from skillbench.errors import BackendError, InputError


class FakeJudge:
    name = "fake"
    is_proxy = True

    def __init__(self, model: str | None = "fake-default", **options: Any) -> None:
        self.model = model
        self.options = options

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    def versions(self) -> dict[str, str]:
        return {}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        return TriggerOutcome(triggered=False)

    async def aclose(self) -> None:
        pass


@pytest.fixture
def fake_backend() -> Any:
    registry.register_judge("fake", FakeJudge)
    yield "fake"
    registry.unregister("fake")


def test_resolution_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(registry.BACKEND_ENV, raising=False)
    assert registry.resolve_backend_name(None) == "local"
    monkeypatch.setenv(registry.BACKEND_ENV, "anthropic")
    assert registry.resolve_backend_name(None) == "anthropic"
    assert registry.resolve_backend_name("claude_code") == "claude-code"
    assert registry.resolve_backend_name("Local") == "local"


def test_unknown_name_lists_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError) as info:
        registry.resolve_backend_name("gpt")
    message = str(info.value)
    assert "'gpt'" in message and "local" in message and "claude-code" in message
    monkeypatch.setenv(registry.BACKEND_ENV, "nope")
    with pytest.raises(InputError, match="SKILLBENCH_BACKEND"):
        registry.resolve_backend_name(None)


def test_registered_fake_gets_model_and_options(fake_backend: str) -> None:
    judge = registry.get_judge(fake_backend, model="m1", temperature=0.5)
    assert isinstance(judge, FakeJudge)
    assert judge.model == "m1" and judge.options == {"temperature": 0.5}
    assert registry.get_judge(fake_backend).model == "fake-default"
    assert "fake" in registry.available_backends()


def test_local_judge_is_built_lazily(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(registry.BACKEND_ENV, raising=False)
    judge = registry.get_judge(None, seed=3)
    assert judge.name == "local" and judge.identity()["seed"] == 3
    from skillbench.backends.offline.local import LocalJudge

    assert isinstance(judge, LocalJudge)
    assert judge.model == "all-MiniLM-L6-v2-onnx-int8"
    # a model folder is checked for its two files (cheap), never loaded, when the judge is built
    (tmp_path / "model.onnx").write_bytes(b"")
    (tmp_path / "tokenizer.json").write_text("{}")
    assert registry.get_judge("local", model=str(tmp_path)).model == str(tmp_path)
    with pytest.raises(BackendError, match="not found"):  # said once, before any run
        registry.get_judge("local", model=str(tmp_path / "missing"))


def test_building_local_judge_loads_no_model() -> None:
    code = (
        "import sys; from skillbench.backends.registry import get_judge; get_judge('local');"
        "print(sorted(m for m in sys.modules if m in ('onnxruntime', 'tokenizers', 'torch')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_missing_text_model_is_a_backend_error(fake_backend: str) -> None:
    with pytest.raises(BackendError, match="no text model"):
        registry.get_text_model(fake_backend)


def test_importing_registry_imports_no_backend() -> None:
    code = (
        "import sys, skillbench.backends.registry as r; r.resolve_backend_name('anthropic');"
        "print(sorted(m for m in sys.modules if m.startswith(('skillbench.backends.offline.local',"
        "'skillbench.backends.anthropic.sdk','skillbench.backends.claude_cli.session','anthropic','torch'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cached_helpers_wrap_the_named_backend(tmp_path: Path) -> None:
    from skillbench.backends.cache import CachingJudge, CallCache
    from skillbench.backends.registry import cached_judge, open_cache

    assert open_cache(tmp_path / "c.sqlite", enabled=False) is None
    cache = open_cache(tmp_path / "c.sqlite")
    assert isinstance(cache, CallCache)
    judge = cached_judge("local", cache=cache)
    assert isinstance(judge, CachingJudge) and judge.inner.name == "local"
    cache.close()


def test_workers_reach_the_builtin_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-for-test")
    defaults = {n: registry.default_workers(n) for n in ("local", "anthropic", "claude-code")}
    assert defaults == {"local": 1, "anthropic": 16, "claude-code": 4}
    assert registry.default_workers("anthropic") == 16 and registry.default_workers("api") == 16
    assert registry.get_judge("anthropic", workers=32).max_concurrency == 32  # type: ignore[attr-defined]
    assert registry.get_judge("anthropic").max_concurrency == 16  # type: ignore[attr-defined]
    assert registry.get_judge("local", workers=2).max_concurrency == 2  # type: ignore[attr-defined]
    assert registry.get_judge("local").max_concurrency == 1  # type: ignore[attr-defined]


def test_registered_backends_do_not_get_workers(fake_backend: str) -> None:
    judge = registry.get_judge(fake_backend, workers=5)
    assert registry.default_workers(fake_backend) == registry.FALLBACK_WORKERS
    assert not hasattr(judge, "max_concurrency")


def test_workers_reach_the_claude_code_backend() -> None:
    fake = Path(__file__).resolve().parents[1] / "fake_claude" / "claude"
    judge = registry.get_judge("claude-code", workers=6, claude_bin=fake)
    assert judge.max_concurrency == 6  # type: ignore[attr-defined]
    default = registry.get_judge("claude-code", claude_bin=fake)
    assert default.max_concurrency == registry.default_workers("claude-code")  # type: ignore[attr-defined]
