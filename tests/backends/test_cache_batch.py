"""A proxy judge's answers (free to recompute) are written in batches, one transaction each,
and served from memory meanwhile; a paid judge's answer is written at once (issue 38)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from test_cache import ScriptedJudge, request

from skillbench.backends import cache as cache_module
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.redaction import redact_data, redacted_json


def stored(path: Path) -> int:
    """Answers another connection sees in the cache file."""
    with sqlite3.connect(path) as db:
        count: int = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        return count


def ask(judge: CachingJudge, queries: list[str]) -> list[bool]:
    async def each() -> list[bool]:
        return [(await judge.judge(request(q))).triggered for q in queries]

    return asyncio.run(each())


def test_a_proxy_judges_answers_wait_for_their_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "BATCH_SECONDS", 3600.0)
    path = tmp_path / "c.sqlite"
    queries = [f"csv query {i}" for i in range(5)]
    with CallCache(path) as cache:
        inner = ScriptedJudge()
        judge = CachingJudge(inner, cache)
        first = ask(judge, queries)
        assert stored(path) == 0  # kept in memory, not one transaction per answer
        assert ask(judge, queries) == first and len(inner.seen) == 5  # served from memory
        assert judge.hits == 5 and cache.has(CachingJudge(inner, None).key(request(queries[0])))
        cache.flush()
        assert stored(path) == 5
    with CallCache(path) as again:
        assert ask(CachingJudge(ScriptedJudge(), again), queries) == first


def test_a_batch_is_written_when_full_or_due_and_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "BATCH_SECONDS", 3600.0)
    monkeypatch.setattr(cache_module, "BATCH_ROWS", 3)
    path = tmp_path / "c.sqlite"
    cache = CallCache(path)
    judge = CachingJudge(ScriptedJudge(), cache)
    ask(judge, ["csv 1", "csv 2"])
    assert stored(path) == 0
    ask(judge, ["csv 3"])  # the third fills the batch
    assert stored(path) == 3
    ask(judge, ["csv 4"])
    cache.close()  # a run that ends (or is cancelled) writes what it kept
    assert stored(path) == 4
    monkeypatch.setattr(cache_module, "BATCH_SECONDS", 0.0)  # the oldest is always due
    with CallCache(path) as due:
        ask(CachingJudge(ScriptedJudge(), due), ["csv 5"])
        assert stored(path) == 5


def test_a_paid_judges_answer_is_written_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "BATCH_SECONDS", 3600.0)

    class Paid(ScriptedJudge):
        is_proxy = False

    path = tmp_path / "c.sqlite"
    with CallCache(path) as cache:
        ask(CachingJudge(Paid(), cache), ["csv paid"])
        assert stored(path) == 1  # a kill now loses nothing that was paid for


def test_a_batched_answer_that_lost_a_race_is_kept_as_superseded(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with CallCache(path) as first, CallCache(path) as second:
        second.put("k", {"text": "theirs"}, backend="b", kind="trigger", batch=True)
        assert first.put("k", {"text": "mine"}, backend="b", kind="trigger") is None
        second.flush()
        assert first.get("k") == {"text": "mine"}
        assert [s["value"] for s in first.superseded("k")] == [{"text": "theirs"}]


@pytest.mark.parametrize(
    "value",
    [
        {"text": "nothing here", "n": [1, 2.5, None, True], "nested": {"a": ("x", "y")}},
        {"text": "key sk-ant-api03-" + "Q" * 30, "b": "Bearer abcdefghijklmnopqrstu"},
        {"text": 'a "quoted" secret: pa"ss\\word-1234 and its tail ss\\word-1234'},
        {"text": "tail only: ...TAILSECRET99 here"},
    ],
)
def test_redacted_json_is_the_text_of_the_redacted_copy(
    value: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_TOKEN", 'pa"ss\\word-1234')  # JSON writes it escaped
    monkeypatch.setenv("SB_OTHER_SECRET", "x" * 20 + "TAILSECRET99")
    for dumps in ({"sort_keys": True, "ensure_ascii": False}, {}):
        expected = json.dumps(redact_data(value), **dumps)
        assert redacted_json(value, **dumps) == expected
