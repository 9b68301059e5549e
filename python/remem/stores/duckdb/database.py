"""One DuckDB memory file, its one connection and its one worker thread, shared by the stores.

DuckDB lets one process at a time open a file for writing, and inside a process two connections
to the same file would race each other's transactions. So every store on a file (the
DuckDBRecordStore and the DuckDBGraphStore) goes through one :class:`DuckDBDatabase`: one
connection, one :class:`BlockingWorker` thread running every statement in submission order, one
schema. Stores given a *path* share the process-wide instance for that path (reference counted:
the connection closes when the last store closes); stores can also be handed a database
explicitly::

    db = DuckDBDatabase("memory.duckdb")
    async with DuckDBRecordStore(db) as records, DuckDBGraphStore(db) as graph:
        ...

A second *process* opening a file another process holds gets a :class:`BackendError` saying the
file is in use, after retrying for ``lock_timeout`` seconds (default 5) — DuckDB has no
multi-process writer mode, so the honest choices are wait-then-fail or a server (PostgreSQL).

Durability: each store call is all-or-nothing and returns only after the transaction holding
it committed; DuckDB writes it to the write-ahead log and fsyncs on commit, so a returned call
survives an application crash (the WAL is replayed on the next open) and power loss (on storage
that honours fsync). A call interrupted before commit leaves nothing behind.

Group commit: calls that arrive while the worker is busy are run by the next job in ONE
transaction (one WAL fsync for all of them), and none is acknowledged before that COMMIT.
DuckDB has no savepoints, so if any call of a group fails the group is rolled back and every
call of it is re-run in its own transaction — one call's error (a duplicate id, say) fails only
that call, exactly as if the calls had run one after another.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import numpy as np
from numpy.typing import NDArray

from remem.errors import BackendError, DuplicateIdError, InvalidArgumentError, StoreError
from remem.stores.duckdb.row_cache import RowCache
from remem.stores.duckdb.schema import BOOTSTRAP, COMPONENT, MIGRATIONS
from remem.stores.shared.worker import BlockingWorker

T = TypeVar("T")
Conn = duckdb.DuckDBPyConnection

DEFAULT_LOCK_TIMEOUT = 5.0
"""Seconds to keep retrying when another process holds the file's write lock."""

_registry_lock = threading.Lock()
_registry: dict[str, DuckDBDatabase] = {}


@dataclass(slots=True)
class _Call:
    """One queued transaction: its body, its caller's future and loop, and its error label."""

    fn: Callable[[Conn], Any]
    action: str
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop


class DuckDBDatabase:
    """The owner of one DuckDB file: connection, worker thread, schema, reference count."""

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT):
        if lock_timeout < 0:
            raise InvalidArgumentError(f"lock_timeout must be ≥ 0 seconds, got {lock_timeout}")
        self.path = Path(path)
        self._key = os.path.realpath(path)
        self.lock_timeout = lock_timeout
        self._conn: Conn | None = None
        self._worker: BlockingWorker | None = None
        self._users = 0
        self._open_lock = asyncio.Lock()
        self._closed = False
        self._pending: list[_Call] = []
        self._pending_lock = threading.Lock()
        self._flush_queued = False
        # Committed memory_records rows for DuckDBRecordStore's point reads (see row_cache).
        self.record_rows = RowCache()

    @classmethod
    def shared(cls, path: str | os.PathLike[str], *, lock_timeout: float) -> DuckDBDatabase:
        """The process-wide instance for ``path`` (created if none is open)."""
        key = os.path.realpath(path)
        with _registry_lock:
            db = _registry.get(key)
            if db is None or db._closed:
                db = cls(path, lock_timeout=lock_timeout)
                _registry[key] = db
            return db

    async def acquire(self) -> None:
        """Open the connection if needed and count one more user."""
        async with self._open_lock:
            if self._closed:
                raise BackendError(f"DuckDB database {self.path} was closed; open a new one")
            if self._conn is None:
                worker = BlockingWorker(f"duckdb-{self.path.name}")
                try:
                    self._conn = await worker.run(self._connect)
                except BaseException:
                    worker.shutdown()
                    raise
                self._worker = worker
            self._users += 1

    async def release(self) -> None:
        """Count one user less; the last one closes the connection and stops the thread."""
        async with self._open_lock:
            self._users -= 1
            if self._users > 0 or self._conn is None or self._worker is None:
                return
            conn, worker = self._conn, self._worker
            self._conn, self._worker, self._closed = None, None, True
            with _registry_lock:
                if _registry.get(self._key) is self:
                    del _registry[self._key]
            try:
                await worker.run(conn.close)
            finally:
                worker.shutdown()

    async def run(self, fn: Callable[[Conn], T]) -> T:
        """Run ``fn(connection)`` on the worker thread."""
        conn, worker = self._conn, self._worker
        if conn is None or worker is None:
            raise BackendError(f"DuckDB database {self.path} is not open; open a store on it")
        return await worker.run(lambda: fn(conn))

    async def transaction(self, fn: Callable[[Conn], T], *, action: str) -> T:
        """Run ``fn`` in a transaction on the worker (group-committed with concurrent calls).

        Returns after the COMMIT; on failure nothing of ``fn`` is left and the error is wrapped.
        ``fn`` may be run twice (see the module docstring), so it must only touch ``conn``.
        """
        conn, worker = self._conn, self._worker
        if conn is None or worker is None:
            raise BackendError(f"DuckDB database {self.path} is not open; open a store on it")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._pending_lock:
            self._pending.append(_Call(fn, action, future, loop))
            queue_flush = not self._flush_queued
            self._flush_queued = True
        if queue_flush:
            worker.submit(lambda: self._flush(conn))
        return await future

    def _flush(self, conn: Conn) -> None:
        """Worker job: run every pending call in one transaction, then settle the callers."""
        with self._pending_lock:
            group, self._pending = self._pending, []
            self._flush_queued = False
        outcomes: list[tuple[bool, Any]] = []
        try:
            conn.execute("BEGIN TRANSACTION")
            try:
                outcomes = [(True, call.fn(conn)) for call in group]
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except BaseException:
            # Someone failed (or the COMMIT did): redo each call alone, so errors stay its own.
            outcomes = [_alone(conn, call) for call in group]
        for call, outcome in zip(group, outcomes, strict=True):
            # RuntimeError: the caller's event loop is closed, so nobody is waiting.
            with contextlib.suppress(RuntimeError):
                call.loop.call_soon_threadsafe(_settle, call.future, outcome)

    def _connect(self) -> Conn:
        deadline = time.monotonic() + self.lock_timeout
        while True:
            try:
                conn = duckdb.connect(str(self.path))
                break
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower():
                    raise BackendError(f"could not open DuckDB file {self.path}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise BackendError(
                        f"DuckDB file {self.path} is in use by another process (DuckDB allows "
                        "one writer process per file); close that process or use PostgreSQL "
                        "for multi-process access"
                    ) from exc
                time.sleep(0.05)
            except duckdb.Error as exc:
                raise BackendError(f"could not open DuckDB file {self.path}: {exc}") from exc
        try:
            _migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn


