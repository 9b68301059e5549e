"""JournalFile: the write-behind journal's rows in a SQLite file (one commit per append).

A row is one accepted write that the stores have not confirmed yet: a turn (its
:class:`TranscriptEntry` as JSON) or a memory (its :class:`MemoryRecord` as JSON and its vector as
float32 bytes). Rows are deleted by sequence number once the stores hold them. Rows the stores
refused for good (a conflicting id, see :mod:`remem.writebehind.journal`) move to ``rejected``
with the reason, so a refused write is never silently dropped.

SQLite in WAL mode because an append must be cheap — a small commit costs about 0.06 ms here,
against about 2 ms for the smallest DuckDB transaction — and durable: ``durability="normal"``
survives an application crash, ``"full"`` also power loss (see
:mod:`remem.stores.sqlite.embedded`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from remem.errors import IntegrityError
from remem.models import MemoryRecord, TranscriptEntry
from remem.stores.sqlite.embedded import (
    Durability,
    EmbeddedDatabase,
    wrap_sqlite_error,
    write_transaction,
)

SCHEMA_VERSION = 1
"""The writebehind schema version this remem writes (``remem migrate`` compares it)."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS pending (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
    "body TEXT NOT NULL, vector BLOB)",
    "CREATE TABLE IF NOT EXISTS rejected (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
    "body TEXT NOT NULL, vector BLOB, reason TEXT NOT NULL)",
)
TURN = "turn"
MEMORY = "memory"


@dataclass(frozen=True, slots=True)
class PendingWrite:
    """One journaled write: a turn, or a memory with its vector."""

    seq: int
    turn: TranscriptEntry | None = None
    record: MemoryRecord | None = None
    vector: NDArray[np.float32] | None = None

    @property
    def id(self) -> str:
        item = self.turn if self.turn is not None else self.record
        assert item is not None
        return item.id

    def row(self) -> tuple[int, str, str, bytes | None]:
        if self.turn is not None:
            return (self.seq, TURN, self.turn.model_dump_json(), None)
        assert self.record is not None
        assert self.vector is not None
        return (self.seq, MEMORY, self.record.model_dump_json(), self.vector.tobytes())


def _parse(row: tuple[int, str, str, bytes | None], dimension: int) -> PendingWrite:
    seq, kind, body, blob = row
    if kind == TURN:
        return PendingWrite(seq, turn=TranscriptEntry.model_validate_json(body))
    if kind != MEMORY or blob is None or len(blob) != 4 * dimension:
        raise IntegrityError(
            f"journal row {seq} is not a {dimension}-d memory or a turn; the journal was written "
            "by another embedder or is damaged — open with the embedder that wrote it"
        )
    vector = np.frombuffer(blob, dtype=np.float32).copy()
    return PendingWrite(seq, record=MemoryRecord.model_validate_json(body), vector=vector)


