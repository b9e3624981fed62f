"""The SQLite call cache and run journal: zero-call re-runs and resumable evals.

One table `calls` maps the SHA-256 `cache_key(identity, request_fields)` to the JSON answer, the
backend and the kind of call; one table `journal` records, per run id, which keys a run started
and finished, so an interrupted eval can be resumed (what was done is served from the cache).
The database runs in WAL mode with a busy timeout and one connection per thread, so several
threads and processes may read and write it at once.

Secrets never enter the cache: identities naming a key field are refused, and any string that
looks like an Anthropic API key (or equals the current `ANTHROPIC_API_KEY`) is scrubbed from
stored values.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from skillbench.backends.base import (
    CallUsage,
    TextModel,
    TextRequest,
    TextResponse,
    TriggerJudge,
    TriggerOutcome,
    TriggerRequest,
    cache_key,
    judge_all,
)
from skillbench.errors import InputError
from skillbench.redaction import redact_data, redacted_json

CACHE_ENV = "SKILLBENCH_CACHE"
BUSY_TIMEOUT_MS = 30_000
#: After a write failed on a lock: attempts to write the answers kept in memory (the first
#: after FLUSH_BACKOFF_S, doubling), then once more when the cache is flushed at the end.
FLUSH_ATTEMPTS = 4
FLUSH_BACKOFF_S = 1.0
#: Answers of a proxy judge (free to recompute) are written in batches, one transaction each:
#: when this many are kept or the oldest has waited this long. A killed run loses at most those.
BATCH_ROWS = 1_000
BATCH_SECONDS = 0.5
LOG = logging.getLogger("skillbench.cache")

PendingRow = tuple[str, str, str, str | None, str]
"""An answer not yet written: (json, backend, kind, model, created_at)."""

_SECRET_FIELDS = frozenset({"api_key", "apikey", "authorization", "x_api_key", "auth_token"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    backend TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS superseded (
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    backend TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,
    status TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);
"""


class SecretInCacheError(InputError, ValueError):
    """An identity handed to the cache carries a credential (a key typed as `--model`…)."""


def default_cache_path() -> Path:
    """`$SKILLBENCH_CACHE`, else the user's cache folder (`user_cache_path`): one cache shared
    by the CLI, notebooks and `skillbench report`, whatever the working directory, so a cached
    CLI run makes its report free, and nothing is written into the user's project."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else user_cache_path()


def user_cache_path() -> Path:
    """`$XDG_CACHE_HOME/skillbench/cache.sqlite` (an absolute `XDG_CACHE_HOME`, else
    `~/.cache/skillbench/cache.sqlite`), the XDG base-directory rule platformdirs follows."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "skillbench" / "cache.sqlite"


def scrub_secrets(value: Any) -> Any:
    """A copy of `value` with every secret redacted (skillbench.redaction)."""
    return redact_data(value)


def _is_secret_field(name: str) -> bool:
    return name.strip().lower().replace("-", "_") in _SECRET_FIELDS


def assert_no_secrets(identity: dict[str, Any]) -> None:
    """Refuse an identity with a credential field (api_key, authorization, x-api-key) or a key
    value. The message never repeats the value."""

    def walk(value: Any, where: str) -> None:
        if isinstance(value, dict):
            for name, item in value.items():
                if _is_secret_field(str(name)):
                    raise SecretInCacheError(
                        f"identity field {where}{name} looks like a credential"
                    )
                walk(item, f"{where}{name}.")
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                walk(item, f"{where}{index}.")
        elif isinstance(value, str) and scrub_secrets(value) != value:
            raise SecretInCacheError(f"identity value at {where.rstrip('.')} contains an API key")

    walk(identity, "")


