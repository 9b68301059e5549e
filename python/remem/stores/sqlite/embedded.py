"""One SQLite database file owned by one worker thread, opened lazily, closed even if forgotten.

Every SQLite store (transcripts, episodic search) holds an :class:`EmbeddedDatabase`: the
connection lives on the store's single worker thread and is opened by the first job, so a store
works without ``async with`` (the seed's transcript example never opens or closes it). If the
store is garbage-collected or the interpreter exits without ``aclose()``, a ``weakref.finalize``
hook closes the connection after the queued jobs and lets the thread end — nothing keeps the
interpreter alive and no handle outlives the store.

Durability (``Durability``): the database is always in WAL mode, and a write is acknowledged only
after its transaction committed.

- ``"normal"`` (default): ``synchronous=NORMAL``. A committed write survives an application crash
  (the process killed at any point, SIGKILL included): the WAL frames were written to the OS
  before the commit returned. On power loss or an OS crash, the last few commits (since the last
  checkpoint fsync) may be lost, but the database stays consistent: every transaction is either
  fully present or fully absent.
- ``"full"``: ``synchronous=FULL``. The WAL is fsync'ed at every commit, so a committed write also
  survives power loss (on storage that honours fsync).
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from remem.errors import BackendError, ConfigError, DuplicateIdError, IntegrityError
from remem.stores.shared.worker import BlockingWorker

T = TypeVar("T")

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's write lock before failing."""


class Durability(StrEnum):
    NORMAL = "normal"
    FULL = "full"


def parse_durability(value: str | Durability) -> Durability:
    try:
        return Durability(value)
    except ValueError:
        raise ConfigError(
            f"durability must be 'normal' or 'full', got {value!r}; 'full' also survives power loss"
        ) from None


class _Worker(BlockingWorker):
    def submit(self, fn: Callable[[], None]) -> None:
        """Queue ``fn`` without waiting for it."""
        self._executor.submit(fn)

    def close_after_queued(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` after every queued job, then let the thread exit; never blocks."""
        try:
            self._executor.submit(fn)
        except RuntimeError:  # the executor is already shut down (interpreter exit)
            fn()
        self._executor.shutdown(wait=False)


class _Handle:
    """The connection, shared with the finalizer (which must not reference the store)."""

    __slots__ = ("conn", "lock")

    def __init__(self) -> None:
        self.conn: sqlite3.Connection | None = None
        self.lock = threading.Lock()

    def close(self) -> None:
        with self.lock:
            if self.conn is not None:
                try:
                    self.conn.close()
                finally:
                    self.conn = None


class EmbeddedDatabase:
    """A lazily opened SQLite connection, used only from its own worker thread."""

    def __init__(
        self,
        path: str | Path,
        *,
        name: str,
        schema: Sequence[str],
        schema_version: int,
        durability: str | Durability = Durability.NORMAL,
        upgrade: Callable[[sqlite3.Connection], object] | None = None,
    ) -> None:
        """``upgrade`` runs after the schema statements, in the same transaction, whenever a
        connection opens (a data upgrade such as re-indexing: it must be cheap when there is
        nothing to do)."""
        self.path = Path(path)
        self.durability = parse_durability(durability)
        self._name = name
        self._schema = schema
        self._schema_version = schema_version
        self._upgrade = upgrade
        self._worker = _Worker(name)
        self._handle = _Handle()
        self._finalizer = weakref.finalize(
            self, self._worker.close_after_queued, self._handle.close
        )

    def connection(self) -> sqlite3.Connection:
        """The open connection (opened on first use). Call only from a worker job."""
        conn = self._handle.conn
        if conn is None:
            conn = self._connect()
            self._handle.conn = conn
        return conn

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE), so a writer takes
            # the write lock up front and waits on busy_timeout instead of failing an upgrade.
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
        except (OSError, sqlite3.Error) as exc:
            raise BackendError(
                f"could not open SQLite database {self.path} ({exc}); check the path is writable"
            ) from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _enable_wal(conn)
            conn.execute(f"PRAGMA synchronous = {self.durability.value.upper()}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._prepare_schema(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except IntegrityError:
            conn.close()
            raise
        except sqlite3.Error as exc:
            conn.close()
            raise BackendError(
                f"could not prepare SQLite database {self.path} ({exc}); "
                "is it a remem database and not corrupted?"
            ) from exc
        return conn

    def _prepare_schema(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS remem_schema "
            "(component TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL)"
        )
        row = conn.execute(
            "SELECT version FROM remem_schema WHERE component = ?", (self._name,)
        ).fetchone()
        if row is not None and row[0] > self._schema_version:
            raise IntegrityError(
                f"{self.path} holds a {self._name} schema at version {row[0]}, newer than this "
                f"remem ({self._schema_version}); upgrade remem before opening it"
            )
        for statement in self._schema:
            conn.execute(statement)
        if self._upgrade is not None:
            self._upgrade(conn)
        conn.execute(
            "INSERT OR REPLACE INTO remem_schema (component, version) VALUES (?, ?)",
            (self._name, self._schema_version),
        )

    def extra_connection(self) -> sqlite3.Connection:
        """A second connection with the same settings, for the caller's thread to own and close
        (the schema must already exist: run a job on the worker first)."""
        return self._connect()

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` on the worker thread."""
        return await self._worker.run(lambda: fn(self.connection()))

    def submit_job(self, fn: Callable[[], None]) -> None:
        """Queue ``fn`` on the worker without waiting (it reports its own results)."""
        self._worker.submit(fn)

    async def close(self) -> None:
        """Close the connection after queued jobs and stop the worker thread."""
        self._finalizer.detach()
        await self._worker.run(self._handle.close)
        self._worker.shutdown()


def write_transaction(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn`` inside BEGIN IMMEDIATE ... COMMIT; roll back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = fn(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


def wrap_sqlite_error(exc: sqlite3.Error, action: str) -> Exception:
    """The remem error for a sqlite3 error raised while doing ``action``."""
    if isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc):
        return DuplicateIdError(f"{action}: an id already exists ({exc}); use a new id")
    return BackendError(f"{action} failed in SQLite: {exc}")


def _enable_wal(conn: sqlite3.Connection) -> None:
    """``PRAGMA journal_mode = WAL``, retried while another process holds the lock.

    Switching a fresh (rollback-journal) file to WAL needs an exclusive lock, and SQLite reports
    "database is locked" at once instead of calling the busy handler when two processes open a
    new database at the same moment (seen in the two-process test under load). So wait here,
    with backoff, up to the same BUSY_TIMEOUT_MS every other lock wait gets.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)  # a real lock wait on another process, not simulated time
        delay = min(delay * 2, 0.1)
