"""The SQLite call cache: hits and misses, concurrency, secrets, errors, resume."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends import cache as cache_module
from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
    cache_key,
)
from skillbench.backends.cache import (
    CACHE_ENV,
    CachingJudge,
    CachingTextModel,
    CallCache,
    SecretInCacheError,
    assert_no_secrets,
    default_cache_path,
    scrub_secrets,
)
from skillbench.errors import BackendError

FAKE_KEY = "sk-ant-api03-" + "Z" * 40

TARGET = SkillEntry("csv-cleanup", "Repairs messy CSV files. Use when a CSV will not load.")
OTHER = SkillEntry("pdf-form-filler", "Fills PDF forms. Use when a PDF form must be completed.")


def request(query: str = "fix my csv", run_index: int = 0) -> TriggerRequest:
    return TriggerRequest(target=TARGET, catalog=(OTHER,), query=query, run_index=run_index)


class ScriptedJudge:
    """Fires the target when the query mentions csv; fails on queries containing 'boom'."""

    name = "scripted"
    model: str | None = "scripted-1"
    is_proxy = True

    def __init__(self, extra_identity: dict[str, Any] | None = None) -> None:
        self.seen: list[TriggerRequest] = []
        self.extra = extra_identity or {}

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, **self.extra}

    def versions(self) -> dict[str, str]:
        return {"scripted": "1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        self.seen.append(request)
        if "boom" in request.query:
            return TriggerOutcome(triggered=False, error="timeout after 30 s")
        hit = "csv" in request.query
        return TriggerOutcome(
            triggered=hit,
            fired=request.target.name if hit else None,
            usage=CallUsage(input_tokens=100, output_tokens=5, cost_usd=0.001),
            detail={"note": f"echo {FAKE_KEY}"},
        )

    async def aclose(self) -> None:
        pass


def test_put_get_roundtrip_and_miss(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        assert cache.get("nope") is None
        cache.put("k1", {"a": 1, "b": [1, 2]}, backend="x", kind="trigger")
        assert cache.get("k1") == {"a": 1, "b": [1, 2]}
        stats = cache.stats()
        assert stats.entries == 1
        assert stats.by_backend == {"x": 1}
        assert stats.by_kind == {"trigger": 1}
        cache.clear()
        assert cache.get("k1") is None
        assert cache.stats().entries == 0


def test_wal_mode_and_default_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "env" / "cache.sqlite"))
    assert default_cache_path() == tmp_path / "env" / "cache.sqlite"
    with CallCache() as cache:
        cache.put("k", {"v": 1}, backend="x", kind="text")
    conn = sqlite3.connect(tmp_path / "env" / "cache.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "skillbench" / "cache.sqlite"


def test_the_default_cache_is_the_users_not_the_working_directorys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20.3: the CLI kept its cache in ./.skillbench (one per working directory), notebooks and
    `report` in the user cache folder: a cached CLI run paid again in its report."""
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_path() == tmp_path / "home" / ".cache" / "skillbench" / "cache.sqlite"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG rule: absolute only
    assert default_cache_path() == tmp_path / "home" / ".cache" / "skillbench" / "cache.sqlite"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "skillbench" / "cache.sqlite"
    from skillbench.reports.paths import default_cache_path as notebooks_cache

    assert notebooks_cache() == default_cache_path()
    with CallCache() as cache:
        cache.put("k", {"v": 1}, backend="x", kind="text")
    assert not (tmp_path / ".skillbench").exists()