def _alone(conn: Conn, call: _Call) -> tuple[bool, Any]:
    try:
        conn.execute("BEGIN TRANSACTION")
        try:
            result = call.fn(conn)
            conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(duckdb.Error):
                conn.execute("ROLLBACK")
            raise_wrapped(exc, call.action)
        return True, result
    except BaseException as exc:
        return False, exc


def _settle(future: asyncio.Future[Any], outcome: tuple[bool, Any]) -> None:
    if future.cancelled():
        return
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


def _migrate(conn: Conn) -> None:
    try:
        conn.execute(BOOTSTRAP)
        rows = conn.execute(
            "SELECT version FROM remem_schema_migrations WHERE component = ?", [COMPONENT]
        ).fetchall()
        applied = {int(r[0]) for r in rows}
        newest_known = max(v for v, _, _ in MIGRATIONS)
        if applied and max(applied) > newest_known:
            raise BackendError(
                f"the DuckDB file's schema is at version {max(applied)}, newer than this remem "
                f"({newest_known}); upgrade remem before opening it"
            )
        for version, description, sql in MIGRATIONS:
            if version in applied:
                continue
            conn.execute("BEGIN TRANSACTION")
            try:
                conn.execute(sql)
                conn.execute(
                    "INSERT INTO remem_schema_migrations VALUES (?, ?, ?)",
                    [COMPONENT, version, description],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
    except duckdb.Error as exc:
        raise BackendError(f"migrating the DuckDB schema failed: {exc}") from exc


def raise_wrapped(exc: BaseException, action: str) -> None:
    """Re-raise ``exc``: remem errors as they are, DuckDB errors as the remem error to act on."""
    if isinstance(exc, StoreError | InvalidArgumentError) or not isinstance(exc, duckdb.Error):
        raise exc
    if isinstance(exc, duckdb.ConstraintException) and "duplicate key" in str(exc).lower():
        raise DuplicateIdError(
            f"{action}: an id already exists ({exc}); nothing was written"
        ) from exc
    raise BackendError(f"{action} failed in DuckDB: {exc}") from exc


def objects(values: list[object]) -> NDArray[np.object_]:
    """A 1-D object array holding ``values`` as they are (lists stay lists)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def register_rows(
    conn: Conn,
    name: str,
    columns: tuple[str, ...],
    types: dict[str, str],
    rows: list[tuple[object, ...]],
) -> str:
    """Register ``rows`` as the numpy-backed view ``name``; return ``SELECT casts FROM name``.

    This is DuckDB's native bulk path: it scans the numpy arrays directly (no per-row binding),
    about 50x faster than ``executemany`` (see benches/bench_records.py).
    """
    arrays = {col: objects([r[i] for r in rows]) for i, col in enumerate(columns)}
    conn.register(name, arrays)
    casts = ", ".join(f"CAST({c} AS {types[c]}) AS {c}" for c in columns)
    return f"SELECT {casts} FROM {name}"