def _add_model_column(conn: sqlite3.Connection) -> None:
    """Caches written before answers recorded their model get the (nullable) column."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
    if "model" not in columns:
        try:
            conn.execute("ALTER TABLE calls ADD COLUMN model TEXT")
        except sqlite3.OperationalError as exc:  # another process added it just now
            if "duplicate column" not in str(exc).lower():
                raise


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _as_dict(blob: str) -> dict[str, Any] | None:
    value = json.loads(blob)
    return value if isinstance(value, dict) else None


@contextlib.contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction taken at once (BEGIN IMMEDIATE), rolled back on any failure."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _insert_or_supersede(conn: sqlite3.Connection, key: str, row: PendingRow) -> str | None:
    """Store `row` under `key` unless an answer is stored; None when this one was stored,
    else the stored answer (this one goes to `superseded` when it differs)."""
    blob, backend, kind, model, at = row
    inserted = conn.execute(
        "INSERT OR IGNORE INTO calls (key, value, backend, kind, created_at, model)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (key, blob, backend, kind, at, model),
    ).rowcount
    if inserted == 1:  # the common case: one statement, this answer is the answer
        return None
    found = conn.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
    stored = str(found[0]) if found is not None else blob
    if stored != blob:
        conn.execute(
            "INSERT INTO superseded (key, value, backend, kind, created_at) VALUES (?, ?, ?, ?, ?)",
            (key, blob, backend, kind, at),
        )
    return stored


@dataclass(frozen=True)
class CacheStats:
    """What the cache holds."""

    path: str
    entries: int
    by_backend: dict[str, int]
    by_kind: dict[str, int]
    runs: int
    journal_entries: int
    size_bytes: int


class CallCache:
    """An embedded SQLite cache of model calls, safe for concurrent threads and processes."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        # answers and journal marks a locked database could not take yet (kept, written later)
        self._pending: dict[str, PendingRow] = {}
        self._pending_marks: dict[tuple[str, str], tuple[str, str]] = {}
        # answers put with `batch=True`, written together (`_write_batch`)
        self._batch: dict[str, PendingRow] = {}
        self._batch_since = 0.0
        self._flush_attempts = 0
        self._next_flush = 0.0
        self.warnings: list[str] = []
        self._open()

    def _open(self) -> None:
        """Create or check the database; InputError naming --cache when it cannot be one."""
        from skillbench.errors import InputError

        def unusable(reason: str) -> InputError:
            return InputError(
                f"cannot be used as the call cache (--cache, ${CACHE_ENV}): {reason}; "
                "pass another --cache file or --no-cache",
                path=self.path,
            )

        from skillbench.io import output_problem

        problem = output_problem(self.path)
        if problem is not None:
            raise unusable(problem)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._retry(lambda conn: conn.executescript(_SCHEMA))
            self._retry(_add_model_column)
            self._retry(
                lambda conn: conn.execute("SELECT key, value FROM calls LIMIT 1").fetchall()
            )
        except (sqlite3.DatabaseError, OSError) as exc:
            self.close()
            raise unusable(str(getattr(exc, "strerror", None) or exc)) from None

    # connections -------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if self._closed:
            raise RuntimeError(f"call cache {self.path} is closed")
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self._set_wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        self._local.conn = conn
        with self._lock:
            self._connections.append(conn)
        return conn

    @staticmethod
    def _set_wal(conn: sqlite3.Connection) -> None:
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _retry(self, action: Any) -> Any:
        """Run `action(conn)`, retrying briefly if another writer holds a lock past the timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                return action(self._connect())
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    # writes a lock refused: kept in memory, written later -----------------------------------

    @staticmethod
    def _is_lock(exc: sqlite3.OperationalError) -> bool:
        return "locked" in str(exc) or "busy" in str(exc)

    def _defer(self, exc: sqlite3.OperationalError) -> None:
        """A write failed on another process's lock: keep what it carried (the caller put it in
        `_pending`) and try again after a backoff, never failing the answered run."""
        first = self._flush_attempts == 0 and self._next_flush == 0.0
        self._flush_attempts += 1
        delay = FLUSH_BACKOFF_S * 2 ** (self._flush_attempts - 1)
        self._next_flush = time.monotonic() + delay
        if first:
            LOG.warning(
                "call cache %s is locked by another process (%s): answers are kept in memory "
                "and written when it frees",
                self.path,
                exc,
            )

    def _flush_due(self) -> bool:
        """Whether kept writes exist and their next attempt is due (within the bound)."""
        if not (self._pending or self._pending_marks):
            return False
        return self._flush_attempts <= FLUSH_ATTEMPTS and time.monotonic() >= self._next_flush

    def _write_pending(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            calls = list(self._pending.items())
            marks = list(self._pending_marks.items())
        with _immediate(conn):
            for key, (blob, backend, kind, model, at) in calls:
                conn.execute(
                    "INSERT OR IGNORE INTO calls (key, value, backend, kind, created_at, model)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (key, blob, backend, kind, at, model),
                )
            for (run_id, key), (status, at) in marks:
                conn.execute(
                    "INSERT OR REPLACE INTO journal (run_id, key, status, updated_at)"
                    " VALUES (?, ?, ?, ?)",
                    (run_id, key, status, at),
                )
        with self._lock:
            for key, value in calls:
                if self._pending.get(key) == value:
                    del self._pending[key]
            for mark, value2 in marks:
                if self._pending_marks.get(mark) == value2:
                    del self._pending_marks[mark]

    def _write_batch(self, conn: sqlite3.Connection) -> None:
        """The batched answers in one transaction; an answer that lost the race to another
        writer of its key goes to `superseded` when it differs, as in `put`."""
        with self._lock:
            rows = list(self._batch.items())
        with _immediate(conn):
            for key, row in rows:
                _insert_or_supersede(conn, key, row)
        with self._lock:
            for key, value in rows:
                if self._batch.get(key) == value:
                    del self._batch[key]

    def _flush_batch(self) -> None:
        """Write the batched answers now; on another process's lock they join the answers kept
        in memory (`_pending`), written after a backoff like those."""
        if not self._batch:
            return
        if self._pending or self._pending_marks:  # a lock is already being waited out
            with self._lock:
                self._pending.update(self._batch)
                self._batch.clear()
            self._try_flush()
            return
        try:
            self._retry(self._write_batch)
        except sqlite3.OperationalError as exc:
            if not self._is_lock(exc):
                raise
            with self._lock:
                self._pending.update(self._batch)
                self._batch.clear()
            self._defer(exc)

    def flush(self) -> list[str]:
        """Write the answers kept in memory since a lock refused them (one more attempt, with
        the full busy timeout); the warnings of this cache (an answer that could not be
        written: the run's result stands, only the cache lacks it)."""
        self._flush_batch()
        if self._pending or self._pending_marks:
            try:
                self._retry(self._write_pending)
                self._flush_attempts, self._next_flush = 0, 0.0
            except sqlite3.OperationalError as exc:
                if not self._is_lock(exc):
                    raise
                message = (
                    f"call cache write failed: {len(self._pending)} answer(s) not stored in "
                    f"{self.path} ({exc}; another process held its lock); the results stand, "
                    "a re-run pays for these calls again"
                )
                LOG.warning(message)
                if message not in self.warnings:
                    self.warnings.append(message)
        return list(self.warnings)

    def _try_flush(self) -> None:
        """A due attempt at the kept writes: one try, a short wait (never the busy timeout)."""
        if not self._flush_due():
            return
        conn = self._connect()
        conn.execute("PRAGMA busy_timeout=50")
        try:
            self._write_pending(conn)
            self._flush_attempts, self._next_flush = 0, 0.0
        except sqlite3.OperationalError as exc:
            if not self._is_lock(exc):
                raise
            self._defer(exc)
        finally:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    # calls -------------------------------------------------------------------------------

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer for `key` (or one kept in memory, not yet written), or None."""
        kept = self._batch.get(key) or self._pending.get(key)
        if kept is not None:
            value = json.loads(kept[0])
            return value if isinstance(value, dict) else None
        row = self._retry(
            lambda conn: conn.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
        )
        if row is None:
            return None
        value = json.loads(row[0])
        return value if isinstance(value, dict) else None

    def put(
        self,
        key: str,
        value: dict[str, Any],
        *,
        backend: str,
        kind: str,
        model: str | None = None,
        batch: bool = False,
    ) -> dict[str, Any] | None:
        """Store the answer for `key` (secrets scrubbed) unless one is already stored.

        Returns None when this answer was stored, else the earlier answer, which callers
        report instead of their own.

        One writer per key: when two runs of the same eval race, the first answer stored wins
        and the later run reports that answer too, so a re-run of either reproduces its report.
        A losing answer that differs is kept in the `superseded` table, never dropped.

        With `batch` (answers free to recompute: a proxy judge's), the answer is kept and
        written with others in one transaction (`BATCH_ROWS`, `BATCH_SECONDS`, `flush`,
        `close`); it is served from memory meanwhile, and an earlier answer of another process
        is not looked up (it goes to `superseded` when it differs).
        """
        blob = redacted_json(value, sort_keys=True, ensure_ascii=False)
        if batch:
            kept = self._batch.get(key) or self._pending.get(key)
            if kept is not None:
                return None if kept[0] == blob else _as_dict(kept[0])
            with self._lock:
                if not self._batch:
                    self._batch_since = time.monotonic()
                self._batch[key] = (blob, backend, kind, model, _now())
                full = len(self._batch) >= BATCH_ROWS
            if full or time.monotonic() - self._batch_since >= BATCH_SECONDS:
                self._flush_batch()
            return None

        def write(conn: sqlite3.Connection) -> str | None:
            return _insert_or_supersede(conn, key, (blob, backend, kind, model, _now()))

        self._try_flush()
        if self._pending and key in self._pending:
            stored = self._pending[key][0]
        elif self._pending and not self._flush_due():  # the lock is still held: do not wait
            self._pending[key] = (blob, backend, kind, model, _now())
            return None
        else:
            try:
                stored = self._retry(write)
            except sqlite3.OperationalError as exc:
                if not self._is_lock(exc):
                    raise
                self._pending[key] = (blob, backend, kind, model, _now())
                self._defer(exc)
                return None
        if stored is None or stored == blob:
            return None
        return _as_dict(stored)

    def superseded(self, key: str | None = None) -> list[dict[str, Any]]:
        """Answers that lost a race to an earlier writer of the same key (oldest first)."""
        self._flush_batch()
        sql = "SELECT key, value, backend, kind, created_at FROM superseded"
        params: tuple[str, ...] = ()
        if key is not None:
            sql, params = sql + " WHERE key = ?", (key,)
        rows = self._retry(lambda conn: conn.execute(sql + " ORDER BY rowid", params).fetchall())
        return [
            {"key": k, "value": json.loads(v), "backend": b, "kind": kd, "created_at": at}
            for k, v, b, kd, at in rows
        ]

    def has(self, key: str) -> bool:
        """Whether an answer for `key` is stored or kept (no counting, no journal)."""
        if key in self._pending or key in self._batch:
            return True
        row = self._retry(
            lambda conn: conn.execute("SELECT 1 FROM calls WHERE key = ?", (key,)).fetchone()
        )
        return row is not None

    def usage_samples(
        self, backend: str, model: str | None, kind: str | None = None, *, limit: int = 500
    ) -> list[dict[str, Any]]:
        """The recorded `usage` of the latest answers of one backend and model (and kind), for
        estimates; answers stored without a model (older caches) are not included."""
        sql = "SELECT value FROM calls WHERE backend = ? AND model IS ?"
        params: list[Any] = [backend, model]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        sql += " ORDER BY created_at DESC LIMIT ?"
        params.append(limit)
        rows = self._retry(lambda conn: conn.execute(sql, params).fetchall())
        samples = []
        for (blob,) in rows:
            usage = json.loads(blob).get("usage")
            if isinstance(usage, dict):
                samples.append(usage)
        return samples

    # journal -----------------------------------------------------------------------------

    def mark(self, run_id: str, key: str, status: str) -> None:
        """Record the status (`started`, `done`, `error`) of one call within a run (kept in
        memory while another process locks the database, like answers)."""
        if self._pending_marks or self._pending:
            self._pending_marks[(run_id, key)] = (status, _now())
            self._try_flush()
            return
        try:
            self._retry(
                lambda conn: conn.execute(
                    "INSERT OR REPLACE INTO journal (run_id, key, status, updated_at)"
                    " VALUES (?, ?, ?, ?)",
                    (run_id, key, status, _now()),
                )
            )
        except sqlite3.OperationalError as exc:
            if not self._is_lock(exc):
                raise
            self._pending_marks[(run_id, key)] = (status, _now())
            self._defer(exc)

    def journal(self, run_id: str) -> dict[str, str]:
        """Key → status for every call recorded under `run_id`."""
        rows = self._retry(
            lambda conn: conn.execute(
                "SELECT key, status FROM journal WHERE run_id = ?", (run_id,)
            ).fetchall()
        )
        return {key: status for key, status in rows}

    def unfinished(self, run_id: str) -> list[str]:
        """Keys a run started but did not finish (interrupted or failed)."""
        return sorted(k for k, status in self.journal(run_id).items() if status != "done")

    # housekeeping ------------------------------------------------------------------------

    def stats(self) -> CacheStats:
        """Counts of stored answers (by backend and kind) and journal entries."""
        self._flush_batch()

        def query(conn: sqlite3.Connection) -> CacheStats:
            by_backend = dict(conn.execute("SELECT backend, COUNT(*) FROM calls GROUP BY backend"))
            by_kind = dict(conn.execute("SELECT kind, COUNT(*) FROM calls GROUP BY kind"))
            runs, entries = conn.execute(
                "SELECT COUNT(DISTINCT run_id), COUNT(*) FROM journal"
            ).fetchone()
            return CacheStats(
                path=str(self.path),
                entries=sum(by_backend.values()),
                by_backend=by_backend,
                by_kind=by_kind,
                runs=runs,
                journal_entries=entries,
                size_bytes=self.path.stat().st_size if self.path.exists() else 0,
            )

        result: CacheStats = self._retry(query)
        return result

    def clear(self) -> None:
        """Delete every stored answer and journal entry."""
        with self._lock:
            self._batch.clear()
        self._retry(lambda conn: conn.executescript("DELETE FROM calls; DELETE FROM journal;"))

    def close(self) -> None:
        """Write what a lock kept back (`flush`, unless a flush already gave up), then close
        every connection this cache opened."""
        if self._batch and not self._closed:
            try:
                self._flush_batch()
            except sqlite3.DatabaseError as exc:
                LOG.warning("call cache %s: batched answers not written: %s", self.path, exc)
        if not self._closed and (self._pending or self._pending_marks) and not self.warnings:
            try:
                self.flush()
            except sqlite3.DatabaseError as exc:
                LOG.warning("call cache %s: kept answers not written: %s", self.path, exc)
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()

    def __enter__(self) -> CallCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass
class CallStats:
    """Calls made to the wrapped backend and answers served from the cache."""

    calls: int = 0
    hits: int = 0


@dataclass
class _Counter:
    stats: CallStats = field(default_factory=CallStats)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def call(self) -> None:
        with self.lock:
            self.stats.calls += 1

    def hit(self) -> None:
        with self.lock:
            self.stats.hits += 1


class _Counted:
    """The `stats`, `calls` and `hits` of a caching wrapper (kept in `self._counter`)."""

    _counter: _Counter

    @property
    def stats(self) -> CallStats:
        """A snapshot of calls and hits."""
        with self._counter.lock:
            return CallStats(self._counter.stats.calls, self._counter.stats.hits)

    @property
    def calls(self) -> int:
        """Requests that reached the wrapped backend."""
        return self.stats.calls

    @property
    def hits(self) -> int:
        """Requests answered from the cache."""
        return self.stats.hits


class CachingJudge(_Counted):
    """A TriggerJudge that serves repeated requests from a CallCache (errors are never cached).

    With `cache=None` (the `--no-cache` path) every request goes to the wrapped judge and is
    counted. With `run_id`, each request is journaled (`started` → `done` / `error`). A wrapped
    judge with an `observe_cached(outcome)` method is shown every outcome served from the cache.
    """

    def __init__(
        self, judge: TriggerJudge, cache: CallCache | None, *, run_id: str | None = None
    ) -> None:
        self.inner = judge
        self.cache = cache
        self.run_id = run_id
        self.name = judge.name
        self.model = judge.model
        self.is_proxy = judge.is_proxy
        self._counter = _Counter()
        self._checked_identity: dict[str, Any] | None = None

    def identity(self) -> dict[str, Any]:
        """The wrapped judge's identity."""
        return self.inner.identity()

    def versions(self) -> dict[str, str]:
        """The wrapped judge's versions."""
        return self.inner.versions()

    def key(self, request: TriggerRequest) -> str | None:
        """The cache key of `request` for the wrapped judge: of what it sends (its
        `request_fields(request)` when it has one, else every field of the request), or None
        when that is not known yet (the replay harness before its template is captured)."""
        identity = self.inner.identity()
        if identity != self._checked_identity:  # checked once, not once per run
            assert_no_secrets(identity)
            self._checked_identity = identity
        fields_of = getattr(self.inner, "request_fields", None)
        fields = fields_of(request) if callable(fields_of) else request.cache_fields()
        return None if fields is None else cache_key(identity, fields)

    async def _keys(self, requests: list[TriggerRequest]) -> list[str | None]:
        """The keys of `requests`, after the wrapped judge's `prepare_keys` (the replay harness
        captures its templates there) when it has one."""
        prepare = getattr(self.inner, "prepare_keys", None)
        if callable(prepare):
            await prepare(requests)
        return [self.key(r) for r in requests]

    def _lookup(self, key: str) -> TriggerOutcome | None:
        if self.cache is None:
            return None
        data = self.cache.get(key)
        LOG.debug("call cache %s: trigger key %s (%s)", _hit(data), key, self.name)
        if data is None:
            return None
        self._counter.hit()
        if self.run_id:
            self.cache.mark(self.run_id, key, "done")
        outcome = TriggerOutcome.from_cache(data)
        observe = getattr(self.inner, "observe_cached", None)
        if callable(observe):  # e.g. the model a cached CLI session reported, for the report
            observe(outcome)
        return outcome

    def _store(self, key: str, outcome: TriggerOutcome) -> TriggerOutcome:
        """Store an answer; the one reported (another run's when it stored the key first)."""
        if self.cache is None:
            return outcome
        if outcome.error is None:
            earlier = self.cache.put(
                key,
                outcome.to_cache(),
                backend=self.name,
                kind="trigger",
                model=self.model,
                batch=self.is_proxy,  # free to recompute: written in batches
            )
            if earlier is not None:  # another run stored this key first: report its answer,
                kept = TriggerOutcome.from_cache(earlier)  # but this call was made and paid
                kept.cached, kept.usage = False, outcome.usage
                outcome = kept
        if self.run_id:
            self.cache.mark(self.run_id, key, "done" if outcome.error is None else "error")
        return outcome

    def _start(self, key: str) -> None:
        self._counter.call()
        if self.cache is not None and self.run_id:
            self.cache.mark(self.run_id, key, "started")

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """The cached outcome, or the wrapped judge's (stored unless it is an error)."""
        (key,) = await self._keys([request])
        if key is None:  # nothing to key on (the judge will report why): not cached
            self._counter.call()
            return await self.inner.judge(request)
        hit = self._lookup(key)
        if hit is not None:
            return hit
        self._start(key)
        outcome = await self.inner.judge(request)
        return self._store(key, outcome)

    async def judge_many(self, requests: list[TriggerRequest]) -> list[TriggerOutcome]:
        """Judge many requests; misses go to the wrapped judge's `judge_many` when it has one
        (one embedding batch for the local backend), else one by one."""
        keys = await self._keys(requests)
        results: list[TriggerOutcome | None] = [
            None if k is None else self._lookup(k) for k in keys
        ]
        missing = [i for i, r in enumerate(results) if r is None]
        for i in missing:
            key = keys[i]
            if key is None:
                self._counter.call()
            else:
                self._start(key)
        outcomes = await judge_all(self.inner, [requests[i] for i in missing])
        for i, outcome in zip(missing, outcomes, strict=True):
            key = keys[i]
            results[i] = outcome if key is None else self._store(key, outcome)
        return [r for r in results if r is not None]

    async def aclose(self) -> None:
        """Close the wrapped judge (the cache stays open: its owner closes it)."""
        await self.inner.aclose()


def _hit(data: object) -> str:
    return "miss" if data is None else "hit"


def structured_fields(request: TextRequest, output_model: Any = None) -> dict[str, Any]:
    """The fields keying a text request; a native structured request adds its output schema."""
    fields = request.cache_fields()
    if output_model is not None:
        fields["output_schema"] = output_model.model_json_schema()
    return fields


def _cached_response(data: dict[str, Any]) -> TextResponse:
    return TextResponse(
        text=str(data["text"]),
        usage=CallUsage(**data.get("usage", {})),
        cached=True,
        parsed=data.get("parsed"),
    )


class CachingTextModel(_Counted):
    """A TextModel whose replies are served from a CallCache when the same request recurs.

    When the wrapped model offers native structured output (`complete_json`), so does this
    wrapper, under its own key (the request plus the output schema); a reply served from the
    cache comes back with `cached=True`, so a meter outside this wrapper counts it as a hit."""

    def __init__(self, model: TextModel, cache: CallCache | None) -> None:
        self.inner = model
        self.cache = cache
        self.name = model.name
        self.model = model.model
        self._counter = _Counter()

    def __getattr__(self, name: str) -> Any:
        inner = self.__dict__.get("inner")
        if name == "complete_json" and callable(getattr(inner, "complete_json", None)):
            return self._complete_json
        raise AttributeError(name)

    def identity(self) -> dict[str, Any]:
        """The wrapped model's identity."""
        return self.inner.identity()

    def key(self, request: TextRequest, output_model: Any = None) -> str:
        """The cache key of `request` (with `output_model`: of its native structured form)."""
        identity = self.inner.identity()
        assert_no_secrets(identity)
        return cache_key(identity, structured_fields(request, output_model))

    def holds(self, request: TextRequest, output_model: Any = None) -> bool:
        """Whether the cache can answer `request` without a call."""
        return self.cache is not None and self.cache.has(self.key(request, output_model))

    async def complete(self, request: TextRequest) -> TextResponse:
        """The cached reply, or the wrapped model's (a raised BackendError is never cached)."""
        return await self._answer(request, None, self.inner.complete)

    async def _complete_json(self, request: TextRequest, output_model: Any) -> TextResponse:
        """The wrapped model's native structured reply, cached like `complete` (a cached entry
        without a parsed object is not a hit)."""
        call = self.inner.complete_json  # type: ignore[attr-defined]
        return await self._answer(request, output_model, lambda r: call(r, output_model))

    async def _answer(
        self,
        request: TextRequest,
        output_model: Any,
        call: Callable[[TextRequest], Awaitable[TextResponse]],
    ) -> TextResponse:
        key = self.key(request, output_model)
        if self.cache is not None:
            data = self.cache.get(key)
            if data is not None and (output_model is None or isinstance(data.get("parsed"), dict)):
                LOG.debug("call cache hit: text key %s (%s)", key, self.name)
                self._counter.hit()
                return _cached_response(data)
            LOG.debug("call cache miss: text key %s (%s)", key, self.name)
        self._counter.call()
        response = await call(request)
        if self.cache is not None and (output_model is None or response.parsed is not None):
            value = {
                "text": response.text,
                "usage": response.usage.model_dump(),
                "parsed": response.parsed,
            }
            kind = request.purpose or ("structured" if output_model is not None else "text")
            earlier = self.cache.put(key, value, backend=self.name, kind=kind, model=self.model)
            if earlier is not None:  # another run stored this key first: report its answer,
                kept = _cached_response(earlier)  # but this call was made (and paid) all the same
                kept.cached, kept.usage = False, response.usage
                return kept
        return response

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.inner.aclose()