class JournalFile:
    """The pending and rejected writes of one memory directory (see the module docstring).

    With ``durability="normal"`` the small journal transactions run on the calling (event-loop)
    thread: a WAL append without fsync takes ~0.06 ms, less than the two thread switches a
    worker would cost. Automatic checkpoints are off on that connection (a checkpoint fsyncs
    and can take milliseconds); the worker thread runs a passive checkpoint every
    ``CHECKPOINT_EVERY`` removed rows instead. With ``"full"`` every commit fsyncs, so all of it
    runs on the worker thread and the event loop never waits on the disk.
    """

    CHECKPOINT_EVERY = 4_096

    def __init__(self, path: str | Path, *, durability: str | Durability = "normal") -> None:
        self._db = EmbeddedDatabase(
            path,
            name="writebehind",
            schema=_SCHEMA,
            schema_version=SCHEMA_VERSION,
            durability=durability,
        )
        self.path = self._db.path
        self._inline: sqlite3.Connection | None = None
        self._removed = 0

    async def open(self) -> None:
        """Create or open the file (schema on the worker's connection, then the inline one)."""
        await self._db.run(lambda conn: None)
        if self._db.durability is Durability.NORMAL and self._inline is None:
            self._inline = self._db.extra_connection()
            self._inline.execute("PRAGMA wal_autocheckpoint = 0")

    async def _write(
        self, action: str, fn: Callable[[sqlite3.Connection], None], *, single: bool = False
    ) -> None:
        """``fn`` in a transaction; ``single``: fn is one statement, atomic on its own, so it
        runs in autocommit mode (one call into SQLite instead of three — this is per write)."""

        def run(conn: sqlite3.Connection) -> None:
            try:
                if single:
                    fn(conn)
                else:
                    write_transaction(conn, fn)
            except sqlite3.Error as exc:
                raise wrap_sqlite_error(exc, action) from exc

        if self._inline is not None:
            run(self._inline)
        else:
            await self._db.run(run)

    async def load(self, dimension: int) -> list[PendingWrite]:
        """Every pending write, oldest first (rows of another dimension raise IntegrityError)."""

        def read(conn: sqlite3.Connection) -> list[tuple[int, str, str, bytes | None]]:
            return conn.execute(
                "SELECT seq, kind, body, vector FROM pending ORDER BY seq"
            ).fetchall()

        rows = await self._db.run(read)
        return [_parse(row, dimension) for row in rows]

    async def next_seq(self) -> int:
        def read(conn: sqlite3.Connection) -> int:
            row = conn.execute(
                "SELECT max(s) FROM (SELECT max(seq) AS s FROM pending "
                "UNION ALL SELECT max(seq) FROM rejected)"
            ).fetchone()
            return 1 if row is None or row[0] is None else int(row[0]) + 1

        return await self._db.run(read)

    async def append(self, writes: Sequence[PendingWrite]) -> None:
        """Make ``writes`` durable, all or nothing, in one commit."""
        rows = [w.row() for w in writes]

        def insert(c: sqlite3.Connection) -> None:
            if len(rows) == 1:
                c.execute("INSERT INTO pending VALUES (?, ?, ?, ?)", rows[0])
            else:
                c.executemany("INSERT INTO pending VALUES (?, ?, ?, ?)", rows)

        await self._write("journaling writes", insert, single=len(rows) == 1)

    async def remove(self, seqs: Sequence[int]) -> None:
        """Forget the writes the stores now hold."""
        params = [(s,) for s in seqs]

        def delete(c: sqlite3.Connection) -> None:
            c.executemany("DELETE FROM pending WHERE seq = ?", params)

        await self._write("clearing applied writes", delete)
        self._removed += len(params)
        if self._inline is not None and self._removed >= self.CHECKPOINT_EVERY:
            self._removed = 0
            self._db.submit_job(self._checkpoint)

    def _checkpoint(self) -> None:
        """On the worker: fold the WAL back into the file without blocking the appends."""
        # A failure only lets the WAL grow until the next checkpoint; no data is at stake.
        with contextlib.suppress(sqlite3.Error):
            self._db.connection().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    async def reject(self, write: PendingWrite, reason: str) -> None:
        """Move ``write`` from pending to rejected with ``reason`` (one transaction)."""
        seq, kind, body, blob = write.row()

        def move(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT OR REPLACE INTO rejected VALUES (?, ?, ?, ?, ?)",
                (seq, kind, body, blob, reason),
            )
            c.execute("DELETE FROM pending WHERE seq = ?", (seq,))

        await self._write("rejecting a write", move)

    async def rejected(self) -> list[tuple[int, str, str, str]]:
        """``(seq, kind, body JSON, reason)`` of every write the stores refused, oldest first."""

        def read(conn: sqlite3.Connection) -> list[tuple[int, str, str, str]]:
            return conn.execute(
                "SELECT seq, kind, body, reason FROM rejected ORDER BY seq"
            ).fetchall()

        return await self._db.run(read)

    async def aclose(self) -> None:
        if self._inline is not None:
            self._inline.close()
            self._inline = None
        await self._db.close()