def lock_exclusively(path: Path) -> sqlite3.Connection:
    """A second connection (as another process would) holding the write lock."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    return other


async def test_a_locked_cache_keeps_the_answers_and_writes_them_when_it_frees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """27.14: another process holding the cache's lock past the busy timeout turned answered
    runs into errors and threw the answers away. They are kept, served, and written later."""
    monkeypatch.setattr(cache_module, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(cache_module, "FLUSH_BACKOFF_S", 0.0, raising=False)
    path = tmp_path / "c.sqlite"
    with CallCache(path) as cache:
        inner = ScriptedJudge()
        judge = CachingJudge(inner, cache, run_id="run-1")
        cache.get("warm")  # this thread's connection exists before the lock is taken
        other = lock_exclusively(path)
        outcomes = [await judge.judge(request(run_index=i)) for i in range(3)]
        assert all(o.error is None and o.triggered for o in outcomes)
        again = await judge.judge(request(run_index=0))  # served from memory, not re-asked
        assert again.cached and len(inner.seen) == 3
        other.execute("COMMIT")
        other.close()
        assert cache.flush() == []
    with CallCache(path) as reopened:
        assert all(reopened.has(judge.key(request(run_index=i)) or "") for i in range(3))
        assert set(reopened.journal("run-1").values()) == {"done"}


async def test_a_cache_locked_to_the_end_warns_and_the_results_stand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(cache_module, "FLUSH_BACKOFF_S", 0.0, raising=False)
    path = tmp_path / "c.sqlite"
    cache = CallCache(path)
    judge = CachingJudge(ScriptedJudge(), cache)
    cache.get("warm")
    other = lock_exclusively(path)
    try:
        outcomes = await judge.judge_many([request(run_index=i) for i in range(4)])
        assert all(o.error is None and o.triggered for o in outcomes)
        (warning,) = cache.flush()
        assert "call cache write failed: 4 answer(s) not stored" in warning
        assert str(path) in warning and "results stand" in warning
        cache.close()
    finally:
        other.execute("ROLLBACK")
        other.close()
    with CallCache(path) as reopened:
        assert reopened.stats().entries == 0


async def test_caching_judge_hits_and_misses(tmp_path: Path) -> None:
    inner = ScriptedJudge()
    with CallCache(tmp_path / "c.sqlite") as cache:
        judge = CachingJudge(inner, cache)
        first = await judge.judge(request())
        again = await judge.judge(request())
        other_run = await judge.judge(request(run_index=1))
        assert (judge.calls, judge.hits) == (2, 1)
        assert not first.cached and again.cached and not other_run.cached
        assert again.triggered == first.triggered and again.fired == first.fired
        assert again.usage.input_tokens == 100
        assert len(inner.seen) == 2
        # A new wrapper over the same file: an unchanged re-run makes zero calls.
        rerun = CachingJudge(ScriptedJudge(), cache)
        await rerun.judge(request())
        await rerun.judge(request(run_index=1))
        assert (rerun.calls, rerun.hits) == (0, 2)


async def test_identity_change_misses(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        await CachingJudge(ScriptedJudge({"temperature": 1.0}), cache).judge(request())
        judge = CachingJudge(ScriptedJudge({"temperature": 0.5}), cache)
        await judge.judge(request())
        assert (judge.calls, judge.hits) == (1, 0)


async def test_errors_are_never_cached(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        judge = CachingJudge(ScriptedJudge(), cache)
        first = await judge.judge(request("boom csv"))
        second = await judge.judge(request("boom csv"))
        assert first.error and second.error and not second.cached
        assert (judge.calls, judge.hits) == (2, 0)
        assert cache.stats().entries == 0


async def test_no_cache_only_counts(tmp_path: Path) -> None:
    judge = CachingJudge(ScriptedJudge(), None)
    await judge.judge(request())
    await judge.judge(request())
    assert (judge.calls, judge.hits) == (2, 0)
    assert judge.stats.calls == 2


async def test_no_secret_is_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_key = "plain-looking-secret-value-123456"
    monkeypatch.setenv("ANTHROPIC_API_KEY", env_key)
    path = tmp_path / "c.sqlite"
    with CallCache(path) as cache:
        judge = CachingJudge(ScriptedJudge(), cache)
        await judge.judge(request())
        cache.put("k2", {"text": f"key={env_key} and {FAKE_KEY}"}, backend="x", kind="text")
        hit = await judge.judge(request())
        assert hit.detail["note"] == "echo [REDACTED]"
    raw = path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("c.sqlite*"))
    assert b"sk-ant-" not in raw
    assert env_key.encode() not in raw


@pytest.mark.parametrize(
    "identity",
    [
        {"backend": "anthropic", "api_key": "anything"},
        {"backend": "anthropic", "headers": {"X-API-Key": "anything"}},
        {"backend": "anthropic", "headers": {"Authorization": "Bearer x"}},
        {"backend": "anthropic", "flags": ["--key", FAKE_KEY]},
    ],
)
def test_identities_with_credentials_are_refused(identity: dict[str, Any]) -> None:
    with pytest.raises(SecretInCacheError) as info:
        assert_no_secrets(identity)
    assert FAKE_KEY not in str(info.value)
    assert "anything" not in str(info.value)


async def test_caching_judge_refuses_secret_identity(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        judge = CachingJudge(ScriptedJudge({"api_key": FAKE_KEY}), cache)
        with pytest.raises(SecretInCacheError):
            await judge.judge(request())
        assert cache.stats().entries == 0


def test_scrub_nested() -> None:
    data = {"a": [FAKE_KEY, {"b": f"x {FAKE_KEY} y"}], "n": 3}
    assert scrub_secrets(data) == {"a": ["[REDACTED]", {"b": "x [REDACTED] y"}], "n": 3}


async def test_resume_after_interruption(tmp_path: Path) -> None:
    """An eval interrupted part-way resumes: finished calls come from the cache."""
    queries = [f"csv query {i}" for i in range(6)]

    class Interrupted(Exception):
        pass

    class DiesAfter(ScriptedJudge):
        def __init__(self, limit: int) -> None:
            super().__init__()
            self.limit = limit

        async def judge(self, request: TriggerRequest) -> TriggerOutcome:
            if len(self.seen) >= self.limit:
                raise Interrupted
            return await super().judge(request)

    with CallCache(tmp_path / "c.sqlite") as cache:
        first = CachingJudge(DiesAfter(4), cache, run_id="run-1")
        with pytest.raises(Interrupted):
            for q in queries:
                await first.judge(request(q))
        journal = cache.journal("run-1")
        assert sorted(journal.values()) == ["done"] * 4 + ["started"]
        assert len(cache.unfinished("run-1")) == 1

        resumed = CachingJudge(ScriptedJudge(), cache, run_id="run-1")
        outcomes = [await resumed.judge(request(q)) for q in queries]
        assert (resumed.calls, resumed.hits) == (2, 4)
        assert [o.cached for o in outcomes] == [True] * 4 + [False] * 2
        assert cache.unfinished("run-1") == []
        assert cache.stats().runs == 1


async def test_judge_many_uses_inner_batch(tmp_path: Path) -> None:
    class Batched(ScriptedJudge):
        batches: list[int]

        async def judge_many(self, requests: list[TriggerRequest]) -> list[TriggerOutcome]:
            self.batches = [*getattr(self, "batches", []), len(requests)]
            return [await self.judge(r) for r in requests]

    inner = Batched()
    with CallCache(tmp_path / "c.sqlite") as cache:
        judge = CachingJudge(inner, cache)
        await judge.judge(request("csv 0"))
        outcomes = await judge.judge_many([request(f"csv {i}") for i in range(3)])
        assert [o.cached for o in outcomes] == [True, False, False]
        assert inner.batches == [2]
        assert (judge.calls, judge.hits) == (3, 1)


async def test_concurrent_tasks_count_exactly(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        judge = CachingJudge(ScriptedJudge(), cache)
        await asyncio.gather(*(judge.judge(request(f"csv {i}")) for i in range(20)))
        await asyncio.gather(*(judge.judge(request(f"csv {i}")) for i in range(20)))
        assert (judge.calls, judge.hits) == (20, 20)


def test_threads_write_concurrently(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "c.sqlite")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(50):
                cache.put(f"{worker}-{i}", {"w": worker, "i": i}, backend="t", kind="trigger")
                assert cache.get(f"{worker}-{i}") == {"w": worker, "i": i}
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert cache.stats().entries == 300
    cache.close()


def _process_worker(path: str, worker: int) -> None:
    with CallCache(path) as cache:
        for i in range(40):
            cache.put(f"p{worker}-{i}", {"w": worker, "i": i}, backend="p", kind="trigger")
            cache.mark("shared-run", f"p{worker}-{i}", "done")


def test_processes_write_concurrently(tmp_path: Path) -> None:
    path = str(tmp_path / "c.sqlite")
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_process_worker, args=(path, w)) for w in range(4)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(timeout=60)
    assert [p.exitcode for p in processes] == [0, 0, 0, 0]
    with CallCache(path) as cache:
        assert cache.stats().entries == 160
        assert len(cache.journal("shared-run")) == 160
        assert cache.get("p3-39") == {"w": 3, "i": 39}


def test_cache_key_includes_run_index() -> None:
    identity = {"backend": "x"}
    assert cache_key(identity, request(run_index=0).cache_fields()) != cache_key(
        identity, request(run_index=1).cache_fields()
    )


class EchoModel:
    name = "echo"
    model: str | None = "echo-1"

    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        self.calls += 1
        if self.fail:
            raise BackendError("server unreachable")
        return TextResponse(
            text=request.prompt.upper(), usage=CallUsage(output_tokens=3), parsed={"n": 1}
        )

    async def aclose(self) -> None:
        pass


async def test_caching_text_model(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        model = CachingTextModel(EchoModel(), cache)
        first = await model.complete(TextRequest(prompt="hi", purpose="improver"))
        second = await model.complete(TextRequest(prompt="hi", purpose="improver"))
        third = await model.complete(TextRequest(prompt="hi", purpose="improver", run_index=1))
        assert first.text == second.text == "HI" and second.cached and not third.cached
        assert second.parsed == {"n": 1} and second.usage.output_tokens == 3
        assert (model.calls, model.hits) == (2, 1)
        assert cache.stats().by_kind == {"improver": 2}

        failing = CachingTextModel(EchoModel(fail=True), cache)
        for _ in range(2):
            with pytest.raises(BackendError):
                await failing.complete(TextRequest(prompt="other"))
        assert failing.calls == 2 and cache.stats().entries == 2


def test_a_free_calls_usage_is_dumped_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every proxy run stores the zero usage: its dump is made once and copied (the same dict
    `model_dump` gives); any other usage, or a zero written as another type, is dumped as ever."""
    from skillbench.backends import base as base_module

    expected = {
        name: CallUsage(5, 7, 1, 2, 0.25).model_dump()[name] * 0
        for name in CallUsage().model_dump()
    }
    dumped: list[int] = []
    real = CallUsage.model_dump

    def counting(self: CallUsage, **kwargs: Any) -> dict[str, Any]:
        dumped.append(1)
        return real(self, **kwargs)

    monkeypatch.setattr(base_module, "_ZERO_USAGE", None)
    monkeypatch.setattr(CallUsage, "model_dump", counting)
    first = [TriggerOutcome(triggered=True).to_cache()["usage"] for _ in range(50)]
    assert first == [expected] * 50 and len(dumped) == 1
    first[0]["input_tokens"] = 99  # each caller owns its copy
    assert TriggerOutcome(triggered=True).to_cache()["usage"] == expected
    paid = CallUsage(5, 7, 1, 2, 0.25)
    assert TriggerOutcome(triggered=True, usage=paid).to_cache()["usage"] == real(paid)
    odd = CallUsage()
    odd.cost_usd = 0  # an int, written as 0 not 0.0: dumped, not copied
    assert type(TriggerOutcome(triggered=True, usage=odd).to_cache()["usage"]["cost_usd"]) is int
