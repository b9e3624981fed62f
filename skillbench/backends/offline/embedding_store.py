"""Sentence embeddings kept on disk, so a large catalog is embedded once, not once per run.

The local backend embeds every skill's description and name; a 20,000-skill catalog is 40,000
texts, minutes of CPU. `EmbeddingStore` keeps each vector (384 float32, the exact bytes) in a
SQLite file beside the call cache (`embeddings.sqlite`), keyed by SHA-256 of the model's
fingerprint (model name and the versions of everything that computes the floats) and the text,
so a later run on the same catalog, with another skill or eval set, reads the vectors instead.
Vectors are written after every chunk, so an interrupted run keeps what it embedded.

Best effort: a store that cannot be read or written (locked, read-only, damaged) is skipped with
one warning; embedding then happens in memory, as without a store. Nothing but vectors and
hashes is stored: never a text.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

LOG = logging.getLogger("skillbench.local")
STORE_NAME = "embeddings.sqlite"
_CHUNK = 500  # keys per SELECT (below SQLite's variable limit)
_SCHEMA = "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"


def beside_cache(options: dict[str, Any], cache_path: Path) -> dict[str, Any]:
    """The local spec's `beside_cache`: the embedding store beside the call cache in use
    (unless `embedding_store` is given)."""
    if "embedding_store" in options:
        return options
    return {**options, "embedding_store": cache_path.parent / STORE_NAME}


class EmbeddingStore:
    """float32 vectors of one model (`fingerprint`) in a SQLite file at `path`."""

    def __init__(self, path: str | os.PathLike[str], fingerprint: str, dimension: int) -> None:
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.dimension = dimension
        self.broken: str | None = None

    def key(self, text: str) -> str:
        """The row key of `text`: SHA-256 of the fingerprint and the text."""
        blob = f"{self.fingerprint}\0{text}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(blob).hexdigest()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(_SCHEMA)
        return conn

    def _give_up(self, exc: BaseException) -> None:
        if self.broken is None:
            self.broken = str(exc)
            LOG.warning("embedding store %s not used: %s", self.path, exc)

    def get_many(self, texts: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The stored vectors of those `texts` that have one."""
        if self.broken is not None or not texts or not self.path.is_file():
            return {}
        keys = {self.key(t): t for t in texts}
        found: dict[str, NDArray[np.float32]] = {}
        try:
            conn = self._connect()
            try:
                wanted = list(keys)
                for start in range(0, len(wanted), _CHUNK):
                    part = wanted[start : start + _CHUNK]
                    marks = ",".join("?" * len(part))
                    rows = conn.execute(
                        f"SELECT key, vector FROM embeddings WHERE key IN ({marks})", part
                    ).fetchall()
                    for key, blob in rows:
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if vector.shape == (self.dimension,):
                            found[keys[key]] = vector.copy()
            finally:
                conn.close()
        except (sqlite3.Error, OSError) as exc:
            self._give_up(exc)
            return {}
        return found

    def put_many(self, pairs: Iterable[tuple[str, NDArray[np.float32]]]) -> None:
        """Store vectors (one transaction; a text already stored is kept)."""
        if self.broken is not None:
            return
        rows = [(self.key(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in pairs]
        if not rows:
            return
        try:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(
                    "INSERT OR IGNORE INTO embeddings (key, vector) VALUES (?, ?)", rows
                )
                conn.execute("COMMIT")
            finally:
                conn.close()
        except (sqlite3.Error, OSError) as exc:
            self._give_up(exc)
